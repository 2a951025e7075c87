/**
 * The auth routes: login (to the provider), callback (starts the session) and logout (ends it
 * here and, with `idpLogout`, at the provider). Internal: reached through `SessionAuth`.
 */

import { type IdTokenClaims, OidcError, isOidcError } from '@oidc-rp/core';
import type { StartLoginOptions } from '../client-types';
import { fragmentRelayPage } from '../fragment-relay';
import { nowSeconds } from '../sealing';
import { type CookieShape, parseCookies } from './cookies';
import { checkLoginOrigin, isLoopbackHost } from './login-origin';
import { checkLogoutState, newLogoutState } from './logout-state';
import type { Backchannel } from './backchannel-logout';
import type { ResolvedSessionOptions } from './options';
import { type ErrorPageInfo, type SignedOutPageInfo, customPage, errorPage, logoutConfirmPage, logoutStateMismatchPage, refusedPage, signedOutPage, unavailablePage } from './pages';
import { crossSiteRefusal, safeReturnTo, wantsHtml } from './request-checks';
import type { createSessionIo } from './session-io';
import { recordFromTokens } from './session-record';

/** What the routes need from the session layer. */
export interface RoutesContext {
  options: ResolvedSessionOptions;
  io: ReturnType<typeof createSessionIo>;
  originOf(request: Request): URL;
  shapeOf(request: Request, pairs: Array<[string, string]>): CookieShape;
  /** Back-channel logout, when configured. */
  backchannel?: Backchannel | undefined;
}

