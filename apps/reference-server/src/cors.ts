/**
 * CORS for the endpoints browser clients call directly (discovery, JWKS, token endpoints,
 * userinfo, revocation). Allowed origins are exactly the origins of the tenant's registered
 * redirect URIs; no wildcard, no credentials. Other origins get no CORS headers at all.
 */
import type { RequestContext } from './context';

const ALLOWED_HEADERS = 'Authorization, Content-Type, Accept';

/** What CORS decisions depend on: the request and its tenant. */
type CorsContext = Pick<RequestContext, 'request' | 'tenant'>;

function allowedOrigin(ctx: CorsContext): string | undefined {
  const origin = ctx.request.headers.get('origin');
  return origin !== null && ctx.tenant.corsOrigins.has(origin) ? origin : undefined;
}

/**
 * The response with CORS headers added when the request's origin is allowed. Always adds
 * `Vary: Origin`, since the answer depends on it.
 *
 * @example
 * return withCors(ctx, await userinfo(ctx));
 */
export function withCors(ctx: CorsContext, response: Response): Response {
  const out = new Response(response.body, response);
  out.headers.append('Vary', 'Origin');
  const origin = allowedOrigin(ctx);
  if (origin) {
    out.headers.set('Access-Control-Allow-Origin', origin);
    out.headers.set('Access-Control-Expose-Headers', 'WWW-Authenticate');
  }
  return out;
}

/**
 * The answer to an `OPTIONS` preflight: 204, with CORS headers only for an allowed origin.
 *
 * @example
 * if (request.method === 'OPTIONS') return preflight(ctx, ['POST']);
 */
export function preflight(ctx: RequestContext, methods: readonly string[]): Response {
  const headers = new Headers({ Vary: 'Origin', Allow: [...methods, 'OPTIONS'].join(', ') });
  const origin = allowedOrigin(ctx);
  if (origin) {
    headers.set('Access-Control-Allow-Origin', origin);
    headers.set('Access-Control-Allow-Methods', methods.join(', '));
    headers.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    headers.set('Access-Control-Max-Age', '600');
  }
  return new Response(null, { status: 204, headers });
}
