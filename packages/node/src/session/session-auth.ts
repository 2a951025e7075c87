/**
 * `createSessionAuth`: server-side sessions on web-standard `Request` / `Response`, for
 * apps that log users in with a {@link NodeClient}: login, callback and logout routes, a
 * sealed rolling session cookie (or a store), `getSession` with automatic refresh, and
 * `requiresAuth` for protected routes. One implementation for Hono, Next.js route handlers
 * and proxy, and Express or Fastify through `toWebRequest` / `sendWebResponse`.
 *
 * Logout is CSRF-safe: it takes a POST only, carrying the session's `csrfToken`, from the
 * app's own origin (`Origin` and `Sec-Fetch-Site` are checked when the browser sends them);
 * the session cookie is also `SameSite=Lax`, so no other site's form sends it along.
 */

import { type IdTokenClaims, OidcError, TokenEndpointError, isOidcError } from '@oidc-rp/core';
import type { StartLoginOptions } from '../client';
import { nowSeconds } from '../sealing';
import { type CookieShape, applyToCookieHeader, cookieShape, parseCookies } from './cookies';
import { type SessionAuthOptions, resolveSessionOptions } from './options';
import { callbackErrorPage, logoutConfirmPage, refusedPage, unavailablePage } from './pages';
import { createRefresher } from './refresh';
import { type SignedOutReason, createSessionIo } from './session-io';
import { type Session, type SessionRecord, publicSession, recordFromTokens, refreshedRecord } from './session-record';

/**
 * What a session read returns. Send `cookies` with your response (they roll the expiry, carry
 * refreshed tokens, or clear a dead session); `withSession` and `requiresAuth` do it for you.
 *
 * @example
 * ```ts
 * const { session, reason, cookies } = await auth.getSession(request);
 * const response = Response.json(session ? { user: session.user } : { signedOut: reason });
 * return auth.applyCookies(response, cookies);
 * ```
 */
export interface SessionResult<Claims extends object = Record<string, unknown>> {
  /** The session, or undefined when signed out. */
  session?: Session<Claims>;
  /** Why there is no session. */
  reason?: SignedOutReason;
  /**
   * A refresh that failed: with `reason: 'refresh_failed'` the provider refused it (signed out);
   * beside a session, it could not be reached (the session stays, its access token is stale).
   */
  error?: OidcError;
  /** `Set-Cookie` header values to send back; empty when nothing changed. */
  cookies: string[];
  /** The request's `Cookie` header with `cookies` applied: forward it downstream (Next.js proxy). */
  cookieHeader: string;
}

/**
 * Options of a session read.
 *
 * @example
 * ```ts
 * // A Next.js server component cannot set cookies: read only, the proxy refreshes.
 * const { session } = await auth.getSession(await headers(), { refresh: false });
 * ```
 */
export interface GetSessionOptions {
  /** Refresh an expiring access token and roll the expiry. Default true; false reads only (no `cookies`). */
  refresh?: boolean;
  /** Refresh when the access token expires within this many seconds. Default the `refreshLeeway` option. */
  minValidity?: number;
  /** Refresh now, whatever the expiry (e.g. an API answered 401 to the current token). */
  forceRefresh?: boolean;
}

/**
 * What `getAccessToken` returns.
 *
 * @example
 * ```ts
 * const { accessToken, cookies } = await auth.getAccessToken(request);
 * ```
 */
export interface AccessTokenResult {
  accessToken: string;
  /** Epoch seconds, when known. */
  expiresAt?: number;
  /** `Set-Cookie` values to send back (the session with the refreshed token). */
  cookies: string[];
}

/** A request, or only its headers (e.g. Next.js `headers()` in a server component). */
export type SessionInput = Request | { get(name: string): string | null };

/**
 * How `requiresAuth` answers a signed-out request.
 *
 * @example
 * ```ts
 * auth.requiresAuth(handler, { unauthenticated: 'status' }); // API route: 401 JSON, never a redirect
 * ```
 */
