/**
 * CORS for the endpoints browser clients call directly (discovery, JWKS, token endpoints,
 * userinfo, revocation). Allowed origins are exactly the origins of the tenant's registered
 * redirect URIs; no wildcard, no credentials. Other origins get no CORS headers at all.
 */
// DPoP: the RFC 9449 proof header browser clients send to the token endpoints and userinfo.
const ALLOWED_HEADERS = 'Authorization, Content-Type, Accept, DPoP';

/** What CORS decisions depend on: the request and its tenant's allowed origins. */
interface CorsContext {
  request: Request;
  tenant: { corsOrigins: ReadonlySet<string> };
}

function allowedOrigin(ctx: CorsContext): string | undefined {
  const origin = ctx.request.headers.get('origin');
  return origin !== null && ctx.tenant.corsOrigins.has(origin) ? origin : undefined;
}

const VARY_ONLY: Readonly<Record<string, string>> = Object.freeze({ Vary: 'Origin' });

/**
 * The CORS headers of an actual (non-preflight) response: always `Vary: Origin`, since the
 * answer depends on it, and for an allowed origin the origin itself and the one header
 * browser code needs to read (`WWW-Authenticate`, and the DPoP server nonce `DPoP-Nonce`).
 *
 * @example
 * return jsonResponse(body, 200, { ...corsHeaders(ctx), 'Cache-Control': 'no-cache' });
 */
export function corsHeaders(ctx: CorsContext): Readonly<Record<string, string>> {
  const origin = allowedOrigin(ctx);
  if (!origin) return VARY_ONLY;
  return { Vary: 'Origin', 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': 'WWW-Authenticate, DPoP-Nonce' };
}

/**
 * The answer to an `OPTIONS` preflight: 204, with CORS headers only for an allowed origin.
 *
 * @example
 * if (request.method === 'OPTIONS') return preflight(ctx, ['POST']);
 */
export function preflight(ctx: CorsContext, methods: readonly string[]): Response {
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

/**
 * The CORS headers of a response that carries one client's tokens: the tenant's headers only
 * when the request's origin is one of that client's own redirect URI origins. The tenant-wide
 * set (every client's origins) decides preflights, which name no client; the tokens
 * themselves are readable only by the client they were issued to.
 *
 * @example
 * return jsonResponse(body, 200, clientCorsHeaders(ctx.corsHeaders, ctx.request, client.redirect_uris));
 */
export function clientCorsHeaders(
  headers: Readonly<Record<string, string>>,
  request: Request,
  redirectUris: readonly string[],
): Readonly<Record<string, string>> {
  const origin = request.headers.get('origin');
  if (origin === null || headers['Access-Control-Allow-Origin'] === undefined) return headers;
  const own = redirectUris.some((uri) => URL.canParse(uri) && new URL(uri).origin === origin);
  return own ? headers : VARY_ONLY;
}
