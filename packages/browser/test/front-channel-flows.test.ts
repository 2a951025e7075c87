import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hybridFlow, idTokenFlow, type HybridResponseType } from '../src/index';
import { createTab, startProvider, type Provider } from './harness';

// The id_token implicit flow and the hybrid flows as opt-in parts, against the reference server
// over real HTTP (its real login form): every response type in the fragment, and its refusals.
let provider: Provider;
beforeAll(async () => {
  provider = await startProvider({
    configure(config) {
      const spa = config.tenants[0]?.clients?.find((client) => client.client_id === 'spa');
      if (!spa) throw new Error('the demo config has no spa client');
      spa.response_types = ['code', 'id_token token', 'id_token', 'code id_token', 'code token', 'code token id_token'];
    },
  });
});
afterAll(() => provider.stop());

async function loginWith(implicitFlow: ReturnType<typeof hybridFlow>, expectedType: string) {
  const tab = createTab(provider, {}, { implicitFlow, scope: 'openid profile email offline_access' });
  await tab.client.login();
  const authorize = new URL(tab.redirects[0]!);
  expect(authorize.searchParams.get('response_type')).toBe(expectedType);
  expect(authorize.searchParams.get('nonce')).toBeTruthy();
  expect(authorize.searchParams.has('response_mode')).toBe(false); // the fragment, each type's default
  const callbackUrl = await provider.login(authorize.href);
  expect(new URL(callbackUrl).search).toBe('');
  return { tab, callbackUrl, authorize };
}

describe('idTokenFlow: response_type=id_token in the fragment', () => {
  it('signs in from the ID token alone: no PKCE, no token request, the fragment cleaned from the address bar', async () => {
    const tokenRequests = await provider.count('/oidc/token');
    const { tab, callbackUrl, authorize } = await loginWith(idTokenFlow, 'id_token');
    expect(authorize.searchParams.has('code_challenge')).toBe(false);
    expect([...new URLSearchParams(new URL(callbackUrl).hash.slice(1)).keys()].sort()).toEqual(['id_token', 'iss', 'state']);
    tab.url = callbackUrl;
    const snapshot = await tab.client.init();
    expect(snapshot).toMatchObject({ status: 'authenticated', user: { sub: 'alice' } });
    expect(tab.url).toBe('http://127.0.0.1:5173/callback');
    expect(await provider.count('/oidc/token')).toBe(tokenRequests);
  });

  it('refuses an ID token whose signature does not verify', async () => {
    await provider.fault('spa', 'id_token_bad_signature', 1);
    const { tab, callbackUrl } = await loginWith(idTokenFlow, 'id_token');
    await expect(tab.client.handleRedirectCallback(callbackUrl)).rejects.toMatchObject({ code: 'id_token_signature_invalid' });
    expect(tab.client.getSnapshot().status).toBe('error');
  });
});

describe.each<HybridResponseType>(['code id_token', 'code token id_token', 'code token'])('hybridFlow(%s)', (responseType) => {
  it('validates the front channel, redeems the code with PKCE and keeps the token endpoint\u2019s tokens (refresh token included)', async () => {
    const tokenRequests = await provider.count('/oidc/token');
    const { tab, callbackUrl, authorize } = await loginWith(hybridFlow(responseType), responseType);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    tab.url = callbackUrl;
    expect(await tab.client.init()).toMatchObject({ status: 'authenticated', user: { sub: 'alice' } });
    expect(tab.url).toBe('http://127.0.0.1:5173/callback');
    expect(await provider.count('/oidc/token')).toBe(tokenRequests + 1);
    expect(await tab.client.getAccessToken()).toBeTruthy();
    // The refresh token came from the code exchange.
    expect(await tab.client.getAccessToken({ forceRefresh: true })).toBeTruthy();
  });

  it('refuses a response of another login (state) before any token request', async () => {
    await provider.fault('spa', 'redirect_wrong_state', 1);
    const tokenRequests = await provider.count('/oidc/token');
    const { tab, callbackUrl } = await loginWith(hybridFlow(responseType), responseType);
    await expect(tab.client.handleRedirectCallback(callbackUrl)).rejects.toMatchObject({ code: 'transaction_not_found' });
    expect(await provider.count('/oidc/token')).toBe(tokenRequests);
  });
});

describe('hybridFlow refusals of the front-channel ID token, before the code is redeemed', () => {
  it.each<[HybridResponseType, Parameters<Provider['fault']>[1], string]>([
    ['code id_token', 'id_token_bad_c_hash', 'id_token_c_hash_mismatch'],
    ['code id_token', 'id_token_missing_c_hash', 'id_token_c_hash_missing'],
    ['code token id_token', 'id_token_bad_at_hash', 'id_token_at_hash_mismatch'],
    ['code token id_token', 'id_token_bad_c_hash', 'id_token_c_hash_mismatch'],
    ['code id_token', 'id_token_nonce_mismatch', 'id_token_nonce_mismatch'],
  ])('%s with %s → %s', async (responseType, fault, code) => {
    await provider.fault('spa', fault, 1);
    const tokenRequests = await provider.count('/oidc/token');
    const { tab, callbackUrl } = await loginWith(hybridFlow(responseType), responseType);
    await expect(tab.client.handleRedirectCallback(callbackUrl)).rejects.toMatchObject({ code });
    expect(tab.client.getSnapshot().status).toBe('error');
    expect(await provider.count('/oidc/token')).toBe(tokenRequests);
  });

  it('hybridFlow refuses another response type with invalid_options', () => {
    expect(() => hybridFlow('id_token token' as HybridResponseType)).toThrow(expect.objectContaining({ code: 'invalid_options' }));
  });
});
