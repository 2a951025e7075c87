import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { implicitFlow } from '../src/index';
import { createTab, fakeClock, startProvider, type Provider } from './harness';

// The deprecated implicit flow: tokens in the fragment, no refresh token.
let provider: Provider;
beforeAll(async () => {
  provider = await startProvider({ accessTokenLifetime: 60 });
});
afterAll(async () => {
  vi.useRealTimers();
  await provider.stop();
});

async function implicitCallback() {
  const tab = createTab(provider, {}, { implicitFlow, scope: 'openid profile email' });
  await tab.client.login();
  const authorize = new URL(tab.redirects[0]!);
  expect(authorize.searchParams.get('response_type')).toBe('id_token token');
  expect(authorize.searchParams.get('nonce')).toBeTruthy();
  expect(authorize.searchParams.has('code_challenge')).toBe(false);
  const callbackUrl = await provider.login(authorize.href);
  expect(new URL(callbackUrl).hash).toContain('access_token=');
  return { tab, callbackUrl };
}

describe('implicit flow (deprecated)', () => {
  it('logs in from the fragment, cleans it from the address bar, and ends when the token expires', async () => {
    const { tab, callbackUrl } = await implicitCallback();
    tab.url = callbackUrl;
    const snapshot = await tab.client.init();
    expect(snapshot).toMatchObject({ status: 'authenticated', user: { sub: 'alice' } });
    expect(snapshot.expiresAt).toBeGreaterThan(Date.now() / 1000);
    expect(tab.url).toBe('http://127.0.0.1:5173/callback');
    expect(await tab.client.getAccessToken()).toBeTruthy();

    const clock = fakeClock(provider);
    await clock.advance(31); // within the default leeway, capped at half the 60 s lifetime
    await expect(tab.client.getAccessToken()).rejects.toMatchObject({ code: 'login_required' });
    expect(tab.client.getSnapshot().status).toBe('unauthenticated');
    vi.useRealTimers();
    await provider.resetClock();
  });

  it('refuses an access token swapped in the fragment (at_hash)', async () => {
    const { tab, callbackUrl } = await implicitCallback();
    const url = new URL(callbackUrl);
    const fragment = new URLSearchParams(url.hash.slice(1));
    fragment.set('access_token', `${fragment.get('access_token')}x`);
    url.hash = fragment.toString();
    await expect(tab.client.handleRedirectCallback(url.href)).rejects.toMatchObject({ code: 'id_token_at_hash_mismatch' });
    expect(tab.client.getSnapshot().status).toBe('error');
  });
});
