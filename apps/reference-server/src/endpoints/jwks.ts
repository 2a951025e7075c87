/** The JWKS of a tenant: the public keys its tokens are verified with. */
import { faultJwks } from '../faults/id-token';
import { jsonResponse } from '../http/errors';
import type { RequestContext } from '../request/context';

/**
 * Handles `GET {base}/oidc/jwks`: the current and still-valid previous public keys.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/oidc/jwks', kind: 'json', cors: true, methods: { GET: jwks } }
 */
export async function jwks(ctx: RequestContext): Promise<Response> {
  const { keys } = (await ctx.keys()).jwks();
  return jsonResponse({ keys: ctx.tenant.hasFaults ? [...keys, ...(await faultJwks(ctx))] : keys }, 200, { ...ctx.corsHeaders, 'Cache-Control': 'no-cache' });
}

