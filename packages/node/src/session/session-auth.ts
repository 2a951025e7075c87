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

import { OidcError, createDpopProof, isOidcError, protectedResourceRequest, resourceForUrl, resourceNotConfigured } from '@oidc-rp/core';
import type { StartLoginOptions } from '../client-types';
import { nowSeconds } from '../sealing';
import { createBackchannel } from './backchannel-logout';
import { type CookieShape, applyToCookieHeader, cookieShape, headersOnlyShape, parseCookies } from './cookies';
import { type SessionAuthOptions, resolveSessionOptions } from './options';
import { type RefreshOutcome, createRefresher, endsSession, refusedByProvider } from './refresh';
import { crossSiteRefusal, wantsHtml } from './request-checks';
import { createAuthRoutes, loginUrlFor, redirect, storeUnavailable } from './routes';
import { type SignedOutReason, createSessionIo } from './session-io';
import { type Session, type SessionRecord, publicSession, resourceTokenOf } from './session-record';

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
 * Options of `getAccessToken`: those of `getSession` (for the token asked for), and the API.
 *
 * @example
 * ```ts
 * const { accessToken } = await auth.getAccessToken(request, { resource: 'https://api.example.com/' });
 * ```
 */
export interface AccessTokenOptions extends Omit<GetSessionOptions, 'refresh'> {
  /**
   * RFC 8707: a token for this API (one of the client's `resources`) instead of the session's
   * own token. Obtained with the refresh token and `resource` (§2.2) on first use and when it
   * expires, kept in the session beside the others (removed with it at logout), DPoP-bound when
   * the client has a DPoP key. Its audience is that API alone: send it there only. A resource the
   * client does not list is `resource_not_configured` (nothing sent); one the provider refuses is
   * `token_endpoint_error` with `error: 'invalid_target'`, and the session stays as it was.
   */
  resource?: string;
}

/**
 * What `resourceRequest` returns: the API's response, and the cookies to send back (the session
 * with the token obtained for the API).
 *
 * @example
 * ```ts
 * const { response, cookies } = await auth.resourceRequest(request, 'https://api.example.com/orders');
 * ```
 */
