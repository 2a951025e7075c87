/**
 * The two token endpoints, as the contract splits them: `POST /oidc/token` exchanges codes;
 * `POST /oauth/token` refreshes and serves client credentials. Errors are RFC 6749 5.2 JSON.
 */
import { USER_SCOPES } from './claims';
import { authenticateClient, requireSecretIfConfidential } from './client-auth';
import { nowSeconds, type RequestContext } from './context';
import { OAuthError, asInvalidRequest, errorResponse } from './errors';
import { tokenResponse } from './faults';
import { issueAccessToken, issueIdToken, issueRefreshToken, newGrantId, revokeGrant } from './issue';
import { readStrictForm } from './params';
import { s256, safeEqual, storageKey } from './secrets';

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

type Form = ReadonlyMap<string, string>;

function invalidGrant(description: string): OAuthError {
  return new OAuthError('invalid_grant', description);
}

/** Reads the form, runs the grant, and turns every OAuthError into its JSON response. */
async function tokenEndpoint(ctx: RequestContext, run: (form: Form, grantType: string) => Promise<Response>): Promise<Response> {
  try {
    const form = await readStrictForm(ctx.request).catch(asInvalidRequest);
    const grantType = form.get('grant_type');
    if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required');
    return await run(form, grantType);
  } catch (error) {
    if (error instanceof OAuthError) return errorResponse(error, ctx.corsHeaders);
    throw error;
  }
}

function required(form: Form, name: string): string {
  const value = form.get(name);
  if (value === undefined) throw new OAuthError('invalid_request', `${name} is required`);
  return value;
}

/**
 * `POST {base}/oidc/token`: the authorization code exchange. Either `client_secret` or
 * `code_verifier`, never both; codes are single-use and a replay revokes what the first
 * redemption issued.
 *
 * @example
 * app.post('/:tenant/oidc/token', (c) => codeTokenEndpoint(contextOf(c)));
 */
export function codeTokenEndpoint(ctx: RequestContext): Promise<Response> {
  return tokenEndpoint(ctx, async (form, grantType) => {
    if (grantType !== 'authorization_code') {
      throw new OAuthError('unsupported_grant_type', `this endpoint serves only authorization_code; send ${grantType === 'refresh_token' || grantType === 'client_credentials' ? `${grantType} to ${ctx.issuer}/oauth/token` : 'a supported grant_type'}`);
    }
    const auth = authenticateClient(ctx, form);
    const { client } = auth;
    const verifier = form.get('code_verifier');
    if (form.has('client_secret') && verifier !== undefined) {
      throw new OAuthError('invalid_request', 'send either client_secret (without PKCE) or code_verifier (with PKCE), never both');
    }
    if (!client.grant_types.includes('authorization_code')) {
      throw new OAuthError('unauthorized_client', 'the client is not registered for the authorization_code grant');
    }
    const code = required(form, 'code');
    const redirectUri = required(form, 'redirect_uri');
    // A confidential client always authenticates: a verifier alone would let a stolen code be redeemed.
    requireSecretIfConfidential(ctx, auth);

    const taken = await ctx.server.store.takeCode(storageKey(code));
    if (!taken || taken.record.tenant !== ctx.tenant.id) throw invalidGrant('the authorization code is not valid');
    const record = taken.record;
    if (taken.alreadyUsed) {
      await revokeGrant(ctx, record.grantId);
      ctx.server.logger.info(`tenant ${ctx.tenant.id}: authorization code replayed; grant revoked (client ${record.clientId})`);
      throw invalidGrant('the authorization code was already used; the tokens issued for it are revoked');
    }
    if (record.clientId !== client.client_id) throw invalidGrant('the authorization code was issued to another client');
    if (record.expiresAt <= nowSeconds(ctx.server)) throw invalidGrant('the authorization code has expired');
    if (record.redirectUri !== redirectUri) throw invalidGrant('redirect_uri does not match the one of the authorize request');
    if (record.codeChallenge !== undefined) {
      if (verifier === undefined) throw invalidGrant('code_verifier is required: the code was issued with a code_challenge');
      if (!VERIFIER.test(verifier) || !safeEqual(s256(verifier), record.codeChallenge)) {
        throw invalidGrant('code_verifier does not match the code_challenge');
      }
    } else if (verifier !== undefined) {
      throw invalidGrant('the code was issued without a code_challenge; send client_secret instead of code_verifier');
    }

    const grant = { clientId: client.client_id, scopes: record.scopes, user: record.user, grantId: record.grantId };
    const access = await issueAccessToken(ctx, grant);
    const body: Record<string, string> = { access_token: access.token, token_type: 'Bearer' };
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
      body.refresh_token = await issueRefreshToken(ctx, grant);
    }
    return tokenResponse(ctx, client.client_id, body);
  });
}