export interface RequiresAuthOptions {
  /**
   * `'redirect'`: to the login route with `returnTo` (default for GET requests that accept HTML);
   * `'status'`: 401 with `{ error: 'login_required', reason }` (default otherwise).
   */
  unauthenticated?: 'redirect' | 'status';
}

/**
 * The session layer. Create it with {@link createSessionAuth}.
 *
 * @example
 * ```ts
 * app.all('/auth/*', async (c) => (await auth.handle(c.req.raw)) ?? c.notFound());
 * app.get('/me', (c) => auth.requiresAuth((request, session) => Response.json(session.user))(c.req.raw));
 * ```
 */
export interface SessionAuth<Claims extends object = Record<string, unknown>> {
  /** Answers the login, callback and logout routes; resolves undefined for every other path. */
  handle(request: Request): Promise<Response | undefined>;
  /** Login route: redirects to the provider; `?returnTo=/path` (a local path) is where the user lands after. */
  login(request: Request, options?: Omit<StartLoginOptions, 'appState'> & { returnTo?: string }): Promise<Response>;
  /** Callback route: finishes the login, starts the session, redirects to `returnTo`. */
  callback(request: Request): Promise<Response>;
  /** Logout route: POST with the csrf token ends the session (and the provider's); GET shows a confirmation form. */
  logout(request: Request): Promise<Response>;
  /** The session of a request, refreshed and rolled unless `refresh: false`. Never throws for a bad cookie: see `reason`. */
  getSession(input: SessionInput, options?: GetSessionOptions): Promise<SessionResult<Claims>>;
  /** The session's access token, refreshed when it expires within `minValidity`. Rejects `login_required` when signed out. */
  getAccessToken(input: SessionInput, options?: Omit<GetSessionOptions, 'refresh'>): Promise<AccessTokenResult>;
  /** Wraps a handler that needs a session; signed-out requests get a redirect to login or a 401. */
  requiresAuth(
    handler: (request: Request, session: Session<Claims>) => Response | Promise<Response>,
    options?: RequiresAuthOptions,
  ): (request: Request) => Promise<Response>;
  /** Wraps a handler that works with or without a session, and sends the session's cookies. */
  withSession(
    handler: (request: Request, session: Session<Claims> | undefined) => Response | Promise<Response>,
  ): (request: Request) => Promise<Response>;
  /** A copy of the response with the `Set-Cookie` values added (the response itself when there are none). */
  applyCookies(response: Response, cookies: string[]): Response;
  /** The login route's URL for a return path, e.g. `/auth/login?returnTo=%2Forders`. */
  loginUrl(returnTo?: string): string;
  /** Ends a session on the back end (needs a store): its next request is signed out with reason `revoked`. */
  revokeSession(sessionId: string): Promise<void>;
  /**
   * Whether a state-changing request (your own POST forms) is the app's own: same origin, and
   * carrying the session's csrf token (form field `csrf_token` or header `x-csrf-token`). Reads a form body.
   */
  verifyCsrf(request: Request, session: Session<Claims>): Promise<boolean>;
}

/**
 * Creates the session layer for a client.
 *
 * @example
 * ```ts
 * import { createNodeClient, createSessionAuth } from '@oidc-rp/node';
 *
 * const client = createNodeClient({
 *   issuer: 'http://127.0.0.1:4000/demo',
 *   clientId: 'web',
 *   clientSecret: 'web-secret',
 *   redirectUri: 'http://127.0.0.1:3000/auth/callback',
 *   scope: 'openid profile email offline_access',
 *   cookieSecret: process.env.COOKIE_SECRET!,
 * });
 * const auth = createSessionAuth({ client, secret: process.env.SESSION_SECRET!, baseUrl: 'http://127.0.0.1:3000' });
 *
 * export default {
 *   async fetch(request: Request) {
 *     const response = await auth.handle(request); // /auth/login, /auth/callback, /auth/logout
 *     if (response) return response;
 *     return auth.withSession((_request, session) => new Response(`Hello ${session?.user.name ?? 'stranger'}`))(request);
 *   },
 * };
 * ```
 */
