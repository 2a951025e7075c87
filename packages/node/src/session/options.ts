/** The options of {@link createSessionAuth}, checked once at creation. */

import { invalidOptions } from '@oidc-rp/core/internal';
import type { NodeClient, StartLoginOptions } from '../client-types';
import { checkSecrets } from '../secret-strength';
import type { BackchannelLogoutOptions } from './backchannel-logout';
import type { FrontchannelLogoutOptions } from './frontchannel-logout';
import type { SessionPages } from './pages';
import type { SessionStore } from './session-store';

/**
 * Settings of the session layer.
 *
 * @example
 * ```ts
 * const options: SessionAuthOptions = {
 *   client, // createNodeClient({ ..., redirectUri: 'https://app.example.com/auth/callback' })
 *   secret: process.env.SESSION_SECRET!, // >= 32 random characters, the same on every instance
 *   baseUrl: 'https://app.example.com',
 *   rollingDuration: 60 * 60, // signed out after an hour without a request
 *   absoluteDuration: 24 * 60 * 60, // and after a day whatever happens
 * };
 * ```
 */
export interface SessionAuthOptions {
  /** The client that logs users in; its `redirectUri` must point at `routes.callback`. */
  client: NodeClient;
  /**
   * Seals the session cookie (and store entries): at least 32 characters of random data
   * (`openssl rand -base64 32`), the same on every instance; guessable ones are refused. An
   * array rotates: the first seals, every one opens.
   */
  secret: string | string[];
  /**
   * Where the app is reached, e.g. `https://app.example.com`. Decides `Secure` and the
   * `__Host-` cookie prefix, and is the origin a logout POST must come from. Default: the origin
   * of each request's URL (set it behind a proxy, where that URL is the internal one).
   */
  baseUrl?: string;
  /**
   * Paths of the routes `handle()` answers. Defaults `/auth/login`, `/auth/callback`,
   * `/auth/logout`. `postLogout` (none by default) is where the provider sends the user back
   * after RP-initiated logout: register `{baseUrl}{postLogout}` as a post-logout redirect URI;
   * the logout then sends a `state`, which this route checks before sending the user on to
   * `postLogoutRedirect` (else a 400 page, `logout_state_mismatch`). `initiateLogin` (none by
   * default) is the third-party initiated login route (OIDC Core 4): register
   * `{baseUrl}{initiateLogin}` as the client's `initiate_login_uri`; a GET or POST there with
   * the client's issuer as `iss` starts a login with its `login_hint`, returning to the path of
   * its `target_link_uri` when that is on the app's origin (else a 400 page).
   */
  routes?: { login?: string; callback?: string; logout?: string; postLogout?: string; initiateLogin?: string };
  /** Base name of the session cookie(s). Default `oidc-rp.session` (`__Host-oidc-rp.session` over https). */
  cookieName?: string;
  /** Seconds without a request after which the session ends; `false`: only `absoluteDuration` counts. Default 86 400 (a day). */
  rollingDuration?: number | false;
  /** Seconds after the login at which the session ends, however active. Default 604 800 (a week). */
  absoluteDuration?: number;
  /** Seconds before the access token's expiry at which `getSession` refreshes it. Default 60. */
  refreshLeeway?: number;
  /**
   * Seconds an access token is taken to live when the provider does not say (this service's
   * code exchange sends no `expires_in`). Default 300: such a token is refreshed after five
   * minutes, and from then on the provider's `expires_in` counts.
   */
  unknownAccessTokenLifetime?: number;
  /** Keep sessions on the server (large token sets, revocation); the cookie then holds a sealed id. Default: none, the session is sealed in the cookie. */
  store?: SessionStore;
  /**
   * Cookie mode (no `store`): where the newest tokens of each session are recorded when it is
   * refreshed, so that a stale cookie (an older copy, a request that was in flight) takes them
   * instead of spending a used refresh token, on every instance. A `RedisSessionStore` (its own
   * `keyPrefix`) also makes the refresh of a session single across the fleet. Default: none,
   * each process remembers its own refreshes (see "Sessions across a fleet" in the README).
   */
  refreshStore?: SessionStore;
  /** Options of every login (e.g. `{ scope: 'openid profile offline_access' }`). */
  loginOptions?: Omit<StartLoginOptions, 'appState'>;
  /** After logout, also end the provider's session (RP-initiated logout) when it offers one. Default true. */
  idpLogout?: boolean;
  /**
   * At logout, revoke the session's refresh token (RFC 7009) when the provider has a
   * `revocation_endpoint`, so a copy of the cookie taken before logout gets no new tokens.
   * A failed revocation does not stop the logout. Default true.
   */
  revokeOnLogout?: boolean;
  /** Path (or absolute URL on `baseUrl`) the user lands on after logout; with `idpLogout`, register it as a post-logout redirect URI. Default `/`. */
  postLogoutRedirect?: string;
  /**
   * Replaces the pages a person sees: `error` (a sign-in that failed or was cancelled) and
   * `signedOut` (the logout route without a session). Default: small styled pages that say
   * what happened, with "Try again" (keeping `returnTo`) and "Home" links.
   */
  pages?: SessionPages;
  /**
   * Back-channel logout (OpenID Connect Back-Channel Logout 1.0): a route the provider posts
   * logout tokens to, ending the matching sessions. Needs a store (the session `store`, or
   * `backchannelLogout.store` for cookie-only sessions). Default: off.
   */
  backchannelLogout?: BackchannelLogoutOptions;
  /**
   * Front-channel logout (OpenID Connect Front-Channel Logout 1.0): a page the provider loads in
   * an iframe at logout, ending the sessions of the `sid` it names (`iss` must be the issuer).
   * Needs `backchannelLogout` (its sid index). Default: off. Prefer back-channel logout: browsers
   * that block third-party cookies still load the page, but see the README for the limits.
   */
  frontchannelLogout?: FrontchannelLogoutOptions;
}