/**
 * `POST {base}/oauth/token`: `refresh_token` (rotation; reuse revokes the family; public
 * clients send `client_id` alone) and `client_credentials`.
 *
 * @example
 * app.post('/:tenant/oauth/token', (c) => oauthTokenEndpoint(contextOf(c)));
 */
export function oauthTokenEndpoint(ctx: RequestContext): Promise<Response> {
  return tokenEndpoint(ctx, async (form, grantType) => {
    if (grantType === 'refresh_token') return refreshGrant(ctx, form);
    if (grantType === 'client_credentials') return clientCredentialsGrant(ctx, form);
    throw new OAuthError(
      'unsupported_grant_type',
      grantType === 'authorization_code'
        ? `this endpoint serves refresh_token and client_credentials; exchange codes at ${ctx.issuer}/oidc/token`
        : 'this endpoint serves only refresh_token and client_credentials',
    );
  });
}

function requestedScopes(form: Form): string[] | undefined {
  const raw = form.get('scope');
  return raw === undefined ? undefined : [...new Set(raw.split(' ').filter((s) => s !== ''))];
}

async function refreshGrant(ctx: RequestContext, form: Form): Promise<Response> {
  const auth = authenticateClient(ctx, form);
  requireSecretIfConfidential(ctx, auth);
  const { client } = auth;
  if (!client.grant_types.includes('refresh_token')) {
    throw new OAuthError('unauthorized_client', 'the client is not registered for the refresh_token grant');
  }
  const token = required(form, 'refresh_token');
  const taken = await ctx.server.store.takeRefreshToken(storageKey(token));
  if (!taken || taken.record.tenant !== ctx.tenant.id) throw invalidGrant('the refresh token is not valid');
  const record = taken.record;
  if (taken.alreadyUsed) {
    await revokeGrant(ctx, record.grantId);
    ctx.server.logger.info(`tenant ${ctx.tenant.id}: refresh token reused; family revoked (client ${record.clientId})`);
    throw invalidGrant('the refresh token was already used; all tokens of its family are revoked');
  }
  if (record.clientId !== client.client_id) throw invalidGrant('the refresh token was issued to another client');
  if (record.expiresAt <= nowSeconds(ctx.server)) throw invalidGrant('the refresh token has expired');
  if (await ctx.server.store.isGrantRevoked(record.grantId)) throw invalidGrant('the refresh token has been revoked');
  const scopes = requestedScopes(form) ?? record.scopes;
  if (scopes.some((s) => !record.scopes.includes(s))) {
    throw new OAuthError('invalid_scope', 'a refresh can only keep or narrow the originally granted scope');
  }
  const access = await issueAccessToken(ctx, { clientId: client.client_id, scopes, user: record.user, grantId: record.grantId });
  const refreshToken = await issueRefreshToken(ctx, { clientId: client.client_id, scopes: record.scopes, user: record.user, grantId: record.grantId });
  return tokenResponse(ctx, client.client_id, { access_token: access.token, token_type: 'bearer', expires_in: access.expiresIn, refresh_token: refreshToken });
}

async function clientCredentialsGrant(ctx: RequestContext, form: Form): Promise<Response> {
  const auth = authenticateClient(ctx, form);
  const { client } = auth;
  if (client.client_secret === undefined) {
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
  const access = await issueAccessToken(ctx, { clientId: client.client_id, scopes, grantId: newGrantId() });
  return tokenResponse(ctx, client.client_id, { access_token: access.token, token_type: 'bearer', expires_in: access.expiresIn });
}