export function createSessionAuth<Claims extends object = Record<string, unknown>>(options: SessionAuthOptions): SessionAuth<Claims> {
  const o = resolveSessionOptions(options);
  const io = createSessionIo(o);
  const refresh = createRefresher(o.client);
  // Re-seal a rolling session at most this often, not on every request.
  const rollAfter = o.rollingDuration === false ? Number.POSITIVE_INFINITY : Math.min(60, Math.floor(o.rollingDuration / 10));

  function originOf(request: Request): URL {
    return o.baseUrl ?? new URL(request.url);
  }

  function shapeOf(input: SessionInput, pairs: Array<[string, string]>): CookieShape {
    if (o.baseUrl || input instanceof Request) return cookieShape(o.cookieName, originOf(input as Request).protocol === 'https:');
    // Headers alone (a server component) and no baseUrl: the cookie's own name tells.
    const secure = cookieShape(o.cookieName, true);
    return pairs.some(([name]) => name === secure.name || name.startsWith(`${secure.name}.`)) ? secure : cookieShape(o.cookieName, false);
  }

  function headersOf(input: SessionInput): { get(name: string): string | null } {
    return input instanceof Request ? input.headers : input;
  }

  function signedOut(reason: SignedOutReason, pairs: Array<[string, string]>, cookies: string[], error?: OidcError): SessionResult<Claims> {
    return { reason, cookies, cookieHeader: applyToCookieHeader(pairs, cookies), ...(error ? { error } : {}) };
  }

  async function getSession(input: SessionInput, readOptions: GetSessionOptions = {}): Promise<SessionResult<Claims>> {
    const pairs = parseCookies(headersOf(input).get('cookie'));
    const shape = shapeOf(input, pairs);
    const read = await io.read(pairs, shape);
    const writable = readOptions.refresh !== false;
    if ('reason' in read) {
      return signedOut(read.reason, pairs, read.reason === 'no_session' || !writable ? [] : await io.destroy(undefined, pairs, shape));
    }
    let record: SessionRecord = read.record;
    let changed = false;
    let error: OidcError | undefined;
    const now = nowSeconds();
    const leeway = readOptions.minValidity ?? o.refreshLeeway;
    const due = readOptions.forceRefresh === true || (record.accessTokenExpiresAt !== undefined && now >= record.accessTokenExpiresAt - leeway);
    if (writable && record.refreshToken && due) {
      try {
        const tokens = await refresh(record.refreshToken, record.claims.sub);
        record = refreshedRecord(record, tokens, nowSeconds(), o.unknownAccessTokenLifetime);
        changed = true;
      } catch (failure) {
        const oidcError = toOidcError(failure);
        if (refusedByProvider(oidcError)) return signedOut('refresh_failed', pairs, await io.destroy(record, pairs, shape), oidcError);
        error = oidcError; // the provider could not be reached: keep the session, try again next request
      }
    }
    if (!writable || (!changed && now - read.issuedAt < rollAfter)) {
      return { session: publicSession<Claims>(record, read.expiresAt), cookies: [], cookieHeader: applyToCookieHeader(pairs, []), ...(error ? { error } : {}) };
    }
    const written = await io.write(record, pairs, shape);
    return {
      session: publicSession<Claims>(record, written.expiresAt),
      cookies: written.cookies,
      cookieHeader: applyToCookieHeader(pairs, written.cookies),
      ...(error ? { error } : {}),
    };
  }

  function applyCookies(response: Response, cookies: string[]): Response {
    if (cookies.length === 0) return response;
    // Always a copy: some responses have immutable headers (Response.redirect, fetch results),
    // and frameworks may hand out responses whose headers they build later.
    const headers = new Headers(response.headers);
    for (const cookie of cookies) headers.append('set-cookie', cookie);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }

  function loginUrl(returnTo?: string): string {
    const path = safeReturnTo(returnTo);
    return path === undefined ? o.routes.login : `${o.routes.login}?returnTo=${encodeURIComponent(path)}`;
  }

  const auth: SessionAuth<Claims> = {
    async handle(request) {
      const { pathname } = new URL(request.url);
      if (pathname === o.routes.login && (request.method === 'GET' || request.method === 'HEAD')) return auth.login(request);
      if (pathname === o.routes.callback) return auth.callback(request);
      if (pathname === o.routes.logout) return auth.logout(request);
      return undefined;
    },

    async login(request, loginOptions = {}) {
      const { returnTo: given, ...rest } = loginOptions;
      const returnTo = safeReturnTo(given ?? new URL(request.url).searchParams.get('returnTo') ?? undefined) ?? '/';
      return o.client.handleLogin(request, { ...o.loginOptions, ...rest, appState: { returnTo } });
    },

    async callback(request) {
      const pairs = parseCookies(request.headers.get('cookie'));
      const shape = shapeOf(request, pairs);
      try {
        const { tokens, appState, clearCookie } = await o.client.handleCallback(request);
        if (!tokens.claims) {
          throw new OidcError('id_token_missing', 'The login returned no ID token: the login scope must include "openid".');
        }
        // A new login replaces any earlier session of this browser (no session fixation).
        const previous = await io.read(pairs, shape).catch(() => undefined);
        if (previous && 'record' in previous) await io.storeDelete(previous.record.id);
        const record = recordFromTokens(
          { ...tokens, claims: tokens.claims as IdTokenClaims },
          nowSeconds(),
          o.absoluteDuration,
          o.unknownAccessTokenLifetime,
        );
        const { cookies } = await io.write(record, pairs, shape);
        const returnTo = safeReturnTo((appState as { returnTo?: unknown } | undefined)?.returnTo) ?? '/';
        const headers = new Headers({ location: returnTo, 'cache-control': 'no-store' });
        headers.append('set-cookie', clearCookie);
        for (const cookie of cookies) headers.append('set-cookie', cookie);
        // 303: the browser follows with a GET, so a reload does not post the response again.
        return new Response(null, { status: 303, headers });
      } catch (error) {
        if (!isOidcError(error)) throw error;
        if (error.code === 'session_store_unavailable') return unavailablePage(error.message);
        if (o.onCallbackError) return o.onCallbackError(error, request);
        return callbackErrorPage(error.code, error.message, o.routes.login);
      }
    },

    async logout(request) {
      const pairs = parseCookies(request.headers.get('cookie'));
      const shape = shapeOf(request, pairs);
      const read = await io.read(pairs, shape);
      const record = 'record' in read ? read.record : undefined;
      const home = new URL(o.postLogoutRedirect, originOf(request)).href;
      if (request.method === 'GET' || request.method === 'HEAD') {
        // A link or a cross-site image must not end the session: ask for a POST.
        if (record) return logoutConfirmPage(o.routes.logout, record.csrf);
        return redirect(home, await io.destroy(undefined, pairs, shape));
      }
      if (request.method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'GET, POST' } });

      const refusal = await crossSiteRefusal(request, originOf(request), record?.csrf);
      if (refusal) return refusedPage(refusal);
      const cookies = await io.destroy(record, pairs, shape);
      let target = home;
      if (record && o.idpLogout) {
        const endSession = await o.client
          .endSessionUrl({ ...(record.idToken ? { idTokenHint: record.idToken } : {}), postLogoutRedirectUri: home })
          .catch(() => undefined); // the local session is over either way
        if (endSession) target = endSession.href;
      }
      return redirect(target, cookies);
    },

    getSession,

    async getAccessToken(input, tokenOptions = {}) {
      const result = await getSession(input, { ...tokenOptions, refresh: true });
      const { session } = result;
      if (!session) {
        throw new OidcError('login_required', `No session (${result.reason ?? 'no_session'}): the user must log in.`, {
          ...(result.error ? { cause: result.error } : {}),
        });
      }
      if (result.error) throw result.error;
      if (session.accessTokenExpiresAt !== undefined && session.accessTokenExpiresAt <= nowSeconds()) {
        throw new OidcError(
          'login_required',
          'The access token has expired and the session has no refresh token: ask for the offline_access scope, or log in again.',
        );
      }
      return {
        accessToken: session.accessToken,
        ...(session.accessTokenExpiresAt !== undefined ? { expiresAt: session.accessTokenExpiresAt } : {}),
        cookies: result.cookies,
      };
    },

    requiresAuth(handler, requireOptions = {}) {
      return async (request) => {
        let result: SessionResult<Claims>;
        try {
          result = await getSession(request);
        } catch (error) {
          if (isOidcError(error) && error.code === 'session_store_unavailable') {
            return Response.json({ error: error.code, message: error.message }, { status: 503 });
          }
          throw error;
        }
        if (result.session) return applyCookies(await handler(request, result.session), result.cookies);
        const mode = requireOptions.unauthenticated ?? (wantsHtml(request) ? 'redirect' : 'status');
        if (mode === 'redirect') {
          const { pathname, search } = new URL(request.url);
          return redirect(loginUrl(pathname + search), result.cookies, 302);
        }
        const response = Response.json(
          { error: 'login_required', reason: result.reason, message: 'Log in first: this route needs a session.' },
          { status: 401, headers: { 'cache-control': 'no-store' } },
        );
        return applyCookies(response, result.cookies);
      };
    },

    withSession(handler) {
      return async (request) => {
        const result = await getSession(request);
        return applyCookies(await handler(request, result.session), result.cookies);
      };
    },

    applyCookies,
    loginUrl,

    async revokeSession(sessionId) {
      if (!o.store) {
        throw new OidcError(
          'invalid_options',
          'revokeSession needs the store option: a session sealed in its cookie cannot be ended from the back end before it expires.',
        );
      }
      await io.storeDelete(sessionId);
    },

    async verifyCsrf(request, session) {
      return (await crossSiteRefusal(request, originOf(request), session.csrfToken)) === undefined;
    },
  };
  return auth;
}

