/** The options of `createBrowserClient`, their defaults and their checks. */

import { DEV } from './dev';
import {
  OidcError,
  systemClock,
  type ClientConfig,
  type Clock,
  type DiscoveredProvider,
  type DpopHandle,
  type HttpOptions,
  type ProviderMetadata,
} from '@oidc-rp/core';
import {
  buildCodeAuthorizationRequest,
  checkRedirectUri,
  completeCodeAuthorization,
  invalidOptions,
} from '@oidc-rp/core/internal';
import type { CrossTab, CrossTabPart } from './cross-tab';
import type { DpopPart } from './dpop';
import type { ImplicitFlow, ImplicitFlowPart } from './implicit';
import type { ParPart } from './par';
import type { ResourcesPart } from './resources';
import type { Channel } from './channel';
import type { Lock } from './lock';
import { browserNavigation, type Navigation } from './navigation';
import type { PopupLogin, PopupLoginPart } from './popup';
import type { Revocation, RevocationPart } from './revocation';
import type { LogoutState, LogoutStatePart } from './logout-state';
import { browserStorage, memoryStorage, type StorageAdapter } from './storage';

/**
 * Where tokens are kept.
 * - `'memory'` (default): gone on reload and invisible to other tabs; the safest against XSS
 *   reading tokens at rest, at the price of a new login after a reload.
 * - `'sessionStorage'`: survives reloads of this tab; readable by any script on the page.
 * - a {@link StorageAdapter} of your own, for this tab alone.
 * Tokens shared by every tab (IndexedDB) come with the `crossTab` part:
 * `crossTab({ storage: 'indexedDB' })`, which also makes the tabs refresh one at a time.
 *
 * @example
 * ```ts
 * const tokenStorage: TokenStorageOption = 'sessionStorage';
 * ```
 */
export type TokenStorageOption = 'memory' | 'sessionStorage' | StorageAdapter;

/**
 * Options of {@link createBrowserClient}. Popup login, the implicit flow, revocation at logout,
 * discovery and cross-tab coordination are opt-in parts, each one value that turns its feature
 * on: an app that does not pass them does not ship their code. Options other than these are
 * refused by type, and never sent to the provider.
 *
 * @example
 * ```ts
 * const options: BrowserClientOptions = {
 *   provider: discovery('http://127.0.0.1:4000/demo'),
 *   clientId: 'spa',
 *   redirectUri: 'http://127.0.0.1:5173/callback',
 *   postLogoutRedirectUri: 'http://127.0.0.1:5173/',
 * };
 * ```
 */
