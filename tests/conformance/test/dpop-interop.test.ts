// DPoP (RFC 9449) through @oidc-rp/core against oidc-provider (a certified OpenID Provider)
// with DPoP and server nonces required, over real HTTP on 127.0.0.1: a code flow and client
// credentials with DPoP-bound tokens, refresh keeping the binding, userinfo with DPoP, and the
// nonce retry at the token endpoint (400) and at userinfo (401). The provider is the judge: a
// proof it refuses, or a token that is not bound to the handle's key, fails these tests.
import {
  type DpopHandle,
  type ProviderMetadata,
  buildAuthorizationRequest,
  clearJwksCache,
  clientCredentials,
  clientSecretBasic,
  completeAuthorization,
  discover,
  dpop,
  fetchUserInfo,
  generateDpopKeyPair,
  none,
  protectedResourceRequest,
  refreshTokens,
} from '@oidc-rp/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type InteropClient, type RunningOidcProvider, startOidcProvider } from './support/oidc-provider';

const REDIRECT = 'http://127.0.0.1:5173/callback';
const SECRET = 'dpop-interop-client-secret-0123456789';
const CLIENTS: InteropClient[] = [
  { client_id: 'dpop-spa', token_endpoint_auth_method: 'none', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], dpop_bound_access_tokens: true },
  { client_id: 'dpop-service', client_secret: SECRET, token_endpoint_auth_method: 'client_secret_basic', redirect_uris: [REDIRECT], grant_types: ['client_credentials'], dpop_bound_access_tokens: true },
];

let op: RunningOidcProvider;
let provider: ProviderMetadata;
/** Every request the SDK sent: method, path, status and the nonce its proof carried. */
const sent: { method: string; path: string; status: number; nonce?: string; authorization?: string | null }[] = [];
const recordingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const headers = new Headers(init?.headers);
  const proof = headers.get('dpop');
  const nonce = proof ? JSON.parse(Buffer.from(proof.split('.')[1]!, 'base64url').toString()).nonce : undefined;
  sent.push({ method: init?.method ?? 'GET', path: new URL(String(input)).pathname, status: response.status, nonce, authorization: headers.get('authorization') });
  return response;
};
const http = { fetch: recordingFetch };

beforeAll(async () => {
  op = await startOidcProvider(CLIENTS, { dpop: { requireNonce: true } });
  provider = await discover(op.issuer);
});
afterAll(() => op?.close());
beforeEach(() => {
  sent.length = 0;
  clearJwksCache();
});

/** A code-flow login of alice for the public client, the code exchanged with `handle`. */
async function login(handle: DpopHandle) {
  const { url, transaction } = await buildAuthorizationRequest({
    provider,
    clientId: 'dpop-spa',
    redirectUri: REDIRECT,
    scope: 'openid profile email offline_access',
    extra: { dpop_jkt: handle.jkt },
  });
  const callback = await op.signIn(url);
  if (callback.type !== 'redirect') throw new Error('expected a redirect back');
  return completeAuthorization({ provider, client: { clientId: 'dpop-spa' }, clientAuth: none(), input: callback.location, transaction, http, dpop: handle });
}

describe('DPoP with oidc-provider (nonces required)', () => {
  it('advertises DPoP, and our default algorithm is one it takes', () => {
    expect(provider.dpop_signing_alg_values_supported).toContain('ES256');
  });

  it('code flow: a DPoP-bound token after one nonce retry; refresh keeps the binding; userinfo with DPoP', async () => {
    const handle = await dpop();
    const tokens = await login(handle);
    expect(tokens).toMatchObject({ tokenType: 'DPoP', claims: { sub: 'alice' } });
    expect(tokens.refreshToken).toEqual(expect.any(String));
    // The first proof had no nonce: the provider asked for one (400 use_dpop_nonce), the SDK retried once.
    expect(sent.filter((s) => s.path === '/token')).toEqual([
      expect.objectContaining({ status: 400, nonce: undefined }),
      expect.objectContaining({ status: 200, nonce: expect.any(String) }),
    ]);

    // The nonce is kept per origin: the refresh needs no retry, and comes back bound to the same key.
    sent.length = 0;
    const refreshed = await refreshTokens({ provider, client: { clientId: 'dpop-spa' }, clientAuth: none(), refreshToken: tokens.refreshToken!, expectedSubject: 'alice', http, dpop: handle });
    expect(refreshed.tokenType).toBe('DPoP');
    expect(sent.map((s) => s.status)).toEqual([200]);

    const user = await fetchUserInfo({ provider, accessToken: refreshed.accessToken, expectedSubject: 'alice', http, dpop: handle });
    expect(user).toMatchObject({ sub: 'alice', email: 'alice@example.com' });
    expect(sent.at(-1)).toMatchObject({ path: '/me', status: 200, authorization: `DPoP ${refreshed.accessToken}` });
  });

  it('userinfo: a stale nonce is one 401 use_dpop_nonce challenge and one retry', async () => {
    const handle = await dpop();
    const tokens = await login(handle);
    handle.rememberNonce(new URL(op.issuer).origin, 'a-nonce-the-provider-never-issued');
    sent.length = 0;
    await expect(fetchUserInfo({ provider, accessToken: tokens.accessToken, expectedSubject: 'alice', http, dpop: handle })).resolves.toMatchObject({ sub: 'alice' });
    expect(sent.map((s) => [s.path, s.status])).toEqual([
      ['/me', 401],
      ['/me', 200],
    ]);
    expect(sent[1]!.nonce).not.toBe('a-nonce-the-provider-never-issued');
  });

  it('the binding is real: the token is refused as Bearer and with another key', async () => {
    const handle = await dpop();
    const tokens = await login(handle);
    await expect(fetchUserInfo({ provider, accessToken: tokens.accessToken, expectedSubject: 'alice', http })).rejects.toMatchObject({ code: 'userinfo_error' });
    const other = await dpop();
    other.rememberNonce(new URL(op.issuer).origin, handle.nonceFor(new URL(op.issuer).origin)!);
    await expect(fetchUserInfo({ provider, accessToken: tokens.accessToken, expectedSubject: 'alice', http, dpop: other })).rejects.toMatchObject({ code: 'userinfo_error' });
    // A refresh token bound to the handle's key (public client, RFC 9449 5) is refused with another key.
    await expect(
      refreshTokens({ provider, client: { clientId: 'dpop-spa' }, clientAuth: none(), refreshToken: tokens.refreshToken!, http, dpop: other }),
    ).rejects.toMatchObject({ code: 'token_endpoint_error', error: 'invalid_grant' });
  });

  it('client credentials with an EdDSA key: a DPoP-bound token after one nonce retry', async () => {
    const handle = await dpop({ keyPair: await generateDpopKeyPair('EdDSA') });
    const tokens = await clientCredentials({ provider, client: { clientId: 'dpop-service' }, clientAuth: clientSecretBasic(SECRET), scope: 'api.read', http, dpop: handle });
    expect(tokens.tokenType).toBe('DPoP');
    expect(sent.map((s) => s.status)).toEqual([400, 200]);
  });

  it("protectedResourceRequest: the app's own request to a DPoP-protected resource (the provider's userinfo)", async () => {
    const handle = await dpop();
    const tokens = await login(handle);
    handle.rememberNonce(new URL(op.issuer).origin, 'a-nonce-the-provider-never-issued');
    sent.length = 0;
    const response = await protectedResourceRequest(handle, tokens.accessToken, provider.userinfo_endpoint!, { headers: { Accept: 'application/json' } }, http);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ sub: 'alice' });
    expect(sent.map((s) => s.status)).toEqual([401, 200]);
  });
});
