import { defineConfig } from 'tsup';
import { messageBuilds } from '../../tsup.shared';

// Two entries, each as <entry>.* (every message) and <entry>.production.* (codes only), both
// shortening internal properties: the client (`@oidc-rp/browser`) and the logout and session
// functions of OpenID Connect Front-Channel Logout and Session Management
// (`@oidc-rp/browser/session`), kept apart so that the quick start's bundle never parses them.
export default defineConfig(messageBuilds({ index: 'src/index.ts', session: 'src/session.ts' }));
