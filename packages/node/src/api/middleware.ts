/**
 * The HTTP layer of a protected resource: one guard over any {@link AccessTokenVerifier}. It
 * builds the verifier's {@link ResourceRequest} from the request with the URL taken from the
 * API's configured public origin (never the `Host` header, which the client controls), refuses
 * oversized credentials before any verification, checks the required scopes, and turns every
 * refusal into RFC 6750 / RFC 9449 challenges. A verifier that cannot reach its provider (JWKS or
 * introspection down) is a 503 with a clear body, never a crash.
 */

import { isOidcError } from '@oidc-rp/core';
import {
  AccessTokenError,
  type AccessTokenClaims,
  type AccessTokenRefusal,
  type AccessTokenVerifier,
  type ResourceRequest,
  type VerifiedAccessToken,
  accessTokenChallenge,
} from '@oidc-rp/core/api';
import { invalidOptions } from '@oidc-rp/core/internal';
import { type CorsOptions, type CorsPolicy, corsPolicy } from './cors';

/** Settings of {@link requireAccessToken}. */
export interface RequireAccessTokenOptions<C extends AccessTokenClaims = AccessTokenClaims> {
  /** Checks the token: a JWT access-token verifier, `introspectionVerifier(...)`, or your own. */
  verifier: AccessTokenVerifier<C>;
  /**
   * The API's public origin as clients reach it (`https://api.example.com`): request URLs (and
   * so a DPoP proof's `htu`) are built from it and the request's path, never from `Host`.
   */
  origin: string;
  /** Scopes every request must carry (all of them); else 403 `insufficient_scope`. */
  scope?: string | readonly string[];
  /** `realm` of the challenges. */
  realm?: string;
  /** The URL of this API's RFC 9728 metadata (`protectedResourceMetadata(...).url`): `resource_metadata` in challenges. */
  resourceMetadata?: string;
  /** Longest `Authorization` or `DPoP` header accepted, in characters. Default 8 192. */
  maxHeaderLength?: number;
  /** Called with the error when a token could not be checked (the 503 answers): for your logs. */
  onUnavailable?: (error: Error) => void;
  /**
   * Browser apps on these origins may call the API: the guard answers their preflights (allowing
   * `Authorization`, `DPoP`, `Content-Type`) and gives every answer, refusal or success, the
   * headers that let the page read it (`WWW-Authenticate` and `DPoP-Nonce` exposed). Default: none.
   */
  cors?: CorsOptions;
}

/** What a request is made of, for servers without Web `Request`s (Express, Fastify, node:http). */
export interface IncomingResourceRequest {
  method: string;
  /** The request target as received: path and query (`req.originalUrl`, `request.url`). */
  target: string;
  authorization: string | string[] | null | undefined;
  dpop: string | string[] | null | undefined;
  /** The `Origin` header, for the `cors` option. */
  origin?: string | string[] | null | undefined;
  /** The `Access-Control-Request-Method` header: with `OPTIONS`, a CORS preflight. */
  accessControlRequestMethod?: string | string[] | null | undefined;
}

/** A refused request, as plain data: the status, headers and JSON body to write. */
export interface AccessTokenAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, string>;
}

/**
 * The outcome of {@link AccessTokenGuard.check}: the verified token and the headers your answer
 * must carry (CORS, with the `cors` option; else none), or the answer to send (a refusal, or the
 * answer to a CORS preflight).
 */
export type AccessTokenCheck<C extends AccessTokenClaims = AccessTokenClaims> =
  | { ok: true; token: VerifiedAccessToken<C>; headers: Readonly<Record<string, string>> }
  | { ok: false; answer: AccessTokenAnswer };

/** The outcome of calling the guard with a Web `Request`: the verified token and the headers to add to your response, or the `Response` to return. */
export type AccessTokenResult<C extends AccessTokenClaims = AccessTokenClaims> =
  | { ok: true; token: VerifiedAccessToken<C>; headers: Readonly<Record<string, string>> }
  | { ok: false; response: Response };

/**
 * Checks a request's access token. Call it with a Web `Request`; adapters for servers without
 * them use `check`.
 */
export interface AccessTokenGuard<C extends AccessTokenClaims = AccessTokenClaims> {
  (request: Request): Promise<AccessTokenResult<C>>;
  check(request: IncomingResourceRequest): Promise<AccessTokenCheck<C>>;
}

