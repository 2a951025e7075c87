/**
 * `POST /oidc/token`: the authorization code exchange, as the contract splits the token
 * endpoints (refresh and client credentials are at `/oauth/token`). In a tenant with the
 * standard profile it is the one token endpoint of RFC 6749: every grant, client secret and
 * PKCE verifier together, `expires_in` always.
 */
import { bindsRefreshToken } from '../config/model';
import { s256, safeEqual } from '../crypto/secrets';
import { OAuthError } from '../http/errors';
import { authenticateClient, requireSecretIfConfidential } from '../oauth/client-auth';
import { issueAccessToken, issueIdToken, issueRefreshToken } from '../oauth/issue';
import { grantedResources, tokenResources } from '../oauth/resource';
import { codeGrant, spendAfterChecks } from '../oauth/single-use';
import { invalidDpopProof, invalidGrant, required, checkProofPolicy, tokenEndpoint } from '../oauth/token-request';
import { refreshOrClientCredentials } from './oauth-token';
import { tokenResponse } from '../oauth/token-response';
import { nowSeconds, type RequestContext } from '../request/context';

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * `POST {base}/oidc/token`: the authorization code exchange. Either `client_secret` or
 * `code_verifier`, never both; codes are single-use (spent only once every check passed) and a
 * replay revokes what the first redemption issued.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/oidc/token', kind: 'json', cors: true, methods: { POST: codeTokenEndpoint } }
 */
export function codeTokenEndpoint(ctx: RequestContext): Promise<Response> {
  const standard = ctx.tenant.profile === 'standard';
  return tokenEndpoint(ctx, '/oidc/token', async (form, grantType, proof) => {
    if (standard && grantType !== 'authorization_code') {
      const response = await refreshOrClientCredentials(ctx, form, grantType, proof);
      if (response) return response;
      throw new OAuthError('unsupported_grant_type', 'this endpoint serves authorization_code, refresh_token and client_credentials');
    }
    if (grantType !== 'authorization_code') {
      throw new OAuthError('unsupported_grant_type', `this endpoint serves only authorization_code; send ${grantType === 'refresh_token' || grantType === 'client_credentials' ? `${grantType} to ${ctx.issuer}/oauth/token` : 'a supported grant_type'}`);
    }
    const auth = await authenticateClient(ctx, form);
    const { client } = auth;
    const verifier = form.get('code_verifier');
    if (!standard && form.has('client_secret') && verifier !== undefined) {
      throw new OAuthError('invalid_request', 'send either client_secret (without PKCE) or code_verifier (with PKCE), never both');
    }
    if (!client.grant_types.includes('authorization_code')) {
      throw new OAuthError('unauthorized_client', 'the client is not registered for the authorization_code grant');
    }
    const code = required(form, 'code');
    const redirectUri = required(form, 'redirect_uri');
    // A confidential client always authenticates: a verifier alone would let a stolen code be redeemed.
    requireSecretIfConfidential(ctx, auth);
    checkProofPolicy(ctx, client, proof);

    // Checked before the code is spent, like every other rule (an invalid_target must not burn it).
    let resources: string[] = [];
    const record = await spendAfterChecks(
      ctx,
      codeGrant(ctx, code),
      (found) => {
        if (found.clientId !== client.client_id) throw invalidGrant('the authorization code was issued to another client');
        if (found.expiresAt <= nowSeconds(ctx.server)) throw invalidGrant('the authorization code has expired');
        if (found.redirectUri !== redirectUri) throw invalidGrant('redirect_uri does not match the one of the authorize request');
        if (found.codeChallenge !== undefined) {
          if (verifier === undefined) throw invalidGrant('code_verifier is required: the code was issued with a code_challenge');
          if (!VERIFIER.test(verifier) || !safeEqual(s256(verifier), found.codeChallenge)) {
            throw invalidGrant('code_verifier does not match the code_challenge');
          }
        } else if (verifier !== undefined) {
          throw invalidGrant('the code was issued without a code_challenge; send client_secret instead of code_verifier');
        }
        // RFC 9449 10: a code bound with dpop_jkt is exchanged only with a proof by that key.
        if (found.dpopJkt !== undefined && proof?.jkt !== found.dpopJkt) {
          throw invalidDpopProof('the authorization code is bound (dpop_jkt) to another DPoP key; send a proof signed by that key');
        }
        resources = tokenResources(ctx.request, form, grantedResources(found), client);
      },
    );

    const grant = { clientId: client.client_id, scopes: record.scopes, user: record.user, grantId: record.grantId };
    const access = await issueAccessToken(ctx, { ...grant, resources, jkt: proof?.jkt });
    const body: Record<string, string | number> = { access_token: access.token, token_type: proof ? 'DPoP' : 'Bearer' };
    if (standard) body.expires_in = access.expiresIn;
    if (record.scopes.includes('openid')) {
      body.id_token = await issueIdToken(ctx, {
        clientId: client.client_id,
        user: record.user,
        scopes: record.scopes,
        accessToken: access.token,
        ...(record.nonce !== undefined ? { nonce: record.nonce } : {}),
      });
    }
    if (record.scopes.includes('offline_access') && client.grant_types.includes('refresh_token')) {
      // RFC 9449 5: bound to the DPoP key (a confidential client may opt out: dpop_unbound_refresh).
      // The refresh token keeps every granted resource: a refresh may ask a token for any one of them (RFC 8707 2.2).
      const granted = grantedResources(record);
      body.refresh_token = await issueRefreshToken(ctx, { ...grant, resources: granted.length > 0 ? granted : resources, jkt: bindsRefreshToken(client) ? proof?.jkt : undefined });
    }
    return tokenResponse(ctx, client, body);
  });
}
