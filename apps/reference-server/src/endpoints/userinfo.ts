/**
 * `GET|POST /oidc/userinfo` (OIDC Core 5.3) with RFC 6750 bearer tokens: the Authorization
 * header, or for POST the `access_token` form field. Failures carry `WWW-Authenticate`.
 */
import { clientFaults } from '../config/model';
import { faultyUserinfoClaims } from '../faults/responses';
import { OAuthError, errorResponse, jsonResponse } from '../http/errors';
import { BodyError, queryParams, readStrictForm } from '../http/params';
import { releasedClaims } from '../oauth/claims';
import { findLiveAccessToken } from '../oauth/issue';
import type { RequestContext } from '../request/context';

function bearerError(ctx: RequestContext, error: string, description: string, status: 400 | 401 | 403): OAuthError {
  // RFC 6750 3: error_description is limited to printable ASCII without `"` and `\`.
  const safe = description.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?');
  const challenge = `Bearer realm="${ctx.tenant.id}", error="${error}", error_description="${safe}"`;
  return new OAuthError(error, description, status, { 'WWW-Authenticate': challenge });
}

async function presentedToken(ctx: RequestContext): Promise<string> {
  const header = ctx.request.headers.get('authorization');
  let fromBody: string | undefined;
  if (ctx.request.method === 'POST' && ctx.request.headers.get('content-type') !== null) {
    const form = await readStrictForm(ctx.request).catch((error: unknown) => {
      if (error instanceof BodyError) throw bearerError(ctx, 'invalid_request', error.message, 400);
      throw error;
    });
    fromBody = form.get('access_token');
  }
  if (queryParams(ctx.request).values.has('access_token')) {
    throw bearerError(ctx, 'invalid_request', 'access tokens are not accepted in the query; use the Authorization header', 400);
  }
  if (header !== null) {
    const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header.trim());
    if (!match?.[1]) throw bearerError(ctx, 'invalid_request', 'the Authorization header must be "Bearer <access token>"', 400);
    if (fromBody !== undefined) throw bearerError(ctx, 'invalid_request', 'send the access token once, not in both header and body', 400);
    return match[1];
  }
  if (fromBody !== undefined) return fromBody;
  // RFC 6750 3.1: no error code when the request carried no credentials at all.
  throw new OAuthError('invalid_token', 'an access token is required', 401, { 'WWW-Authenticate': `Bearer realm="${ctx.tenant.id}"` });
}

/**
 * Handles `GET|POST {base}/oidc/userinfo`: the claims the token's scopes release, with `sub`.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/oidc/userinfo', kind: 'json', cors: true, methods: { GET: userinfo, POST: userinfo } }
 */
export async function userinfo(ctx: RequestContext): Promise<Response> {
  try {
    const token = await presentedToken(ctx);
    const record = await findLiveAccessToken(ctx, token);
    if (!record) throw bearerError(ctx, 'invalid_token', 'the access token is invalid, expired or revoked', 401);
    const user = record.user && ctx.tenant.users.get(record.user.username);
    if (!user || !record.scopes.includes('openid')) {
      throw bearerError(ctx, 'insufficient_scope', 'the access token was not granted the openid scope for a user', 403);
    }
    const claims = releasedClaims(ctx.tenant, user, record.scopes);
    const faults = clientFaults(ctx.tenant, record.clientId);
    return jsonResponse(faults ? faultyUserinfoClaims(faults, claims) : claims, 200, ctx.corsHeaders);
  } catch (error) {
    if (error instanceof OAuthError) return errorResponse(error, ctx.corsHeaders);
    throw error;
  }
}
