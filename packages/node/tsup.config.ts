import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared';

// Entry points: `@oidc-rp/node` never imports Redis code, `@oidc-rp/node/redis` holds it; `@oidc-rp/node/api` is the resource-server side.
export default defineConfig(libraryBuild({ index: 'src/index.ts', redis: 'src/redis/index.ts', api: 'src/api/index.ts' }));
