/**
 * The public types of the Node client: what `createNodeClient` returns and the options of its
 * methods. Kept apart from the implementation so the web handlers and the session layer can
 * name them without importing the client (imports point one way).
 */

import type { AuthorizationRequestParams, AuthorizationTransaction, ClaimsProvider, DpopHandle, InitiatedLogin, ProviderMetadata, ResolvedClaims, TokenSet, UserInfo } from '@oidc-rp/core';
import type { CallbackInput } from './callback-input';
import type { NodeResponseMode } from './options';
import type { ClientCredentialsOptions, InvalidateOptions } from './client-credentials';

/**
 * Options of one login; unset ones fall back to the client's options.
 *
 * @example
 * ```ts
 * await client.startLogin({ responseType: 'code id_token', maxAge: 300, appState: { returnTo: '/orders' } });
 * ```
 */
export type StartLoginOptions = Omit<AuthorizationRequestParams, 'provider' | 'clientId' | 'redirectUri' | 'scope' | 'responseMode'> & {
  /** Default: the client's `responseMode` option; a JARM mode (`jwt`, `query.jwt`, `form_post.jwt`) asks for a signed response. */
  responseMode?: NodeResponseMode;
  /** Default: the client's `scope` option. */
  scope?: AuthorizationRequestParams['scope'];
  /** RFC 8707: the APIs this login asks tokens for. Default: the client's `resources` option. */
  resources?: readonly string[];
};

/**
 * The URL to send the user to, and the transaction to keep until the callback.
 *
 * @example
 * ```ts
 * const { url, transaction }: LoginStart = await client.startLogin();
 * session.loginTransaction = transaction; // or: await client.sealTransaction(transaction) into a cookie
 * return Response.redirect(url, 302);
 * ```
 */
export interface LoginStart {
  url: URL;
  transaction: AuthorizationTransaction;
}

/**
 * Options of `refresh`.
 *
 * @example
 * ```ts
 * const tokens = await client.refresh(session.refreshToken, { expectedSubject: session.sub });
 * session.refreshToken = tokens.refreshToken; // rotated: the old one is now spent
 * ```
 */
export interface RefreshOptions {
  /** Ask for fewer scopes than originally granted. */
  scope?: string;
  /**
   * RFC 8707 §2.2: a token for this one API of the client's `resources` (the login asked for
   * them), without a new login; the result's `accessToken` is for it alone, and the rotated
   * refresh token still covers every resource. Another resource is `resource_not_configured`.
   */
  resource?: string;
  /** The `sub` of the logged-in user: a returned ID token must be for the same user. */
  expectedSubject?: string;
}

/**
 * Options of `getUserInfo`.
 *
 * @example
 * ```ts
 * const profile = await client.getUserInfo(tokens.accessToken, { expectedSubject: tokens.claims!.sub });
 * ```
 */
export interface UserInfoOptions {
  /** The `sub` of the user's validated ID token: userinfo about anyone else is refused. */
  expectedSubject: string;
  /**
   * Where the access token goes: `header` (`Authorization: Bearer`, default) or `body` (a POST
   * with the `access_token` form field, RFC 6750 2.2). Not with `dpop`.
   */
  tokenIn?: 'header' | 'body';
}

/**
 * Options of `endSessionUrl` (RP-initiated logout).
 *
 * @example
 * ```ts
 * const url = await client.endSessionUrl({ idTokenHint: session.idToken, postLogoutRedirectUri: 'https://app.example.com/' });
 * return Response.redirect(url ?? 'https://app.example.com/', 302);
 * ```
 */
export interface EndSessionOptions {
  idTokenHint?: string;
  postLogoutRedirectUri?: string;
  state?: string;
}

/**
 * A confidential OpenID Connect client for a backend. Create it with {@link createNodeClient}.
 *
 * @example
 * ```ts
 * const client: NodeClient = createNodeClient(options);
 * app.get('/login', (c) => client.handleLogin(c.req.raw));
 * const { accessToken } = await client.getClientCredentialsToken({ scope: 'api.read' });
 * ```
 */