const DEFAULT_MAX_HEADER = 8192;

/**
 * A guard for a protected route. A refused request gets 400, 401 or 403 with `WWW-Authenticate`
 * (`Bearer` or `DPoP` per the request and the verifier, `error`, `error_description`, `scope`
 * on `insufficient_scope`, `algs`, `resource_metadata`), `DPoP-Nonce` with `use_dpop_nonce`,
 * and `Cache-Control: no-store`; a verifier whose provider cannot be reached gives 503
 * `temporarily_unavailable`. Other exceptions (bugs) are thrown.
 *
 * @example
 * ```ts
 * const guard = requireAccessToken({ verifier, origin: 'https://api.example.com', scope: 'orders.read' });
 * const result = await guard(request);
 * if (!result.ok) return result.response;
 * console.log(result.token.claims.sub);
 * ```
 */
export function requireAccessToken<C extends AccessTokenClaims = AccessTokenClaims>(options: RequireAccessTokenOptions<C>): AccessTokenGuard<C> {
  const { verifier, realm, resourceMetadata, onUnavailable } = options;
  if (typeof verifier !== 'function') throw invalidOptions('verifier is required: a function that checks the access token.');
  const cors: CorsPolicy | undefined = options.cors === undefined ? undefined : corsPolicy(options.cors);
  const origin = publicOrigin(options.origin);
  const required = typeof options.scope === 'string' ? options.scope.split(' ').filter(Boolean) : [...(options.scope ?? [])];
  const maxHeader = options.maxHeaderLength ?? DEFAULT_MAX_HEADER;
  if (!(maxHeader > 0)) throw invalidOptions('maxHeaderLength must be a positive number of characters.');

  function refusal(error: AccessTokenError, authorization: string | null): AccessTokenAnswer {
    const scheme = authorization === null ? undefined : /^dpop /i.test(authorization) ? 'DPoP' : /^bearer /i.test(authorization) ? 'Bearer' : undefined;
    const answer: AccessTokenRefusal = accessTokenChallenge(error, { requestScheme: scheme, dpop: verifier.dpop, realm, scope: required, resourceMetadata });
    return { status: answer.status, headers: answer.headers, body: answer.body as Record<string, string> };
  }

  async function check(incoming: IncomingResourceRequest): Promise<AccessTokenCheck<C>> {
    if (!cors) return verify(incoming);
    const origin = single(incoming.origin) ?? null;
    if (incoming.method === 'OPTIONS' && single(incoming.accessControlRequestMethod)) {
      // A preflight carries no token (Fetch standard): answered here, before any verification.
      const preflight = cors.preflight(origin);
      return { ok: false, answer: { ...preflight, body: {} } };
    }
    const headers = cors.headers(origin);
    const result = await verify(incoming);
    if (result.ok) return { ok: true, token: result.token, headers };
    return { ok: false, answer: { ...result.answer, headers: { ...result.answer.headers, ...headers } } };
  }

  async function verify(incoming: IncomingResourceRequest): Promise<AccessTokenCheck<C>> {
    const authorization = single(incoming.authorization);
    try {
      const request = resourceRequest(incoming, origin, maxHeader);
      const token = await verifier(request);
      const missing = required.filter((scope) => !token.scopes.includes(scope));
      if (missing.length) {
        throw new AccessTokenError('insufficient_scope', 'insufficient_scope', `The access token lacks the scope ${missing.join(' ')} this resource requires.`);
      }
      return { ok: true, token, headers: NO_HEADERS };
    } catch (error) {
      if (error instanceof AccessTokenError) return { ok: false, answer: refusal(error, typeof authorization === 'string' ? authorization : null) };
      if (!isOidcError(error)) throw error;
      onUnavailable?.(error);
      return {
        ok: false,
        answer: {
          status: 503,
          headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'Retry-After': '5' },
          body: { error: 'temporarily_unavailable', error_description: `The access token could not be checked right now (${error.code}); try again shortly.` },
        },
      };
    }
  }

  const guard = async (request: Request): Promise<AccessTokenResult<C>> => {
    const result = await check({
      method: request.method,
      target: pathOf(request.url),
      authorization: request.headers.get('authorization'),
      dpop: request.headers.get('dpop'),
      origin: request.headers.get('origin'),
      accessControlRequestMethod: request.headers.get('access-control-request-method'),
    });
    if (result.ok) return result;
    const { status, headers, body } = result.answer;
    return { ok: false, response: new Response(status === 204 ? null : JSON.stringify(body), { status, headers }) };
  };
  return Object.assign(guard, { check });
}

