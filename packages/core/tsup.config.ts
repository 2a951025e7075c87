import { defineConfig } from 'tsup';
import { messageBuilds } from '../../tsup.shared';

// Four entries, each as <entry>.* (every message) and <entry>.production.* (codes only), all
// shortening internal properties: the client side (`@oidc-rp/core`), the API side
// (`@oidc-rp/core/api`), signed requests and responses (`@oidc-rp/core/signed`) and what only
// the sibling packages import (`@oidc-rp/core/internal`).
export default defineConfig(messageBuilds({ index: 'src/index.ts', api: 'src/api/index.ts', signed: 'src/signed.ts', internal: 'src/internal.ts' }));
