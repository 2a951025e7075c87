/**
 * The tenant's distributed-claims source (OIDC Core 5.6.2): the endpoint that userinfo's
 * `_claim_sources` names for a client with `userinfo_distributed_claims`. It answers a request
 * with a live access token of the tenant (`Authorization: Bearer`) with a signed JWT of the
 * user's `credit_score`, as the certification's claims endpoint does.
 */
import { DISTRIBUTED_CLAIMS, signedClaims } from '../faults/claims';
import { OAuthError, errorResponse } from '../http/errors';
import { NO_STORE } from '../http/errors';
import { findLiveAccessToken } from '../oauth/issue';
import type { RequestContext } from '../request/context';

/**
 * Handles `GET {base}/oidc/claims-source`: `application/jwt` with `iss`, `sub` and the claims.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/oidc/claims-source', kind: 'json', cors: true, methods: { GET: claimsSource } }
 */
export async function claimsSource(ctx: RequestContext): Promise<Response> {
  const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(ctx.request.headers.get('authorization')?.trim() ?? '');
  const challenge = { 'WWW-Authenticate': `Bearer realm="${ctx.tenant.id}", error="invalid_token"` };
  const record = match?.[1] ? await findLiveAccessToken(ctx, match[1]) : undefined;
  const sub = record?.user?.sub;
  if (!record || sub === undefined) {
    return errorResponse(new OAuthError('invalid_token', 'send a live access token of this tenant as "Authorization: Bearer <token>"', 401, challenge), ctx.corsHeaders);
  }
  const jwt = await signedClaims(ctx, { iss: ctx.issuer, sub, ...DISTRIBUTED_CLAIMS });
  return new Response(jwt, { status: 200, headers: { ...ctx.corsHeaders, 'Content-Type': 'application/jwt', ...NO_STORE } });
}
