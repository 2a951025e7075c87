import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared';

// Three entry points: `@oidc-rp/node` never imports Redis code (`@oidc-rp/node/redis` holds it) nor the API side (`@oidc-rp/node/api`).
export default defineConfig(libraryBuild({ index: 'src/index.ts', redis: 'src/redis/index.ts', api: 'src/api/index.ts' }));
