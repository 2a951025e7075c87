/**
 * OAuth errors and their JSON shape (RFC 6749 5.2): `{ error, error_description }`, status
 * 400, or 401 for `invalid_client` / `invalid_token`. Descriptions never contain a token,
 * code or secret.
 */
import { BodyError } from './params';

/**
 * An OAuth / OIDC error value with its description and HTTP status.
 *
 * @example
 * throw new OAuthError('invalid_grant', 'the authorization code has expired');
 */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status: 400 | 401 | 403 | 404 | 405 | 429 = 400,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`${error}: ${description}`);
    this.name = 'OAuthError';
  }
}

/** Headers on every response carrying tokens or errors about them. */
export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

/**
 * A JSON response, never cached.
 *
 * @example
 * return jsonResponse({ access_token }, 200);
 */
export function jsonResponse(body: unknown, status = 200, headers: Readonly<Record<string, string>> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-Content-Type-Options': 'nosniff', ...NO_STORE, ...headers },
  });
}

/**
 * The JSON error response for an {@link OAuthError}, with `headers` (e.g. the request's CORS
 * headers) besides the error's own.
 *
 * @example
 * catch (e) { if (e instanceof OAuthError) return errorResponse(e, ctx.corsHeaders) }
 */
export function errorResponse(error: OAuthError, headers: Readonly<Record<string, string>> = {}): Response {
  return jsonResponse({ error: error.error, error_description: error.description }, error.status, { ...headers, ...error.headers });
}

/**
 * Rethrows a malformed-body error as 400 `invalid_request`; anything else unchanged.
 *
 * @example
 * const form = await readStrictForm(request).catch(asInvalidRequest);
 */
export function asInvalidRequest(error: unknown): never {
  if (error instanceof BodyError) throw new OAuthError('invalid_request', error.message);
  throw error;
}

/**
 * 401 `invalid_client`; with a `WWW-Authenticate: Basic` challenge when the client tried
 * HTTP Basic (RFC 6749 5.2). Only then: a challenge would make browsers show a password prompt.
 *
 * @example
 * throw invalidClient('the client secret is wrong', usedBasic, tenant.id);
 */
export function invalidClient(description: string, usedBasic: boolean, realm: string): OAuthError {
  return new OAuthError('invalid_client', description, 401, usedBasic ? { 'WWW-Authenticate': `Basic realm="${realm}"` } : {});
}