export interface BrowserClientOptions {
  /**
   * The provider: its metadata (e.g. `serviceProvider(base)`: no discovery request, no
   * discovery code), or `discovery(issuer)` to fetch it by OpenID Connect Discovery on first use.
   */
  provider: ProviderMetadata | DiscoveredProvider;
  clientId: string;
  /**
   * Must be registered with the provider; the page at this URL calls `init()` or
   * `handleRedirectCallback()`. Open the app at this URL's origin: `login()` refuses to start
   * from another origin (`invalid_options`), whose storage the callback would not see.
   */
  redirectUri: string;
  /** Where the provider sends the user after logout (must be registered). */
  postLogoutRedirectUri?: string;
  /**
   * Default `'openid profile email offline_access'`. `offline_access` asks for a refresh token;
   * the request then carries `prompt=consent`, as OpenID Connect Core 11 requires, except to a
   * provider with `pkce_replaces_client_secret` (the service).
   */
  scope?: string;
  /**
   * Opt-in part: a front-channel flow instead of the code flow, answered in the URL fragment:
   * `implicitFlow` (`id_token token`), `idTokenFlow` (`id_token`) or `hybridFlow(type)`.
   */
  implicitFlow?: ImplicitFlowPart;
  /** Opt-in part for `login({ popup: true })` (pass `popupLogin`). */
  popupLogin?: PopupLoginPart;
  /** Opt-in part that makes `logout()` revoke the refresh token (pass `revocation`). */
  revocation?: RevocationPart;
  /**
   * Opt-in part that makes the app's tabs act as one (pass `crossTab()`, or
   * `crossTab({ storage: 'indexedDB' })` for one session shared by every tab): refreshes
   * serialised across tabs, a logout ending every tab. Without it each tab is a session of its own.
   */
  crossTab?: CrossTabPart;
  /**
   * Opt-in part that binds the tokens to a non-extractable DPoP key kept in IndexedDB (pass
   * `dpop()`): logins, code exchange and refreshes carry DPoP proofs, and `authorizedFetch`
   * sends `Authorization: DPoP` with a proof. With `crossTab({ storage: 'indexedDB' })` it is the
   * setup for a session that survives reloads.
   */
  dpop?: DpopPart;
  /**
   * Opt-in part that pushes every login's parameters to the provider first (RFC 9126, pass
   * `par()`): the authorize URL then carries only `client_id` and `request_uri`. The provider
   * must offer a `pushed_authorization_request_endpoint`.
   */
  par?: ParPart;
  /**
   * Opt-in part for your APIs' tokens (RFC 8707, pass `resourceIndicators({ resources })`): every
   * login asks for them, `client.resources.getAccessToken(resource)` gets a token for one of them
   * without a new login, and `authorizedFetch(client)` sends each URL the token of its API only.
   */
  resources?: ResourcesPart;
  /**
   * Opt-in part that sends a `state` with RP-initiated logout (pass `logoutState()`, and call its
   * `handleLogoutCallback()` on the page at `postLogoutRedirectUri` to check it came back).
   */
  logoutState?: LogoutStatePart;
  /** Where this tab keeps its tokens. Default `'memory'`; see {@link TokenStorageOption}. Not with a shared `crossTab` storage. */
  tokenStorage?: TokenStorageOption;
  /** Seconds before expiry from which `getAccessToken()` refreshes. Default 30. */
  refreshLeeway?: number;
  /** Network settings for calls to the provider (custom fetch, timeout). */
  http?: HttpOptions;
  /** Seconds of clock skew tolerated when validating ID tokens. Default 60. */
  clockTolerance?: number;
  /**
   * The JWS algorithm the client is registered for (its `id_token_signed_response_alg`, e.g.
   * `'RS256'`): an ID token signed with any other is refused (`id_token_alg_not_allowed`), even
   * by a key the provider publishes. Default: unset, any asymmetric algorithm the provider lists.
   * Checked with the first ID token (`invalid_options` when it is not one asymmetric algorithm).
   */
  signingAlgorithm?: string;
  /** Where login transactions wait for the callback. Default: sessionStorage. */
  transactionStorage?: StorageAdapter;
  /** Location, history and popups. Default: {@link browserNavigation}. */
  navigate?: Navigation;
  /**
   * Current time in epoch seconds: the one clock of this client, used for token expiry, ID
   * token times and login transactions alike. Default: `systemClock` (`Date.now()`).
   */
  now?: Clock;
}

/**
 * Options with defaults applied; the platform parts are created on first use (never on a
 * server import). Internal: names ending in `_` are shortened by the build.
 */
export interface ResolvedOptions {
  issuer: string;
  clientId: string;
  redirectUri: string;
  postLogoutRedirectUri: string | undefined;
  scope: string;
  /** The provider's metadata: as given, or discovered once (a failed discovery is retried on the next call). */
  provider_: () => Promise<ProviderMetadata>;
  /** `redirectUri`, parsed once. */
  redirectUrl_: URL;
  /** The response comes in the fragment (implicit), not the query. */
  fragment_: boolean;
  /** Core's request builder and callback completion for this flow (the dpop part replaces them with versions that add its key). */
  request_: ImplicitFlow['request'];
  complete_: ImplicitFlow['complete'];
  popupLogin_: PopupLogin | undefined;
  revocation_: Revocation | undefined;
  logoutState_: LogoutState | undefined;
  crossTab_: CrossTab | undefined;
  refreshLeeway: number;
  now: Clock;
  http: HttpOptions | undefined;
  /**
   * What every call into core takes: the client, its network settings and its one clock; with
   * the dpop part, the handle of the key of the stored session, set whenever the session is
   * read (so a refresh, which reads it first, always carries a proof).
   */
  core_: { client: ClientConfig; http: HttpOptions | undefined; clockTolerance: number | undefined; now: Clock; dpop?: DpopHandle | undefined };
  runtime_: () => Platform;
}

