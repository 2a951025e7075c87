import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared';

// Two entry points: `@oidc-rp/node` never imports Redis code, `@oidc-rp/node/redis` holds it.
export default defineConfig(libraryBuild({ index: 'src/index.ts', redis: 'src/redis/index.ts' }));