/**
 * Wraps a Web handler (a Next.js route handler, a `fetch` handler): it runs only with a
 * verified token, which it gets after the request; a refused request gets the guard's answer.
 *
 * @example
 * ```ts
 * export const GET = withAccessToken(guard, async (request, token) => Response.json({ sub: token.claims.sub }));
 * ```
 */
export function withAccessToken<C extends AccessTokenClaims, A extends unknown[]>(
  guard: AccessTokenGuard<C>,
  handler: (request: Request, token: VerifiedAccessToken<C>, ...rest: A) => Response | Promise<Response>,
): (request: Request, ...rest: A) => Promise<Response> {
  return async (request, ...rest) => {
    const result = await guard(request);
    if (!result.ok) return result.response;
    return withHeaders(await handler(request, result.token, ...rest), result.headers);
  };
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * `response` with `headers` added (the guard's CORS headers on a success). A response whose
 * headers cannot change (one from `fetch`, `Response.redirect`) is copied.
 *
 * @example
 * return withHeaders(Response.json(body), result.headers);
 */
export function withHeaders(response: Response, headers: Readonly<Record<string, string>>): Response {
  const entries = Object.entries(headers);
  if (entries.length === 0) return response;
  const add = (target: Headers) => {
    // Vary adds to what the handler's answer already varies by.
    for (const [name, value] of entries) name === 'Vary' ? target.append(name, value) : target.set(name, value);
  };
  try {
    add(response.headers);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    add(copy.headers);
    return copy;
  }
}

// Only an origin: the path comes from each request.
function publicOrigin(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // refused below
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== value.replace(/\/$/, '')) {
    throw invalidOptions('origin must be the API\'s public origin, e.g. "https://api.example.com" (no path).');
  }
  return url.origin;
}

// The verifier's view of the request. The URL is the configured origin followed by the path as
// received: a target like `//evil.example/x` stays a path of this origin.
function resourceRequest(incoming: IncomingResourceRequest, origin: string, maxHeader: number): ResourceRequest {
  const authorization = single(incoming.authorization);
  const dpop = single(incoming.dpop);
  if (authorization === undefined) throw new AccessTokenError('access_token_invalid', 'invalid_request', 'Send one Authorization header.');
  if (dpop === undefined) throw new AccessTokenError('dpop_proof_invalid', 'invalid_dpop_proof', 'Send at most one DPoP header.');
  if (authorization !== null && authorization.length > maxHeader) {
    throw new AccessTokenError('access_token_invalid', 'invalid_token', `The Authorization header is longer than ${maxHeader} characters.`);
  }
  if (dpop !== null && dpop.length > maxHeader) {
    throw new AccessTokenError('dpop_proof_invalid', 'invalid_dpop_proof', `The DPoP header is longer than ${maxHeader} characters.`);
  }
  // The absolute form (`GET http://host/path`): its path only, never its host.
  const path = incoming.target.startsWith('/') ? incoming.target : pathOf(incoming.target);
  const url = path.startsWith('/') ? parse(`${origin}${path}`) : undefined;
  if (!url || url.origin !== origin) throw new AccessTokenError('access_token_invalid', 'invalid_request', 'The request target is not a path.');
  url.hash = '';
  return { method: incoming.method, url: url.href, authorization, dpop };
}

// Path and query of an absolute URL ('' when it is not one), without building a URL object
// for the common case: a Web Request's url is already parsed and serialised.
function pathOf(absolute: string): string {
  const scheme = absolute.indexOf('://');
  if (scheme === -1) return '';
  const slash = absolute.indexOf('/', scheme + 3);
  if (slash === -1) return '/';
  const hash = absolute.indexOf('#', slash);
  return hash === -1 ? absolute.slice(slash) : absolute.slice(slash, hash);
}

function parse(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

// A header given once, `null` when absent, `undefined` when repeated.
function single(value: string | string[] | null | undefined): string | null | undefined {
  if (Array.isArray(value)) return value.length === 1 ? (value[0] as string) : value.length === 0 ? null : undefined;
  return value ?? null;
}
