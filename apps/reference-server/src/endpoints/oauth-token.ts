/**
 * `POST /oauth/token`: refresh tokens and client credentials, as the contract splits the token
 * endpoints (codes are exchanged at `/oidc/token`).
 */
import { bindsRefreshToken, isConfidential } from '../config/model';
import { OAuthError } from '../http/errors';
import { USER_SCOPES } from '../oauth/claims';
import { authenticateClient, requireSecretIfConfidential } from '../oauth/client-auth';
import { issueAccessToken, issueRefreshToken, newGrantId, refreshedIdToken } from '../oauth/issue';
import { grantedResources, tokenResources } from '../oauth/resource';
import { refreshTokenGrant, spendAfterChecks } from '../oauth/single-use';
import type { ValidProof } from '../oauth/dpop';
import { type Form, invalidDpopProof, invalidGrant, required, checkProofPolicy, tokenEndpoint } from '../oauth/token-request';
import { tokenResponse } from '../oauth/token-response';
import { nowSeconds, type RequestContext } from '../request/context';

/**
 * `POST {base}/oauth/token`: `refresh_token` (rotation; reuse revokes the family; public
 * clients send `client_id` alone) and `client_credentials`.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/oauth/token', kind: 'json', cors: true, methods: { POST: oauthTokenEndpoint } }
 */
export function oauthTokenEndpoint(ctx: RequestContext): Promise<Response> {
  return tokenEndpoint(ctx, '/oauth/token', async (form, grantType, proof) => {
    const response = await refreshOrClientCredentials(ctx, form, grantType, proof);
    if (response) return response;
    throw new OAuthError(
      'unsupported_grant_type',
      grantType === 'authorization_code'
        ? `this endpoint serves refresh_token and client_credentials; exchange codes at ${ctx.issuer}/oidc/token`
        : 'this endpoint serves only refresh_token and client_credentials',
    );
  });
}

/**
 * Runs the `refresh_token` or `client_credentials` grant; undefined for any other grant type.
 * Shared with `/oidc/token`, which serves every grant in the standard profile.
 *
 * @example
 * const response = await refreshOrClientCredentials(ctx, form, grantType, proof);
 */
export async function refreshOrClientCredentials(ctx: RequestContext, form: Form, grantType: string, proof: ValidProof | undefined): Promise<Response | undefined> {
  if (grantType === 'refresh_token') return refreshGrant(ctx, form, proof);
  if (grantType === 'client_credentials') return clientCredentialsGrant(ctx, form, proof);
  return undefined;
}

function requestedScopes(form: Form): string[] | undefined {
  const raw = form.get('scope');
  return raw === undefined ? undefined : [...new Set(raw.split(' ').filter((s) => s !== ''))];
}

async function refreshGrant(ctx: RequestContext, form: Form, proof: ValidProof | undefined): Promise<Response> {
  const auth = await authenticateClient(ctx, form);
  requireSecretIfConfidential(ctx, auth);
  const { client } = auth;
  checkProofPolicy(ctx, client, proof);
  if (!client.grant_types.includes('refresh_token')) {
    throw new OAuthError('unauthorized_client', 'the client is not registered for the refresh_token grant');
  }
  const token = required(form, 'refresh_token');
  const requested = requestedScopes(form);
  let resources: string[] = [];
  const record = await spendAfterChecks(
    ctx,
    refreshTokenGrant(ctx, token),
    async (found) => {
      if (found.clientId !== client.client_id) throw invalidGrant('the refresh token was issued to another client');
      if (found.expiresAt <= nowSeconds(ctx.server)) throw invalidGrant('the refresh token has expired');
      if (await ctx.server.store.isGrantRevoked(found.grantId)) throw invalidGrant('the refresh token has been revoked');
      // RFC 9449 5: a bound refresh token is used only with a proof by its key.
      if (found.jkt !== undefined && proof?.jkt !== found.jkt) {
        throw invalidDpopProof(proof ? 'the refresh token is bound to another DPoP key' : 'the refresh token is DPoP-bound; send a DPoP proof by its key');
      }
      if (requested?.some((s) => !found.scopes.includes(s))) {
        throw new OAuthError('invalid_scope', 'a refresh can only keep or narrow the originally granted scope');
      }
      resources = tokenResources(ctx.request, form, grantedResources(found), client);
    },
  );
  const scopes = requested ?? record.scopes;
  const access = await issueAccessToken(ctx, { clientId: client.client_id, scopes, user: record.user, grantId: record.grantId, resources, jkt: proof?.jkt });
  // A bound token stays bound; an unbound one becomes bound by its first proof (unless the client opted out).
  const jkt = record.jkt ?? (bindsRefreshToken(client) ? proof?.jkt : undefined);
  const granted = grantedResources(record);
  const refreshToken = await issueRefreshToken(ctx, { clientId: client.client_id, scopes: record.scopes, user: record.user, grantId: record.grantId, resources: granted.length > 0 ? granted : resources, jkt });
  // Misbehaving mode only: an ID token of another issuer or user (refresh_id_token_wrong_*).
  const idToken = ctx.tenant.hasFaults ? await refreshedIdToken(ctx, { clientId: client.client_id, user: record.user, scopes, accessToken: access.token }) : undefined;
  return tokenResponse(ctx, client, {
    access_token: access.token,
    token_type: proof ? 'DPoP' : 'bearer',
    expires_in: access.expiresIn,
    refresh_token: refreshToken,
    ...(idToken !== undefined ? { id_token: idToken } : {}),
  });
}

async function clientCredentialsGrant(ctx: RequestContext, form: Form, proof: ValidProof | undefined): Promise<Response> {
  const auth = await authenticateClient(ctx, form);
  const { client } = auth;
  if (!isConfidential(client)) {
    throw new OAuthError('unauthorized_client', 'client_credentials needs a confidential client');
  }
  requireSecretIfConfidential(ctx, auth);
  if (!client.grant_types.includes('client_credentials')) {
    throw new OAuthError('unauthorized_client', 'the client is not registered for the client_credentials grant');
  }
  const allowed = client.scopes.filter((s) => !USER_SCOPES.has(s));
  const scopes = requestedScopes(form) ?? allowed;
  if (scopes.some((s) => !allowed.includes(s))) {
    throw new OAuthError('invalid_scope', 'a requested scope is not allowed for this client (user scopes such as openid never are)');
  }
  checkProofPolicy(ctx, client, proof);
  const resources = tokenResources(ctx.request, form, [], client);
  const access = await issueAccessToken(ctx, { clientId: client.client_id, scopes, grantId: newGrantId(), resources, jkt: proof?.jkt });
  return tokenResponse(ctx, client, { access_token: access.token, token_type: proof ? 'DPoP' : 'bearer', expires_in: access.expiresIn });
}
