// The public-client calls an SPA bundle uses (no client authentication code): the same requests
// a public client gets from the general calls, and a client with a secret refused before any request.
import { HttpResponse, http } from 'msw';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  buildCodeAuthorizationRequest,
  clearJwksCache,
  completeCodeAuthorization,
  refreshTokens,
  refreshTokensAsPublicClient,
  revokeToken,
  revokeTokenAsPublicClient,
  serviceProvider,
} from '../src/index';
import { CLIENT_ID, ISSUER, type TestKey, createTestKey, serveJwks, signIdToken, validClaims } from './support/id-tokens';
import { useMswServer } from './support/msw-server';

const { server, requests } = useMswServer();
const provider = serviceProvider(ISSUER);
const REDIRECT = 'https://app.example.com/callback';
const withSecret = { clientId: CLIENT_ID, clientSecret: 'a-secret' };

let key: TestKey;
beforeAll(async () => {
  key = await createTestKey('RS256');
});
beforeEach(() => {
  clearJwksCache();
  serveJwks(server, () => [key.jwk]);
});

// Claims valid by the machine's clock (validClaims alone is dated for tests with a fixed clock).
const current = (extra: Record<string, unknown>) => {
  const now = Math.floor(Date.now() / 1000);
  return validClaims({ iat: now - 10, exp: now + 300, ...extra });
};

async function sent(request: Request) {
  return { auth: request.headers.get('authorization'), body: Object.fromEntries(new URLSearchParams(await request.text())) };
}

describe('refreshTokensAsPublicClient', () => {
  it('sends what refreshTokens sends for a public client: client_id in the body, no Authorization', async () => {
    server.use(http.post(`${ISSUER}/oauth/token`, () => HttpResponse.json({ access_token: 'at', token_type: 'Bearer', expires_in: 60 })));
    const params = { provider, client: { clientId: CLIENT_ID }, refreshToken: 'rt' };
    await expect(refreshTokensAsPublicClient(params)).resolves.toMatchObject({ accessToken: 'at' });
    await refreshTokens(params);
    const [small, general] = await Promise.all(requests.filter((r) => r.url.endsWith('/oauth/token')).map(sent));
    expect(small).toEqual({ auth: null, body: { grant_type: 'refresh_token', refresh_token: 'rt', client_id: CLIENT_ID } });
    expect(general).toEqual(small);
  });

  it('validates a refreshed ID token like refreshTokens (another user: id_token_sub_mismatch)', async () => {
    const idToken = await signIdToken(key, current({ sub: 'someone-else' }));
    server.use(http.post(`${ISSUER}/oauth/token`, () => HttpResponse.json({ access_token: 'at', token_type: 'Bearer', id_token: idToken })));
    await expect(
      refreshTokensAsPublicClient({ provider, client: { clientId: CLIENT_ID }, refreshToken: 'rt', expectedSubject: 'user-42' }),
    ).rejects.toMatchObject({ code: 'id_token_sub_mismatch' });
  });

  it('refuses a client with a secret or another method, before any request', async () => {
    for (const client of [withSecret, { clientId: CLIENT_ID, authMethod: 'client_secret_basic' as const }, { clientId: '' }]) {
      await expect(refreshTokensAsPublicClient({ provider, client, refreshToken: 'rt' })).rejects.toMatchObject({ code: 'invalid_options' });
    }
    expect(requests.filter((r) => r.url.endsWith('/oauth/token'))).toHaveLength(0);
  });
});

describe('revokeTokenAsPublicClient', () => {
  it('sends what revokeToken sends for a public client', async () => {
    server.use(http.post(`${ISSUER}/oauth/revoke`, () => new HttpResponse(null, { status: 200 })));
    const params = { provider, client: { clientId: CLIENT_ID }, token: 'rt', tokenTypeHint: 'refresh_token' as const };
    await expect(revokeTokenAsPublicClient(params)).resolves.toBe(true);
    await revokeToken(params);
    const [small, general] = await Promise.all(requests.filter((r) => r.url.endsWith('/oauth/revoke')).map(sent));
    expect(small).toEqual({ auth: null, body: { token: 'rt', token_type_hint: 'refresh_token', client_id: CLIENT_ID } });
    expect(general).toEqual(small);
  });

  it('refuses a client with a secret, before any request', async () => {
    await expect(revokeTokenAsPublicClient({ provider, client: withSecret, token: 'rt' })).rejects.toMatchObject({ code: 'invalid_options' });
    expect(requests.filter((r) => r.url.endsWith('/oauth/revoke'))).toHaveLength(0);
  });
});

describe('completeCodeAuthorization redeems as a public client', () => {
  it('sends the code with the PKCE verifier and client_id, no Authorization', async () => {
    const { transaction } = await buildCodeAuthorizationRequest({ provider, clientId: CLIENT_ID, redirectUri: REDIRECT, scope: 'openid' });
    const idToken = await signIdToken(key, current({ nonce: transaction.nonce }));
    server.use(http.post(`${ISSUER}/oidc/token`, () => HttpResponse.json({ access_token: 'at', token_type: 'Bearer', id_token: idToken })));
    const input = new URL(`${REDIRECT}?code=c&state=${transaction.state}&iss=${encodeURIComponent(ISSUER)}`);
    await completeCodeAuthorization({ provider, client: { clientId: CLIENT_ID }, input, transaction });
    const [exchange] = await Promise.all(requests.filter((r) => r.url.endsWith('/oidc/token')).map(sent));
    expect(exchange).toEqual({
      auth: null,
      body: { grant_type: 'authorization_code', code: 'c', redirect_uri: REDIRECT, code_verifier: transaction.codeVerifier, client_id: CLIENT_ID },
    });
  });

  it('refuses a client with a secret (it uses completeAuthorization), before the token request', async () => {
    const { transaction } = await buildCodeAuthorizationRequest({ provider, clientId: CLIENT_ID, redirectUri: REDIRECT, scope: 'openid' });
    const input = new URL(`${REDIRECT}?code=c&state=${transaction.state}&iss=${encodeURIComponent(ISSUER)}`);
    await expect(completeCodeAuthorization({ provider, client: withSecret, input, transaction })).rejects.toMatchObject({
      code: 'invalid_options',
    });
    expect(requests.filter((r) => r.url.endsWith('/oidc/token'))).toHaveLength(0);
  });
});
