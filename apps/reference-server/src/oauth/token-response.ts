/**
 * The successful token response (RFC 6749 5.1): JSON, never cached, with CORS headers only for
 * the client's own origins. Only a client configured with faults has it bent by faults/.
 */
import type { Client } from '../config/model';
import { faultyTokenResponse } from '../faults/responses';
import { clientCorsHeaders } from '../http/cors';
import { jsonResponse } from '../http/errors';
import type { RequestContext } from '../request/context';

/**
 * The token response for `client` with `body`.
 *
 * @example
 * return tokenResponse(ctx, client, { access_token: access.token, token_type: 'Bearer' });
 */
export function tokenResponse(ctx: RequestContext, client: Client, body: Record<string, string | number>): Response {
  if (client.faults.size > 0) return faultyTokenResponse(ctx, client.faults, body);
  return jsonResponse(body, 200, clientCorsHeaders(ctx.corsHeaders, ctx.request, client.redirect_uris));
}
