/**
 * `POST /oauth/introspect` (RFC 7662) for resource servers. Only confidential clients that
 * prove their secret may ask. A token is reported active only when it is a live access token
 * of this tenant (known, unexpired, its grant not revoked) and the caller is either the client
 * it was issued to or a client whose `introspection_audiences` holds the token's audience.
 * Everything else (unknown, expired, revoked, refresh tokens, another client's token for
 * another audience) is `{ "active": false }`, so the answer reveals nothing about tokens the
 * caller has no business with.
 */
import { OAuthError, asInvalidRequest, errorResponse, invalidClient, jsonResponse } from '../http/errors';
import { readStrictForm } from '../http/params';
import { authenticateClient } from '../oauth/client-auth';
import { audienceOf, findLiveAccessToken } from '../oauth/issue';
import { grantedResources } from '../oauth/resource';
import type { RequestContext } from '../request/context';

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/**
 * Handles `POST {base}/oauth/introspect`.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/oauth/introspect', kind: 'json', cors: false, methods: { POST: introspect } }
 */
export async function introspect(ctx: RequestContext): Promise<Response> {
  try {
    const form = await readStrictForm(ctx.request).catch(asInvalidRequest);
    const auth = await authenticateClient(ctx, form);
    if (!auth.secretVerified) {
      throw invalidClient('introspection is for confidential clients: authenticate with the client secret or a client assertion', auth.usedBasic, ctx.tenant.id);
    }
    const token = form.get('token');
    if (token === undefined || token === '') throw new OAuthError('invalid_request', 'token is required');
    const caller = auth.client;
    const record = await findLiveAccessToken(ctx, token);
    const aud = record && audienceOf(ctx, record.clientId, grantedResources(record));
    const audiences = aud === undefined ? [] : Array.isArray(aud) ? aud : [aud];
    const allowed = record !== undefined && (record.clientId === caller.client_id || audiences.some((a) => caller.introspection_audiences.includes(a)));
    if (!record || !allowed) return jsonResponse({ active: false }, 200, NO_STORE);
    return jsonResponse(
      {
        active: true,
        iss: ctx.issuer,
        sub: record.user?.sub ?? record.clientId,
        aud,
        exp: record.expiresAt,
        client_id: record.clientId,
        scope: record.scopes.join(' '),
        token_type: record.jkt === undefined ? 'Bearer' : 'DPoP',
        ...(record.user ? { username: record.user.username } : {}),
        // RFC 9449 section 6.2: the key a DPoP-bound token is bound to.
        ...(record.jkt !== undefined ? { cnf: { jkt: record.jkt } } : {}),
      },
      200,
      NO_STORE,
    );
  } catch (error) {
    if (error instanceof OAuthError) return errorResponse(error, {});
    throw error;
  }
}
