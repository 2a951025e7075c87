/**
 * The testing entry (`@oidc-rp/reference-server/testing`): drive the real login forms from a
 * test (`completeLogin`, `CookieJar`) and run the server in a child process (`startServerProcess`).
 */
export { completeLogin, CookieJar } from './testing/complete-login';
export type { CompleteLoginOptions, CompleteLoginResult } from './testing/complete-login';
export { startServerProcess } from './testing/server-process';
export type { ServerProcess } from './testing/server-process';