export interface ResourceRequestResult {
  response: Response;
  cookies: string[];
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

/**
 * A request, or only its headers (e.g. Next.js `headers()` in a server component).
 *
 * @example
 * ```ts
 * await auth.getSession(request);                                // a Request
 * await auth.getSession(await headers(), { refresh: false });   // Next.js server component
 * ```
 */
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
  /** Answers the login, callback and logout routes (and back-channel logout's, when configured); resolves undefined for every other path. */
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
  getAccessToken(input: SessionInput, options?: AccessTokenOptions): Promise<AccessTokenResult>;
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
   * Calls your API with the session's access token: with a DPoP key on the client,
   * `Authorization: DPoP` and a fresh proof (with `ath`; one retry when the API asks for a
   * nonce), else `Authorization: Bearer`. Redirects are not followed. Refresh first
   * (`getSession`, `getAccessToken`) if the token may have expired.
   */
  protectedResourceRequest(session: Pick<Session<Claims>, 'accessToken'>, url: string | URL, init?: RequestInit): Promise<Response>;
  /**
   * Calls one of the client's `resources` (RFC 8707) with that API's own token
   * (`getAccessToken(input, { resource })`): the resource is the one `url` belongs to (same
   * origin, path at or under the resource's path at a `/` boundary, the longest match). A URL of
   * no listed resource is refused with `resource_not_configured` before anything is sent: no
   * token of the session ever goes to another API. DPoP-bound with a DPoP key (nonce retry
   * included); on a 401 the token is renewed once and the call retried once. Redirects are not followed.
   */
  resourceRequest(input: SessionInput, url: string | URL, init?: RequestInit): Promise<ResourceRequestResult>;
  /**
   * A DPoP proof for a request you send yourself with the session's access token (`ath`
   * included): send it as the `DPoP` header with `Authorization: DPoP <accessToken>`. Needs a
   * client created with `dpop`; `invalid_options` otherwise.
   */
  createDpopProof(session: Pick<Session<Claims>, 'accessToken'>, request: { method: string; url: string | URL }): Promise<string>;
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
 *   clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
 *   redirectUri: 'http://127.0.0.1:3000/callback', // as registered at the provider
 *   scope: 'openid profile email offline_access',
 *   cookieSecret: process.env.COOKIE_SECRET!,
 * });
 * const auth = createSessionAuth({
 *   client,
 *   secret: process.env.SESSION_SECRET!,
 *   baseUrl: 'http://127.0.0.1:3000',
 *   routes: { callback: '/callback' }, // the path of redirectUri (default /auth/callback)
 * });
 *
 * export default {
 *   async fetch(request: Request) {
 *     const response = await auth.handle(request); // /auth/login, /callback, /auth/logout
 *     if (response) return response;
 *     return auth.withSession((_request, session) => new Response(`Hello ${session?.user.name ?? 'stranger'}`))(request);
 *   },
 * };
 * ```
 */
export function createSessionAuth<Claims extends object = Record<string, unknown>>(options: SessionAuthOptions): SessionAuth<Claims> {
  const o = resolveSessionOptions(options);
  const io = createSessionIo(o);
  const backchannel = createBackchannel(options.backchannelLogout, o);
  const refresh = createRefresher({
    client: o.client,
    secrets: o.secrets,
    unknownAccessTokenLifetime: o.unknownAccessTokenLifetime,
    shared: o.store ?? o.refreshStore,
  });
  // With a DPoP key on the client, every token it obtained is bound to it (a Bearer answer is refused).
  const dpop = o.client.dpop;
  const tokenType = dpop ? 'DPoP' : 'Bearer';
  // Re-seal a rolling session at most this often, not on every request.
  const rollAfter = o.rollingDuration === false ? Number.POSITIVE_INFINITY : Math.min(60, Math.floor(o.rollingDuration / 10));

  function originOf(request: Request): URL {
    return o.baseUrl ?? new URL(request.url);
  }

  function shapeOf(input: SessionInput, pairs: Array<[string, string]>): CookieShape {
    if (o.baseUrl || input instanceof Request) return cookieShape(o.cookieName, originOf(input as Request).protocol === 'https:');
    return headersOnlyShape(o.cookieName, pairs, input.get('host')); // a server component without baseUrl
  }

  function headersOf(input: SessionInput): { get(name: string): string | null } {
    return input instanceof Request ? input.headers : input;
  }

  function signedOut(reason: SignedOutReason, pairs: Array<[string, string]>, cookies: string[], error?: OidcError): SessionResult<Claims> {
    return { reason, cookies, cookieHeader: applyToCookieHeader(pairs, cookies), ...(error ? { error } : {}) };
  }

  async function getSession(input: SessionInput, readOptions: GetSessionOptions = {}): Promise<SessionResult<Claims>> {
    return (await loadSession(input, readOptions)).result;
  }

  /** `getSession`, with the session's record (when there is a session) and the request's cookies. */
  async function loadSession(
    input: SessionInput,
    readOptions: GetSessionOptions,
  ): Promise<{ result: SessionResult<Claims>; record?: SessionRecord; pairs: Array<[string, string]>; shape: CookieShape }> {
    const found = await readSession(input, readOptions);
    const pairs = parseCookies(headersOf(input).get('cookie'));
    return { ...found, pairs, shape: shapeOf(input, pairs) };
  }

  async function readSession(input: SessionInput, readOptions: GetSessionOptions): Promise<{ result: SessionResult<Claims>; record?: SessionRecord }> {
    const pairs = parseCookies(headersOf(input).get('cookie'));
    const shape = shapeOf(input, pairs);
    const read = await io.read(pairs, shape);
    const writable = readOptions.refresh !== false;
    if ('reason' in read) {
      return { result: signedOut(read.reason, pairs, read.reason === 'no_session' || !writable ? [] : await io.destroy(undefined, pairs, shape)) };
    }
    // Cookie-only sessions ended by a back-channel logout (a store's are deleted instead).
    if (backchannel && (await backchannel.revoked(read.record))) {
      return { result: signedOut('revoked', pairs, writable ? await io.destroy(read.record, pairs, shape) : []) };
    }
    let record: SessionRecord = read.record;
    let changed = false;
    let error: OidcError | undefined;
    const now = nowSeconds();
    const leeway = readOptions.minValidity ?? o.refreshLeeway;
    const due = readOptions.forceRefresh === true || (record.accessTokenExpiresAt !== undefined && now >= record.accessTokenExpiresAt - leeway);
    if (writable && record.refreshToken && due) {
      try {
        let outcome = await refresh(record);
        // Another copy's tokens that have expired since (an old cookie back after a while): refresh those.
        if ('record' in outcome && isExpired(outcome.record) && outcome.record.refreshToken) outcome = await refresh(outcome.record);
        if ('ended' in outcome) return { result: signedOut('refresh_failed', pairs, await io.destroy(record, pairs, shape), outcome.ended) };
        record = outcome.record;
        changed = true;
      } catch (failure) {
        const oidcError = toOidcError(failure);
        if (refusedByProvider(oidcError)) return { result: signedOut('refresh_failed', pairs, await io.destroy(record, pairs, shape), oidcError) };
        error = oidcError; // the provider could not be reached: keep the session, try again next request
      }
    }
    if (!writable || (!changed && now - read.issuedAt < rollAfter)) {
      return {
        result: { session: publicSession<Claims>(record, read.expiresAt, tokenType), cookies: [], cookieHeader: applyToCookieHeader(pairs, []), ...(error ? { error } : {}) },
        record,
      };
    }
    const written = await io.writeBack(record, pairs, shape);
    // Ended (logout, back-channel logout, revokeSession) while this request refreshed it.
    if (written.ended) return { result: signedOut('revoked', pairs, written.cookies) };
    return {
      result: {
        session: publicSession<Claims>(record, written.expiresAt, tokenType),
        cookies: written.cookies,
        cookieHeader: applyToCookieHeader(pairs, written.cookies),
        ...(error ? { error } : {}),
      },
      record,
    };
  }

  /**
   * A token for one API (RFC 8707): the session's own when still valid for `minValidity`, else a
   * refresh with `resource`, kept in the session and written back. A refusal that ends the
   * session (the refresh token spent or revoked) ends it here too; `invalid_target` and anything
   * else leave it as it was.
   */
  async function resourceAccessToken(input: SessionInput, resource: string, tokenOptions: Omit<AccessTokenOptions, 'resource'>): Promise<AccessTokenResult> {
    if (typeof resource !== 'string' || resource === '') {
      throw new OidcError('invalid_options', 'getAccessToken({ resource }) takes one of the client\'s resources, as its resource URI (e.g. https://api.example.com/).');
    }
    const { result, record, pairs, shape } = await loadSession(input, {});
    if (!result.session || !record) throw noSession(result);
    const leeway = tokenOptions.minValidity ?? o.refreshLeeway;
    // forceRefresh: the token the API refused is not given back again.
    const refused = tokenOptions.forceRefresh ? record.resourceTokens?.[resource]?.accessToken : undefined;
    const usable = (from: SessionRecord) => {
      const token = resourceTokenOf(from, resource, leeway, nowSeconds());
      return token && token.accessToken !== refused ? token : undefined;
    };
    let current = record;
    let token = usable(current);
    // A refresh another request started may have asked for another API: then refresh again from its result.
    for (let attempt = 0; !token && attempt < 3; attempt++) {
      if (!current.refreshToken) {
        throw new OidcError('login_required', `No refresh token to get a token for ${resource.slice(0, 200)}: ask for the offline_access scope, and log in again.`);
      }
      let outcome: RefreshOutcome;
      try {
        outcome = await refresh(current, resource);
      } catch (failure) {
        const oidcError = toOidcError(failure);
        if (endsSession(oidcError, resource)) await io.destroy(current, pairs, shape);
        throw oidcError;
      }
      if ('ended' in outcome) {
        await io.destroy(current, pairs, shape);
        throw outcome.ended;
      }
      current = outcome.record;
      token = usable(current);
    }
    if (!token) {
      throw new OidcError('session_refresh_busy', `Other requests kept refreshing this session; no token for ${resource.slice(0, 200)} yet: try again.`);
    }
    if (current === record) return { accessToken: token.accessToken, expiresAt: token.expiresAt, cookies: result.cookies };
    const written = await io.writeBack(current, pairs, shape);
    if (written.ended) throw new OidcError('login_required', 'The session ended (logout) while its token was refreshed: the user must log in.');
    return { accessToken: token.accessToken, expiresAt: token.expiresAt, cookies: written.cookies };
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
    return loginUrlFor(o.routes.login, returnTo);
  }

  const routes = createAuthRoutes({ options: o, io, originOf, shapeOf, backchannel });
  const auth: SessionAuth<Claims> = {
    ...routes,

    getSession,

    async getAccessToken(input, { resource, ...tokenOptions } = {}) {
      if (resource !== undefined) return resourceAccessToken(input, resource, tokenOptions);
      const result = await getSession(input, { ...tokenOptions, refresh: true });
      const { session } = result;
      if (!session) throw noSession(result);
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
          if (isOidcError(error) && error.code === 'session_store_unavailable') return storeUnavailable(request, error, o.postLogoutRedirect);
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
        let result: SessionResult<Claims>;
        try {
          result = await getSession(request);
        } catch (error) {
          // Not a signed-out user: answering as one would hide the outage (and could sign them out).
          if (isOidcError(error) && error.code === 'session_store_unavailable') return storeUnavailable(request, error, o.postLogoutRedirect);
          throw error;
        }
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

    protectedResourceRequest(session, url, init = {}) {
      if (dpop) return protectedResourceRequest(dpop, session.accessToken, url, init);
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${session.accessToken}`);
      return fetch(url, { ...init, headers, redirect: 'manual' });
    },

    async resourceRequest(input, url, init = {}) {
      const resource = resourceForUrl(url, o.client.resources);
      if (resource === undefined) throw resourceNotConfigured(new URL(url).origin, o.client.resources);
      // A stream is read once, so that the retry can send it again (other bodies can be sent twice).
      const body = init.body instanceof ReadableStream ? await new Response(init.body).arrayBuffer() : init.body;
      const send = (accessToken: string) => auth.protectedResourceRequest({ accessToken }, url, { ...init, body });
      const first = await auth.getAccessToken(input, { resource });
      const response = await send(first.accessToken);
      if (response.status !== 401) return { response, cookies: first.cookies };
      // The API refused the token: one renewal, one retry (a second 401 is the API's answer).
      const withCookies = first.cookies.length ? withCookieHeader(input, first.cookies) : input;
      const renewed = await auth.getAccessToken(withCookies, { resource, forceRefresh: true }).catch(() => undefined);
      if (!renewed) return { response, cookies: first.cookies };
      await response.body?.cancel().catch(() => undefined);
      return { response: await send(renewed.accessToken), cookies: renewed.cookies.length ? renewed.cookies : first.cookies };
    },

    async createDpopProof(session, request) {
      if (!dpop) {
        throw new OidcError('invalid_options', 'createDpopProof needs a client created with a DPoP key: createNodeClient({ dpop: await dpop() }).');
      }
      // As fetch sends it: the standard methods upper-case, any other one as written.
      const htm = /^(delete|get|head|options|post|put)$/i.test(request.method) ? request.method.toUpperCase() : request.method;
      return createDpopProof(dpop, { htm, htu: request.url, accessToken: session.accessToken });
    },

    async verifyCsrf(request, session) {
      return (await crossSiteRefusal(request, originOf(request), session.csrfToken)) === undefined;
    },
  };
  return auth;
}

/** `input` as it would come back with `cookies` set: the next step reads the session they wrote. */
function withCookieHeader(input: SessionInput, cookies: string[]): SessionInput {
  const header = applyToCookieHeader(parseCookies((input instanceof Request ? input.headers : input).get('cookie')), cookies);
  if (input instanceof Request) {
    const headers = new Headers(input.headers);
    headers.set('cookie', header);
    return new Request(input.url, { method: input.method, headers });
  }
  return { get: (name) => (name.toLowerCase() === 'cookie' ? header : input.get(name)) };
}

function noSession(result: { reason?: string; error?: OidcError }): OidcError {
  return new OidcError('login_required', `No session (${result.reason ?? 'no_session'}): the user must log in.`, {
    ...(result.error ? { cause: result.error } : {}),
  });
}

function isExpired(record: SessionRecord): boolean {
  return record.accessTokenExpiresAt !== undefined && nowSeconds() >= record.accessTokenExpiresAt;
}

function toOidcError(error: unknown): OidcError {
  if (isOidcError(error)) return error;
  return new OidcError('network_error', 'Refreshing the session failed unexpectedly.', { cause: error });
}
