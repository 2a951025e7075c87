/** The options of `createBrowserClient`, their defaults and their checks. */

import { DEV } from './dev';
import {
  OidcError,
  buildCodeAuthorizationRequest,
  completeCodeAuthorization,
  systemClock,
  tryParseUrl,
  type Clock,
  type HttpOptions,
  type ProviderMetadata,
} from '@oidc-rp/core';
import type { Channel } from './channel';
import type { CrossTabPart } from './cross-tab';
import type { ImplicitFlowPart } from './implicit';
import type { Lock } from './lock';
import { browserNavigation, type Navigation } from './navigation';
import type { PopupLoginPart } from './popup';
import type { RevocationPart } from './revocation';
import { browserStorage, memoryStorage, type StorageAdapter } from './storage';

/**
 * The implicit flow: tokens come back in the URL fragment, no refresh token.
 *
 * @deprecated The service deprecates the implicit flow and strongly discourages it: tokens travel
 * in the URL and the session cannot be renewed without a new redirect. Use `'code'` (PKCE).
 *
 * @example
 * ```ts
 * // Only for providers that offer nothing else:
 * const responseType: ImplicitResponseType = 'id_token token';
 * ```
 */
export type ImplicitResponseType = 'id_token token';

/**
 * Where tokens are kept.
 * - `'memory'` (default): gone on reload and invisible to other tabs; the safest against XSS
 *   reading tokens at rest, at the price of a new login after a reload.
 * - `'sessionStorage'`: survives reloads of this tab; readable by any script on the page.
 * - `'indexedDB'`: shared by all tabs and kept after the browser closes; readable by any
 *   script on the page. Tabs then share one session and its refreshes: needs the `crossTab`
 *   part. (Not `localStorage`: Chromium caches it per tab, so a tab taking over the refresh
 *   can read a refresh token another tab already used; see `indexedDbStorage`.)
 * - a {@link StorageAdapter} of your own. If tabs share it, pass `crossTab`, and make sure a
 *   read in one tab sees what another tab wrote before it released the lock.
 *
 * @example
 * ```ts
 * const tokenStorage: TokenStorageOption = 'sessionStorage';
 * ```
 */
export type TokenStorageOption = 'memory' | 'sessionStorage' | 'indexedDB' | StorageAdapter;

/**
 * Fetches the provider's metadata for an issuer: core's `discover`, re-exported by this package.
 *
 * @example
 * ```ts
 * import { discover } from '@oidc-rp/browser';
 * const discovery: Discover = discover;
 * ```
 */
export type Discover = (issuer: string, http?: HttpOptions) => Promise<ProviderMetadata>;

/**
 * Options of {@link createBrowserClient}. Either `provider`, or `issuer` with `discover`, is required.
 * Popup login, the implicit flow, userinfo, discovery and cross-tab coordination are opt-in
 * parts: an app that does not pass them does not ship their code.
 *
 * @example
 * ```ts
 * const options: BrowserClientOptions = {
 *   issuer: 'http://127.0.0.1:4000/demo',
 *   clientId: 'spa',
 *   redirectUri: 'http://127.0.0.1:5173/callback',
 *   postLogoutRedirectUri: 'http://127.0.0.1:5173/',
 * };
 * ```
 */
export interface BrowserClientOptions {
  /** The provider's issuer; with `discover`, its metadata is fetched by OpenID Connect Discovery on first use. */
  issuer?: string;
  /** The provider's metadata, e.g. `serviceProvider(base)` (no discovery request, no discovery code). */
  provider?: ProviderMetadata;
  /** Opt-in part: discovery for `issuer` (pass `discover` from this package). */
  discover?: Discover;
  clientId: string;
  /** Must be registered with the provider; the page at this URL calls `init()` or `handleRedirectCallback()`. */
  redirectUri: string;
  /** Where the provider sends the user after logout (must be registered). */
  postLogoutRedirectUri?: string;
  /** Default `'openid profile email offline_access'` (`offline_access` asks for a refresh token). */
  scope?: string;
  /**
   * `'code'` (default): authorization code flow with PKCE.
   * `'id_token token'`: the deprecated implicit flow, see {@link ImplicitResponseType}; needs `implicitFlow`.
   */
  responseType?: 'code' | ImplicitResponseType;
  /** Opt-in part for `responseType: 'id_token token'` (pass `implicitFlow`). */
  implicitFlow?: ImplicitFlowPart;
  /** Opt-in part for `login({ popup: true })` (pass `popupLogin`). */
  popupLogin?: PopupLoginPart;
  /** Opt-in part that makes `logout()` revoke the refresh token (pass `revocation`). */
  revocation?: RevocationPart;
  /**
   * Opt-in part that makes the app's tabs act as one (pass `crossTab`): refreshes serialised
   * across tabs, shared tokens adopted, a logout ending every tab. Required for
   * `tokenStorage: 'indexedDB'`. Without it each tab is a session of its own.
   */
  crossTab?: CrossTabPart;
  /** Default `'memory'`; see {@link TokenStorageOption} for the trade-offs. */
  tokenStorage?: TokenStorageOption;
  /** Seconds before expiry from which `getAccessToken()` refreshes. Default 30. */
  refreshLeeway?: number;
  /** Network settings for calls to the provider (custom fetch, timeout). */
  http?: HttpOptions;
  /** Seconds of clock skew tolerated when validating ID tokens. Default 60. */
  clockTolerance?: number;
  /** Where login transactions wait for the callback. Default: sessionStorage. */
  transactionStorage?: StorageAdapter;
  /** With `crossTab`: serialises refreshes across tabs. Default: `webLock()` (Web Locks, in-tab fallback). */
  lock?: Lock;
  /** With `crossTab`: tells other tabs about logins, refreshes and logouts. Default: `broadcastChannel(…)`. */
  channel?: Channel;
  /** Location, history and popups. Default: {@link browserNavigation}. */
  navigate?: Navigation;
  /**
   * Current time in epoch seconds: the one clock of this client, used for token expiry, ID
   * token times and login transactions alike. Default: `systemClock` (`Date.now()`).
   */
  now?: Clock;
}

