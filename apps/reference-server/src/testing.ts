/**
 * The testing entry (`@oidc-rp/reference-server/testing`): a server preset for tests with
 * one-call logins (`createTestServer`, `loginAs`), driving the real login forms from a test
 * (`completeLogin`, `CookieJar`), DPoP proofs for a login's tokens (`dpopProof`) and the server in a child process (`startServerProcess`).
 */
export { createTestServer } from './testing/test-server';
export type { IdTokenClaims, LoginAsOptions, LoginAsResult, TestServer, TestServerOptions, TestTokens } from './testing/test-server';
export { completeLogin, CookieJar } from './testing/complete-login';
export type { CompleteLoginOptions, CompleteLoginResult } from './testing/complete-login';
export { dpopProof } from './testing/login-dpop';
export type { DpopProofOptions, LoginAsDpop } from './testing/login-dpop';
export { startServerProcess } from './testing/server-process';
export type { ServerProcess } from './testing/server-process';