/** Options with defaults applied. Internal. */
export interface ResolvedSessionOptions {
  client: NodeClient;
  secrets: string[];
  baseUrl: URL | undefined;
  routes: { login: string; callback: string; logout: string; postLogout: string | undefined; initiateLogin: string | undefined };
  cookieName: string;
  rollingDuration: number | false;
  absoluteDuration: number;
  refreshLeeway: number;
  unknownAccessTokenLifetime: number;
  store: SessionStore | undefined;
  refreshStore: SessionStore | undefined;
  loginOptions: Omit<StartLoginOptions, 'appState'>;
  idpLogout: boolean;
  revokeOnLogout: boolean;
  postLogoutRedirect: string;
  pages: SessionPages;
}

export function resolveSessionOptions(options: SessionAuthOptions): ResolvedSessionOptions {
  if (typeof options !== 'object' || options === null) throw invalidOptions('createSessionAuth needs an options object.');
  const { client } = options;
  if (typeof client !== 'object' || client === null || typeof client.handleCallback !== 'function') {
    throw invalidOptions('`client` must be the client from createNodeClient(), with a redirectUri to your callback route.');
  }
  const secrets = checkSecrets(options.secret, 'secret', 'the session secret');

  let baseUrl: URL | undefined;
  if (options.baseUrl !== undefined) {
    try {
      baseUrl = new URL(options.baseUrl);
    } catch {
      throw invalidOptions('`baseUrl` must be the absolute URL the app is reached at, e.g. https://app.example.com.');
    }
    if (baseUrl.protocol !== 'https:' && baseUrl.protocol !== 'http:') throw invalidOptions('`baseUrl` must be an http(s) URL.');
  }

  const routes = {
    login: path(options.routes?.login, '/auth/login', 'routes.login'),
    callback: path(options.routes?.callback, '/auth/callback', 'routes.callback'),
    logout: path(options.routes?.logout, '/auth/logout', 'routes.logout'),
    postLogout: options.routes?.postLogout === undefined ? undefined : path(options.routes.postLogout, '', 'routes.postLogout'),
    initiateLogin: options.routes?.initiateLogin === undefined ? undefined : path(options.routes.initiateLogin, '', 'routes.initiateLogin'),
  };
  const cookieName = options.cookieName ?? 'oidc-rp.session';
  if (typeof cookieName !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(cookieName)) {
    throw invalidOptions('`cookieName` must be 1-64 characters of letters, digits, ".", "_" and "-".');
  }
  const absoluteDuration = seconds(options.absoluteDuration, 604_800, '`absoluteDuration`');
  const rollingDuration = options.rollingDuration === false ? false : seconds(options.rollingDuration, 86_400, '`rollingDuration`');
  const refreshLeeway = options.refreshLeeway ?? 60;
  if (typeof refreshLeeway !== 'number' || !Number.isFinite(refreshLeeway) || refreshLeeway < 0) {
    throw invalidOptions('`refreshLeeway` must be a number of seconds >= 0.');
  }
  const store = options.store;
  if (store !== undefined && (typeof store?.get !== 'function' || typeof store.set !== 'function' || typeof store.delete !== 'function')) {
    throw invalidOptions('`store` must implement get(id), set(id, value, ttlSeconds) and delete(id).');
  }
  const refreshStore = options.refreshStore;
  if (refreshStore !== undefined) {
    if (typeof refreshStore?.get !== 'function' || typeof refreshStore.set !== 'function' || typeof refreshStore.delete !== 'function') {
      throw invalidOptions('`refreshStore` must implement get(id), set(id, value, ttlSeconds) and delete(id), like a session store.');
    }
    if (store !== undefined) throw invalidOptions('`refreshStore` is for cookie mode: with `store`, the store itself records refreshes (leave refreshStore out).');
  }
  const postLogoutRedirect = options.postLogoutRedirect ?? '/';
  if (typeof postLogoutRedirect !== 'string' || !(postLogoutRedirect.startsWith('/') || /^https?:\/\//.test(postLogoutRedirect))) {
    throw invalidOptions('`postLogoutRedirect` must be a path such as "/" or an absolute http(s) URL of the app.');
  }
  const pages = options.pages ?? {};
  if (typeof pages !== 'object' || pages === null) throw invalidOptions('`pages` must be an object: { error?(info), signedOut?(info) }.');
  for (const name of ['error', 'signedOut'] as const) {
    if (pages[name] !== undefined && typeof pages[name] !== 'function') throw invalidOptions(`\`pages.${name}\` must be a function returning a Response or an HTML string.`);
  }
  if ('onCallbackError' in options) throw invalidOptions('`onCallbackError` was replaced by `pages: { error(info) }`, which receives the error as `info.cause`.');

  return {
    client,
    secrets,
    baseUrl,
    routes,
    cookieName,
    rollingDuration,
    absoluteDuration,
    refreshLeeway,
    unknownAccessTokenLifetime: seconds(options.unknownAccessTokenLifetime, 300, '`unknownAccessTokenLifetime`'),
    store,
    refreshStore,
    loginOptions: options.loginOptions ?? {},
    idpLogout: options.idpLogout ?? true,
    revokeOnLogout: options.revokeOnLogout ?? true,
    postLogoutRedirect,
    pages,
  };
}

function path(value: string | undefined, fallback: string, what: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\/[^?#\s]*$/.test(value)) throw invalidOptions(`\`${what}\` must be a path starting with "/", without query or fragment.`);
  return value;
}

function seconds(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1) throw invalidOptions(`${what} must be a number of seconds >= 1.`);
  return Math.floor(value);
}