/** Options with defaults applied; the platform parts are created on first use (never on a server import). */
export interface ResolvedOptions {
  issuer: string;
  /** The provider's metadata: as given, or discovered once (a failed discovery is retried on the next call). */
  provider: () => Promise<ProviderMetadata>;
  clientId: string;
  redirectUri: string;
  /** `redirectUri`, parsed once. */
  redirectUrl: URL;
  postLogoutRedirectUri?: string | undefined;
  scope: string;
  responseType: 'code' | 'id_token token';
  /** The response comes in the fragment (implicit), not the query. */
  fragment: boolean;
  /** Core's request builder and callback completion for this flow. */
  request: ImplicitFlowPart['request'];
  complete: ImplicitFlowPart['complete'];
  popupLogin?: PopupLoginPart | undefined;
  revocation?: RevocationPart | undefined;
  crossTab?: CrossTabPart | undefined;
  refreshLeeway: number;
  now: Clock;
  /** What every call into core takes: the client, its network settings and its one clock. */
  core: { client: { clientId: string }; http: HttpOptions | undefined; clockTolerance: number | undefined; now: Clock };
  runtime: () => Platform;
}

/** The injected parts, once created. */
export interface Platform {
  tokens: StorageAdapter;
  transactions: StorageAdapter;
  /** Only with the crossTab part. */
  lock?: Lock | undefined;
  channel?: Channel | undefined;
  navigate: Navigation;
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
  const { clientId, redirectUri, provider, discover, responseType = 'code', tokenStorage = 'memory', refreshLeeway = 30 } = options;
  const issuer = provider?.issuer ?? options.issuer;
  if (typeof clientId !== 'string' || !clientId) invalid(DEV && 'clientId is required.');
  const redirectUrl = tryParseUrl(redirectUri) ?? invalid(DEV && 'redirectUri must be an absolute URL.');
  if (!issuer) invalid(DEV && 'Pass provider, or issuer with discover.');
  if (!provider && typeof discover !== 'function') {
    invalid(DEV && 'issuer alone needs the discovery part: pass discover, or provider: serviceProvider(issuer).');
  }
  if (responseType !== 'code' && responseType !== 'id_token token') invalid(DEV && 'responseType must be "code" or "id_token token".');
  if (responseType !== 'code' && !options.implicitFlow) invalid(DEV && 'responseType "id_token token" needs the implicitFlow part.');
  if (!(refreshLeeway >= 0)) invalid(DEV && 'refreshLeeway must be seconds >= 0.');
  if (typeof tokenStorage === 'string' && !/^(memory|sessionStorage|indexedDB)$/.test(tokenStorage)) {
    invalid(
      DEV &&
        ((tokenStorage as string) === 'localStorage'
          ? 'tokenStorage "localStorage" is not offered (tabs can read a used refresh token from it): use "indexedDB" with crossTab.'
          : 'tokenStorage must be memory, sessionStorage, indexedDB or an adapter.'),
    );
  }
  const { crossTab } = options;
  // Tabs sharing a rotating refresh token must not refresh side by side.
  if (!crossTab && (tokenStorage === 'indexedDB' || options.lock || options.channel)) {
    invalid(DEV && 'indexedDB tokens (and the lock and channel options) need the crossTab part: pass crossTab.');
  }

  const now = options.now ?? systemClock;
  let platform: Platform | undefined;
  let discovered: Promise<ProviderMetadata> | undefined;
  return {
    ...options, // clientId, redirectUri, postLogoutRedirectUri and the parts, as given
    issuer,
    provider: provider
      ? async () => provider
      : () =>
          (discovered ??= (discover as Discover)(issuer, options.http).catch((error: unknown) => {
            discovered = undefined; // the next call tries again
            throw error;
          })),
    redirectUrl,
    scope: options.scope ?? DEFAULT_SCOPE,
    responseType,
    fragment: responseType !== 'code',
    request: options.implicitFlow?.request ?? buildCodeAuthorizationRequest,
    complete: options.implicitFlow?.complete ?? completeCodeAuthorization,
    refreshLeeway,
    now,
    core: { client: { clientId }, http: options.http, clockTolerance: options.clockTolerance, now },
    runtime: () =>
      (platform ??= {
        tokens:
          typeof tokenStorage === 'object'
            ? tokenStorage
            : tokenStorage === 'sessionStorage'
              ? browserStorage(tokenStorage)
              : tokenStorage === 'memory'
                ? memoryStorage()
                : (crossTab as CrossTabPart).storage(),
        transactions: options.transactionStorage ?? browserStorage('sessionStorage'),
        lock: options.lock ?? crossTab?.lock(),
        channel: options.channel ?? crossTab?.channel(`oidc-rp:${issuer}:${clientId}`),
        navigate: options.navigate ?? browserNavigation(),
      }),
  };
}


function invalid(message: string | boolean): never {
  throw new OidcError('invalid_options', message);
}