/** A local path to return to, or undefined: never another origin (no open redirect). */
export function safeReturnTo(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return undefined;
  // Control characters could split a header or be read as another URL by a browser.
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return undefined;
  }
  return value;
}

/** Why a state-changing request (the logout POST) is refused, or undefined when it is the app's own. */
async function crossSiteRefusal(request: Request, appOrigin: URL, csrf: string | undefined): Promise<string | undefined> {
  if (request.headers.get('sec-fetch-site') === 'cross-site') return 'The request came from another site.';
  const origin = request.headers.get('origin');
  if (origin !== null && origin !== appOrigin.origin) return 'The request came from another origin.';
  if (csrf === undefined) return undefined; // no session: nothing to protect
  let token = request.headers.get('x-csrf-token');
  if (token === null && request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() === 'application/x-www-form-urlencoded') {
    const body = await request.text();
    if (body.length <= 4096) token = new URLSearchParams(body).get('csrf_token');
  }
  if (token === null || !equalStrings(token, csrf)) {
    return 'The request did not carry this session\u2019s csrf token; use the buttons of the app.';
  }
  return undefined;
}

/** Compares without stopping at the first difference, so timing reveals nothing about the token. */
function equalStrings(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

function redirect(location: string, cookies: string[], status = 303): Response {
  const headers = new Headers({ location, 'cache-control': 'no-store' });
  for (const cookie of cookies) headers.append('set-cookie', cookie);
  return new Response(null, { status, headers });
}

function wantsHtml(request: Request): boolean {
  return request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html');
}

/** The provider answered the refresh with a refusal (not an outage): the session cannot go on. */
function refusedByProvider(error: OidcError): boolean {
  if (error instanceof TokenEndpointError || (error as { status?: unknown }).status !== undefined) {
    const status = (error as { status?: number }).status ?? 0;
    return status >= 400 && status < 500;
  }
  return error.code.startsWith('id_token_') || error.code === 'refresh_token_missing';
}

function toOidcError(error: unknown): OidcError {
  if (isOidcError(error)) return error;
  return new OidcError('network_error', 'Refreshing the session failed unexpectedly.', { cause: error });
}
