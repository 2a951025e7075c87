/**
 * `POST /oauth/revoke` (RFC 7009). Confidential clients authenticate; public clients send
 * `client_id`. Unknown tokens, and tokens of other clients, get 200 as well, so the endpoint
 * reveals nothing about tokens it did not issue to the caller.
 */
import { storageKey } from '../crypto/secrets';
import { OAuthError, asInvalidRequest, errorResponse } from '../http/errors';
import { readStrictForm } from '../http/params';
import { authenticateClient, requireSecretIfConfidential } from '../oauth/client-auth';
import { revokeGrant } from '../oauth/issue';
import type { RequestContext } from '../request/context';

/**
 * Handles `POST {base}/oauth/revoke`. A refresh token revokes its whole grant (the family
 * and its access tokens); an access token revokes itself.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/oauth/revoke', kind: 'json', cors: true, methods: { POST: revoke } }
 */
export async function revoke(ctx: RequestContext): Promise<Response> {
  try {
    const form = await readStrictForm(ctx.request).catch(asInvalidRequest);
    const auth = await authenticateClient(ctx, form);
    requireSecretIfConfidential(ctx, auth);
    const token = form.get('token');
    if (token === undefined) throw new OAuthError('invalid_request', 'token is required');
    const key = storageKey(token);
    const { store } = ctx.server;
    const clientId = auth.client.client_id;
    const hint = form.get('token_type_hint');
    const lookups = hint === 'refresh_token' ? ['refresh', 'access'] : ['access', 'refresh'];
    for (const kind of lookups) {
      if (kind === 'access') {
        const record = await store.findAccessToken(key);
        if (record && record.tenant === ctx.tenant.id && record.clientId === clientId) {
          await store.deleteAccessToken(key);
          break;
        }
      } else {
        const record = await store.findRefreshToken(key);
        if (record && record.tenant === ctx.tenant.id && record.clientId === clientId) {
          await revokeGrant(ctx, record.grantId);
          break;
        }
      }
    }
    return new Response(null, { status: 200, headers: { ...ctx.corsHeaders, 'Cache-Control': 'no-store' } });
  } catch (error) {
    if (error instanceof OAuthError) return errorResponse(error, ctx.corsHeaders);
    throw error;
  }
}