export function createAuthRoutes({ options: o, io, originOf, shapeOf, backchannel }: RoutesContext) {
  const routes = {
    async handle(request: Request): Promise<Response | undefined> {
      const { pathname } = new URL(request.url);
      if (pathname === o.routes.login && (request.method === 'GET' || request.method === 'HEAD')) return routes.login(request);
      if (pathname === o.routes.callback) return routes.callback(request);
      if (pathname === o.routes.logout) return routes.logout(request);
      if (pathname === o.routes.postLogout) return routes.postLogout(request);
      if (backchannel && pathname === backchannel.path) return backchannel.handle(request);
      return undefined;
    },

    async login(request: Request, loginOptions: Omit<StartLoginOptions, 'appState'> & { returnTo?: string } = {}): Promise<Response> {
      const { returnTo: given, ...rest } = loginOptions;
      const returnTo = safeReturnTo(given ?? new URL(request.url).searchParams.get('returnTo') ?? undefined) ?? '/';
      const response = await o.client.handleLogin(request, { ...o.loginOptions, ...rest, appState: { returnTo } });
      // The redirect URI is read from the authorization request just built, so it is the one the provider gets.
      return checkLoginOrigin(request, response.headers.get('location'), o.baseUrl, o.routes.callback) ?? response;
    },

    async callback(request: Request): Promise<Response> {
      // No query: the response (if any) is in the fragment, which only the browser sees. The
      // relay page posts it here; no token ever travels in a URL this server receives.
      if ((request.method === 'GET' || request.method === 'HEAD') && new URL(request.url).search === '') return fragmentRelayPage(request);
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
        await backchannel?.sessionStarted(record);
        const returnTo = safeReturnTo((appState as { returnTo?: unknown } | undefined)?.returnTo) ?? '/';
        const headers = new Headers({ location: returnTo, 'cache-control': 'no-store' });
        headers.append('set-cookie', clearCookie);
        for (const cookie of cookies) headers.append('set-cookie', cookie);
        // 303: the browser follows with a GET, so a reload does not post the response again.
        return new Response(null, { status: 303, headers });
      } catch (error) {
        if (!isOidcError(error)) throw error;
        return errorResponse(error, request, pairs);
      }
    },

    async logout(request: Request): Promise<Response> {
      const pairs = parseCookies(request.headers.get('cookie'));
      const shape = shapeOf(request, pairs);
      let read: Awaited<ReturnType<typeof io.read>> | undefined;
      try {
        read = await io.read(pairs, shape);
      } catch (error) {
        if (!isOidcError(error) || error.code !== 'session_store_unavailable') throw error;
        read = undefined; // the store is down: the session cannot be read, but its cookie can still be cleared
      }
      const record = read && 'record' in read ? read.record : undefined;
      const home = new URL(o.postLogoutRedirect, originOf(request)).href;
      if (request.method === 'GET' || request.method === 'HEAD') {
        if (!read) return unavailablePage(o.postLogoutRedirect);
        // A link or a cross-site image must not end the session: ask for a POST.
        if (record) return logoutConfirmPage(o.routes.logout, record.csrf, o.postLogoutRedirect);
        // Signed out already (or back from the provider's logout): say so, and clear a dead cookie.
        const info: SignedOutPageInfo = { homeUrl: o.postLogoutRedirect, loginUrl: o.routes.login, request };
        const page = o.pages.signedOut ? await customPage(o.pages.signedOut(info), 200) : await signedOutPage(info);
        return withCookies(page, await io.destroy(undefined, pairs, shape));
      }
      if (request.method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'GET, POST' } });

      // With the store down there is no csrf token to compare: the origin checks still apply,
      // and all the request can do is clear this browser's own cookie.
      const refusal = await crossSiteRefusal(request, originOf(request), record?.csrf);
      if (refusal) return refusedPage(refusal.message, o.postLogoutRedirect, refusal.status);
      const cookies = await io.destroy(record, pairs, shape).catch(() => io.destroy(undefined, pairs, shape));
      // RFC 7009: a copy of the cookie taken before logout must not get new tokens afterwards.
      if (record?.refreshToken && o.revokeOnLogout) {
        await o.client.revokeToken(record.refreshToken, { tokenTypeHint: 'refresh_token' }).catch(() => false); // the local session ends either way
      }
      let target = home;
      if (record && o.idpLogout) {
        // With a post-logout route, the provider sends the user back there with a state this browser keeps.
        const back = o.routes.postLogout === undefined ? undefined : newLogoutState(shape);
        const endSession = await o.client
          .endSessionUrl({
            ...(record.idToken ? { idTokenHint: record.idToken } : {}),
            postLogoutRedirectUri: back ? new URL(o.routes.postLogout as string, originOf(request)).href : home,
            ...(back ? { state: back.state } : {}),
          })
          .catch(() => undefined); // the local session is over either way
        if (endSession) {
          target = endSession.href;
          if (back) cookies.push(back.cookie);
        }
      }
      return redirect(target, cookies);
    },

    /** Back from the provider's logout: on to `postLogoutRedirect` when the state is the one sent. */
    async postLogout(request: Request): Promise<Response> {
      if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405, headers: { allow: 'GET' } });
      const pairs = parseCookies(request.headers.get('cookie'));
      const { ok, clear } = checkLogoutState(pairs, shapeOf(request, pairs), new URL(request.url).searchParams.get('state'));
      if (ok) return redirect(new URL(o.postLogoutRedirect, originOf(request)).href, [clear]);
      // A forged or replayed sign-out response: the user is signed out here anyway, and goes nowhere on its word.
      return withCookies(await logoutStateMismatchPage(o.postLogoutRedirect), [clear]);
    },
  };

  /** The error page of a failed callback: the `pages.error` option's, or the default. */
  async function errorResponse(error: OidcError, request: Request, pairs: Array<[string, string]>): Promise<Response> {
    const { error: providerError, error_description: description, state } = error as {
      error?: unknown;
      error_description?: unknown;
      state?: unknown;
    };
    const returnTo = error.code === 'authorization_error' && typeof state === 'string' ? await returnToOf(state, pairs) : undefined;
    const info: ErrorPageInfo = {
      code: error.code,
      ...(typeof providerError === 'string' ? { error: providerError } : {}),
      ...(typeof description === 'string' && description !== '' ? { description } : {}),
      loginUrl: loginUrlFor(o.routes.login, returnTo),
      homeUrl: o.postLogoutRedirect,
      ...(returnTo !== undefined ? { returnTo } : {}),
      status: error.code === 'session_store_unavailable' ? 503 : 400,
      cause: error,
      request,
    };
    if (o.pages.error) return customPage(o.pages.error(info), info.status);
    return errorPage(info, isLoopbackHost(originOf(request).hostname));
  }

  /** The returnTo of the pending login whose state came back with an error, read from its sealed transaction. */
  async function returnToOf(state: string, pairs: Array<[string, string]>): Promise<string | undefined> {
    // A transaction is a compact JWE (five parts); try a few such cookies, not every cookie sent.
    const candidates = pairs.filter(([, value]) => value.split('.').length === 5).slice(0, 8);
    for (const [, value] of candidates) {
      const transaction = await o.client.unsealTransaction(value).catch(() => undefined);
      if (transaction?.state === state) return safeReturnTo((transaction.appState as { returnTo?: unknown } | undefined)?.returnTo);
    }
    return undefined;
  }

  return routes;
}

/** The login route's URL for a return path, e.g. `/auth/login?returnTo=%2Forders`. */
export function loginUrlFor(loginPath: string, returnTo: string | undefined): string {
  const path = safeReturnTo(returnTo);
  return path === undefined ? loginPath : `${loginPath}?returnTo=${encodeURIComponent(path)}`;
}

function withCookies(response: Response, cookies: string[]): Response {
  if (cookies.length === 0) return response;
  const headers = new Headers(response.headers); // a copy: a given Response may have immutable headers
  for (const cookie of cookies) headers.append('set-cookie', cookie);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

export function redirect(location: string, cookies: string[], status = 303): Response {
  const headers = new Headers({ location, 'cache-control': 'no-store' });
  for (const cookie of cookies) headers.append('set-cookie', cookie);
  return new Response(null, { status, headers });
}

/**
 * The answer of `requiresAuth` and `withSession` while the session store cannot be reached: 503,
 * an HTML page for a browser's page request, else JSON `{ error: 'session_store_unavailable', message }`.
 */
export async function storeUnavailable(request: Request, error: OidcError, homeUrl: string): Promise<Response> {
  const headers = { 'cache-control': 'no-store', 'retry-after': '5' };
  if (wantsHtml(request)) return withHeaders(await unavailablePage(homeUrl), headers);
  return Response.json({ error: error.code, message: error.message }, { status: 503, headers });
}

function withHeaders(response: Response, extra: Record<string, string>): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