/** The injected parts, once created. */
export interface Platform {
  tokens_: StorageAdapter;
  transactions_: StorageAdapter;
  /** Only with the crossTab part. */
  lock_: Lock | undefined;
  channel_: Channel | undefined;
  navigate_: Navigation;
}

const DEFAULT_SCOPE = 'openid profile email offline_access';

/** Checks `options` and applies the defaults. Throws OidcError `client_secret_in_browser` or `invalid_options`. */
export function resolveOptions(options: BrowserClientOptions): ResolvedOptions {
  if ('clientSecret' in options || 'client_secret' in options) {
    throw new OidcError(
      'client_secret_in_browser',
      DEV && 'Anyone can read a client secret in a browser: remove it and register a public client (PKCE protects the login).',
    );
  }
  const { clientId, redirectUri, provider, tokenStorage = 'memory', refreshLeeway = 30, http } = options;
  if (typeof clientId !== 'string' || !clientId) invalid(DEV && 'clientId is required.');
  const redirectUrl = checkRedirectUri(redirectUri);
  const issuer = provider?.issuer;
  if (!issuer) invalid(DEV && 'provider is required: serviceProvider(base), discovery(issuer) or metadata with an issuer.');
  if (!(refreshLeeway >= 0)) invalid(DEV && 'refreshLeeway must be seconds >= 0.');
  if (typeof tokenStorage === 'string' && tokenStorage !== 'memory' && tokenStorage !== 'sessionStorage') {
    invalid(
      DEV &&
        ((tokenStorage as string) === 'localStorage' || (tokenStorage as string) === 'indexedDB'
          ? `tokenStorage "${tokenStorage}" is not offered: tokens shared by tabs need crossTab({ storage: 'indexedDB' }).`
          : 'tokenStorage must be memory, sessionStorage or an adapter.'),
    );
  }
  const crossTab = options.crossTab as unknown as CrossTab | undefined;
  if (crossTab?.storage && options.tokenStorage !== undefined) {
    invalid(DEV && 'tokenStorage and crossTab({ storage }) both say where tokens go: keep one.');
  }
  const implicit = options.implicitFlow as unknown as ImplicitFlow | undefined;

  const now = options.now ?? systemClock;
  let platform: Platform | undefined;
  // Only with discovery(issuer) is there anything to discover.
  const metadata = (provider as DiscoveredProvider).metadata;
  return {
    issuer,
    clientId,
    redirectUri,
    postLogoutRedirectUri: options.postLogoutRedirectUri,
    scope: options.scope ?? DEFAULT_SCOPE,
    provider_: metadata ? () => metadata(http) : async () => provider as ProviderMetadata,
    redirectUrl_: redirectUrl,
    fragment_: !!implicit,
    request_: implicit?.request ?? buildCodeAuthorizationRequest,
    complete_: implicit?.complete ?? completeCodeAuthorization,
    popupLogin_: options.popupLogin as unknown as PopupLogin | undefined,
    revocation_: options.revocation as unknown as Revocation | undefined,
    logoutState_: options.logoutState as unknown as LogoutState | undefined,
    crossTab_: crossTab,
    refreshLeeway,
    now,
    http,
    core_: { client: { clientId, signingAlgorithm: options.signingAlgorithm }, http, clockTolerance: options.clockTolerance, now },
    runtime_: () =>
      (platform ??= {
        tokens_: crossTab?.storage
          ? crossTab.storage()
          : typeof tokenStorage === 'object'
            ? tokenStorage
            : tokenStorage === 'sessionStorage'
              ? browserStorage(tokenStorage)
              : memoryStorage(),
        transactions_: options.transactionStorage ?? browserStorage('sessionStorage'),
        lock_: crossTab?.lock(),
        channel_: crossTab?.channel(`oidc-rp:${issuer}:${clientId}`),
        navigate_: options.navigate ?? browserNavigation(),
      }),
  };
}

function invalid(message?: string): never {
  throw invalidOptions(message);
}
