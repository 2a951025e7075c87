/** The public shape of the browser client and of its method options (the factory is in client.ts). */

import type { HttpOptions, IdTokenClaims, ProviderMetadata } from '@oidc-rp/core';
import type { BrowserDpop } from './dpop';
import type { BrowserResources } from './resources';
import type { AuthSnapshot } from './snapshot-store';
import type { BrowserClientEventName, BrowserClientEvents } from './events';

/**
 * Options of {@link BrowserClient.login}.
 *
 * @example
 * ```ts
 * await client.login({ appState: { returnTo: location.pathname }, loginHint: 'alice' });
 * ```
 */
export interface LoginOptions {
  /** Any JSON value, given back by `handleRedirectCallback` (e.g. the page to return to). Not sent to the provider. */
  appState?: unknown;
  /**
   * Log in in a popup instead of leaving the page. Call from a click handler, or the browser
   * blocks it. Needs the `popupLogin` part (see `BrowserClientOptions.popupLogin`).
   */
  popup?: boolean;
  /**
   * `prompt` of the authorization request. Default: `consent` when the scope has
   * `offline_access` (OpenID Connect Core 11: the provider grants a refresh token only then),
   * none for a provider with `pkce_replaces_client_secret` (the service).
   * A prompt given here is sent as is, and the provider may then issue no refresh token.
   */
  prompt?: string;
  loginHint?: string;
  /** Extra authorization request parameters (protocol parameters cannot be overridden). */
  extra?: Record<string, string>;
}

/**
 * Options of {@link BrowserClient.logout}.
 *
 * @example
 * ```ts
 * await client.logout({ returnTo: 'http://127.0.0.1:5173/' });
 * ```
 */
export interface LogoutOptions {
  /** Where the provider sends the user afterwards (registered post-logout URI). Default: `postLogoutRedirectUri`. */
  returnTo?: string;
  /** Go to the provider's logout page when it offers one. Default true. */
  redirect?: boolean;
}

/**
 * What a finished login gives back (`handleRedirectCallback`). Not to be confused with
 * `@oidc-rp/node`'s `CallbackResult`, which carries the tokens of a server-side login.
 *
 * @example
 * ```ts
 * const { appState, user } = await client.handleRedirectCallback();
 * ```
 */
export interface LoginResult {
  appState?: unknown;
  user?: IdTokenClaims;
}

/**
 * Options of {@link BrowserClient.getAccessToken}.
 *
 * @example
 * ```ts
 * const token = await client.getAccessToken({ rejected: refusedToken }); // after your API answered 401
 * ```
 */
export interface GetAccessTokenOptions {
  /** Refresh when the token expires within this many seconds. Default `refreshLeeway` (capped at half the token's lifetime). */
  minValidity?: number;
  /**
   * Refresh now, whatever the known expiry. When another tab already refreshed, its newer
   * token is returned without a second request.
   */
  forceRefresh?: boolean;
  /**
   * The access token your API just refused with 401 (its lifetime may be unknown: the
   * contract's code exchange states none): a different valid token is returned, refreshed
   * unless another call or tab renewed it already (then no second request is sent).
   */
  rejected?: string;
}

/**
 * A logged-in (or not) user of a single-page app. Create one per app, at module level.
 *
 * @example
 * ```ts
 * const client = createBrowserClient({ issuer, clientId: 'spa', redirectUri });
 * await client.init();
 * if (client.getSnapshot().status !== 'authenticated') await client.login();
 * ```
 */
