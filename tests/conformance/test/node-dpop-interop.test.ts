// DPoP (RFC 9449) through @oidc-rp/node's createNodeClient({ dpop }) against oidc-provider (a
// certified OpenID Provider) with DPoP-bound tokens and server nonces required, over real HTTP
// on 127.0.0.1: client credentials (one nonce retry, then the nonce and the cached token reused)
// and a confidential code flow with dpop_jkt, refresh and userinfo. The provider is the judge:
// a proof it refuses, or a token not bound to the key, fails these tests.
import { type DpopHandle, MemoryTokenCache, createNodeClient, dpop } from '@oidc-rp/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type InteropClient, type RunningOidcProvider, startOidcProvider } from './support/oidc-provider';

const REDIRECT = 'http://127.0.0.1:5173/callback';
const SECRET = 'node-dpop-interop-client-secret-0123456789';
const CLIENTS: InteropClient[] = [
  {
    client_id: 'node-dpop-web',
    client_secret: SECRET,
    token_endpoint_auth_method: 'client_secret_basic',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    dpop_bound_access_tokens: true,
  },
  {
    client_id: 'node-dpop-service',
    client_secret: SECRET,
    token_endpoint_auth_method: 'client_secret_basic',
    redirect_uris: [REDIRECT],
    grant_types: ['client_credentials'],
    dpop_bound_access_tokens: true,
  },
];

let op: RunningOidcProvider;
/** Every request the client sent: path, status, the nonce its proof carried and its Authorization scheme. */
const sent: { path: string; status: number; nonce?: string; scheme?: string }[] = [];
const recordingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const headers = new Headers(init?.headers);
  const proof = headers.get('dpop');
  const nonce = proof ? JSON.parse(Buffer.from(proof.split('.')[1] ?? '', 'base64url').toString()).nonce : undefined;
  sent.push({ path: new URL(String(input)).pathname, status: response.status, nonce, scheme: headers.get('authorization')?.split(' ')[0] });
  return response;
};

beforeAll(async () => {
  op = await startOidcProvider(CLIENTS, { dpop: { requireNonce: true } });
});
afterAll(() => op?.close());
beforeEach(() => {
  sent.length = 0;
});

function serviceClient(handle: DpopHandle, tokenCache = new MemoryTokenCache()) {
  return createNodeClient({
    issuer: op.issuer,
    clientId: 'node-dpop-service',
    clientSecret: SECRET,
    grants: ['client_credentials'],
    fetch: recordingFetch,
    dpop: handle,
    tokenCache,
  });
}

describe('@oidc-rp/node with DPoP against oidc-provider (nonces required)', () => {
  it('client credentials: a DPoP-bound token after one nonce retry, then served from the cache', async () => {
    const handle = await dpop();
    const client = serviceClient(handle);
    const tokens = await client.getClientCredentialsToken({ scope: 'api.read' });
    expect(tokens.tokenType).toBe('DPoP');
    expect(sent.filter((s) => s.path === '/token')).toEqual([
      expect.objectContaining({ status: 400, nonce: undefined }),
      expect.objectContaining({ status: 200, nonce: expect.any(String) }),
    ]);
    sent.length = 0;
    expect(await client.getClientCredentialsToken({ scope: 'api.read' })).toEqual(tokens);
    expect(sent).toEqual([]);
  });

  it('client credentials: a client with another key sharing the cache gets its own token', async () => {
    const cache = new MemoryTokenCache();
    const first = await serviceClient(await dpop(), cache).getClientCredentialsToken({ scope: 'api.read' });
    const second = await serviceClient(await dpop(), cache).getClientCredentialsToken({ scope: 'api.read' });
    expect(second.tokenType).toBe('DPoP');
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(cache.size).toBe(2);
  });

  it('code flow: dpop_jkt, bound tokens, refresh keeping the binding, userinfo with the DPoP scheme', async () => {
    const handle = await dpop();
    const client = createNodeClient({
      issuer: op.issuer,
      clientId: 'node-dpop-web',
      clientSecret: SECRET,
      redirectUri: REDIRECT,
      scope: 'openid profile email offline_access',
      grants: ['authorization_code', 'refresh_token'],
      fetch: recordingFetch,
      dpop: handle,
    });
    const { url, transaction } = await client.startLogin();
    expect(url.searchParams.get('dpop_jkt')).toBe(handle.jkt);
    const callback = await op.signIn(url);
    if (callback.type !== 'redirect') throw new Error('expected a redirect back');
    const tokens = await client.finishLogin(callback.location, transaction);
    expect(tokens).toMatchObject({ tokenType: 'DPoP', claims: { sub: 'alice' } });

    const refreshed = await client.refresh(tokens.refreshToken as string, { expectedSubject: 'alice' });
    expect(refreshed.tokenType).toBe('DPoP');

    sent.length = 0;
    await expect(client.getUserInfo(refreshed.accessToken, { expectedSubject: 'alice' })).resolves.toMatchObject({ sub: 'alice' });
    expect(sent).toEqual([expect.objectContaining({ path: '/me', status: 200, scheme: 'DPoP' })]);
  });
});