export interface NodeClient {
  /** Builds the authorization request: send the user to `url`, keep `transaction` (e.g. sealed in a cookie). */
  startLogin(options?: StartLoginOptions): Promise<LoginStart>;
  /** Validates the provider's response, redeems the code and validates the ID token(s). */
  finishLogin(input: CallbackInput, transaction: AuthorizationTransaction): Promise<TokenSet>;
  /** Redeems a refresh token; the result carries the rotated refresh token (or the same one if the provider does not rotate). */
  refresh(refreshToken: string, options?: RefreshOptions): Promise<TokenSet>;
  /** A client-credentials access token, from the cache while fresh; one request per distinct request (scope, audience, resource, extra) however many callers. */
  getClientCredentialsToken(options?: ClientCredentialsOptions): Promise<TokenSet>;
  /** The provider's userinfo claims for the user's access token; `userinfo_sub_mismatch` when they are about another user. */
  getUserInfo(accessToken: string, options: UserInfoOptions): Promise<UserInfo>;
  /**
   * Aggregated and distributed claims (OIDC Core 5.6.2) of a userinfo answer (or ID token
   * claims): adds each source's claims once its JWT verifies with the keys of the provider or of
   * one of `claimsProviders`; fetches distributed ones only over https from a trusted provider's
   * origin. Claims not used are listed in `unresolved` with a typed error.
   */
  resolveClaimSources(claims: Record<string, unknown>, options?: { claimsProviders?: readonly ClaimsProvider[] }): Promise<ResolvedClaims>;
  /**
   * Checks a third-party login initiation (OIDC Core 4; the query or form sent to the client's
   * `initiate_login_uri`): `iss` must be this client's issuer, `target_link_uri` on one of
   * `targetOrigins`. Start the login with the resulting `loginHint` (the session layer's
   * `routes.initiateLogin` does all this).
   */
  readInitiateLogin(params: URLSearchParams, options: { targetOrigins: readonly string[] }): InitiatedLogin;
  /** Drops a cached client-credentials token (call it when a resource server answers 401). */
  invalidate(options?: InvalidateOptions): Promise<void>;
  /** Seals a transaction with `cookieSecret` into a compact encrypted string. */
  sealTransaction(transaction: AuthorizationTransaction): Promise<string>;
  /** Opens a sealed transaction; `transaction_expired` / `transaction_invalid` when it cannot be trusted. */
  unsealTransaction(sealed: string): Promise<AuthorizationTransaction>;
  /** Web-standard login route: a 302 to the provider with the sealed transaction cookie. */
  handleLogin(request: Request, options?: HandleLoginOptions): Promise<Response>;
  /** Web-standard callback route: finishes the login from the callback request and its cookie. */
  handleCallback(request: Request): Promise<CallbackResult>;
  /** The provider's RP-initiated logout URL, or undefined when it has none. */
  endSessionUrl(options?: EndSessionOptions): Promise<URL | undefined>;
  /** Revokes a refresh or access token (RFC 7009); resolves false, sending nothing, when the provider has no revocation endpoint. */
  revokeToken(token: string, options?: { tokenTypeHint?: 'refresh_token' | 'access_token' }): Promise<boolean>;
  /** The provider metadata in use (discovered on first call when created with `issuer`). */
  getProvider(): Promise<ProviderMetadata>;
  /** The DPoP handle given as the `dpop` option (every token of this client is bound to its key), if any. */
  readonly dpop?: DpopHandle;
  /** The `resources` option (RFC 8707): the APIs logins ask tokens for; empty when none. */
  readonly resources: readonly string[];
  /** The `signingAlgorithm` option: the one algorithm its ID tokens and logout tokens may be signed with, if pinned. */
  readonly signingAlgorithm?: string;
}

/**
 * Options of `handleLogin`: those of `startLogin`.
 *
 * @example
 * ```ts
 * app.get('/login', (c) => client.handleLogin(c.req.raw, { appState: { returnTo: c.req.query('returnTo') } }));
 * ```
 */
export type HandleLoginOptions = StartLoginOptions;

/**
 * What `handleCallback` returns on success.
 *
 * @example
 * ```ts
 * const { tokens, appState, clearCookie }: CallbackResult = await client.handleCallback(request);
 * const headers = new Headers({ Location: '/' });
 * headers.append('Set-Cookie', clearCookie);
 * ```
 */
export interface CallbackResult {
  /** The validated tokens, with the ID token claims in `tokens.claims`. */
  tokens: TokenSet;
  /** The `appState` given to `handleLogin`. Treat a URL in it as untrusted input (check it is one of yours). */
  appState: unknown;
  transaction: AuthorizationTransaction;
  /** A `Set-Cookie` header value that deletes the used transaction cookie: send it with your response. */
  clearCookie: string;
}