export interface BrowserClient {
  /**
   * Finishes a login when the page is the callback, else restores the session from the token
   * storage; then the status is no longer `loading`. Idempotent: every call shares one run.
   *
   * @example
   * ```ts
   * const { status } = await client.init();
   * ```
   */
  init(): Promise<AuthSnapshot>;
  /**
   * Sends the user to the provider's login (or opens it in a popup and resolves once logged in).
   * Rejects with `popup_blocked` / `popup_closed` in popup mode.
   *
   * @example
   * ```ts
   * button.onclick = () => client.login({ appState: { returnTo: location.pathname } });
   * ```
   */
  login(options?: LoginOptions): Promise<void>;
  /**
   * Finishes the login the provider redirected back with (default: the current URL) and
   * removes `code` and `state` from the address bar. Idempotent for the same URL, including
   * concurrent calls (React StrictMode): every call gets the same result. Rejects with
   * `transaction_not_found` for a callback this tab did not start (e.g. an altered `state`).
   * A callback this tab already finished (the Back button, a reload) is harmless: it rejects
   * with `callback_replayed`, leaves the state alone and fires the `callbackReplayed` event,
   * never `error`.
   *
   * @example
   * ```ts
   * const { appState } = await client.handleRedirectCallback();
   * history.replaceState(null, '', (appState as { returnTo?: string })?.returnTo ?? '/');
   * ```
   */
  handleRedirectCallback(url?: string): Promise<LoginResult>;
  /**
   * True when `url` (default: the current URL) is the redirect URI carrying a login response.
   *
   * @example
   * ```ts
   * if (client.isRedirectCallback()) await client.handleRedirectCallback();
   * ```
   */
  isRedirectCallback(url?: string): boolean;
  /**
   * A valid access token, refreshed first when it expires within `minValidity` seconds
   * (default `refreshLeeway`, capped at half the token's lifetime), or at once with
   * `forceRefresh`. A token whose lifetime the provider did not state (the contract's code
   * exchange) is given the lifetime learned from this client's last refresh that stated one;
   * before any such refresh it is returned as is, and a 401 from your API is the signal:
   * call again with `rejected` set to the refused token (or use `authorizedFetch`, which does).
   * Throws `login_required` when there is no session.
   *
   * @example
   * ```ts
   * const token = await client.getAccessToken({ minValidity: 60 });
   * ```
   */
  getAccessToken(options?: GetAccessTokenOptions): Promise<string>;
  /**
   * The validated ID token claims of the logged-in user.
   *
   * @example
   * ```ts
   * const name = client.getUser()?.name;
   * ```
   */
  getUser(): IdTokenClaims | undefined;
  /**
   * Clears the local session (in every tab of the app, with the crossTab part), revokes the refresh token (with the revocation part), and goes
   * to the provider's logout page when it offers one.
   *
   * @example
   * ```ts
   * await client.logout({ returnTo: 'http://127.0.0.1:5173/' });
   * ```
   */
  logout(options?: LogoutOptions): Promise<void>;
  /**
   * Calls `listener` after every snapshot change; returns the unsubscribe.
   *
   * @example
   * ```ts
   * const state = useSyncExternalStore(client.subscribe, client.getSnapshot);
   * ```
   */
  subscribe(listener: () => void): () => void;
  /**
   * The current immutable snapshot; the same object until something changes.
   *
   * @example
   * ```ts
   * if (client.getSnapshot().status === 'error') showError(client.getSnapshot().error);
   * ```
   */
  getSnapshot(): AuthSnapshot;
  /**
   * Listens to an event; returns the unsubscribe. Details never contain tokens.
   *
   * @example
   * ```ts
   * const off = client.on('error', (error) => console.warn(error.code, error.message));
   * ```
   */
  on<E extends BrowserClientEventName>(event: E, handler: (detail: BrowserClientEvents[E]) => void): () => void;
  /**
   * The provider's metadata (discovered first with `discovery(issuer)`), for functions over the
   * client such as `getUserInfo(client)`. Holds no token.
   *
   * @example
   * ```ts
   * const { end_session_endpoint } = await client.getProvider();
   * ```
   */
  getProvider(): Promise<ProviderMetadata>;
  /** The client's network settings (the `http` option), for functions over the client. */
  readonly http: HttpOptions | undefined;
  /**
   * Tokens per API, with the `resources` part (else undefined): `authorizedFetch(client)` picks
   * the token of the API each URL belongs to with it. Never a refresh token.
   *
   * @example
   * ```ts
   * const token = await client.resources?.getAccessToken('https://api.example.com/');
   * ```
   */
  readonly resources?: BrowserResources | undefined;
  /**
   * The DPoP key the tokens are bound to, with the `dpop` part (else undefined): for functions
   * over the client (`authorizedFetch`, `getUserInfo` send `Authorization: DPoP` with it) and
   * for proofs of the app's own requests. Never a token.
   *
   * @example
   * ```ts
   * const response = await client.dpop?.request(await client.getAccessToken(), 'https://api.example.com/orders');
   * ```
   */
  readonly dpop: BrowserDpop | undefined;
}

