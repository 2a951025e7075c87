/**
 * Access tokens whose lifetime the provider does not state (the contract's code exchange has no
 * `expires_in`), with short lifetimes: what `getAccessToken()` answers before and after the
 * client learns the lifetime from a refresh, and the two ways an app recovers from a 401.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fakeClock, loggedInTab, signIn, startProvider, userinfoStatus, type Provider } from './harness';

const LIFETIME = 20;
let provider: Provider;
beforeAll(async () => {
  provider = await startProvider({ accessTokenLifetime: LIFETIME });
});
afterAll(() => provider.stop());
afterEach(async () => {
  vi.useRealTimers();
  await provider.resetClock();
});

const now = () => Math.floor(Date.now() / 1000);

describe('access tokens of unknown lifetime, living 20 s', () => {
  it('getAccessToken({ forceRefresh }) recovers from a 401, and the lifetime learned then keeps later tokens valid', async () => {
    const tab = await loggedInTab(provider);
    const clock = fakeClock(provider);
    const first = await tab.client.getAccessToken();
    expect(tab.client.getSnapshot().expiresAt).toBeUndefined();

    await clock.advance(LIFETIME + 5);
    // Without a lifetime the client cannot know: the same token, which the API now refuses.
    expect(await tab.client.getAccessToken()).toBe(first);
    expect(await userinfoStatus(provider, first)).toBe(401);

    // The app's 401 handling: one forced refresh.
    const refreshes = await provider.count('/oauth/token');
    const second = await tab.client.getAccessToken({ forceRefresh: true });
    expect(second).not.toBe(first);
    expect(await userinfoStatus(provider, second)).toBe(200);
    expect(await provider.count('/oauth/token')).toBe(refreshes + 1);
    expect(tab.client.getSnapshot().expiresAt).toBe(now() + LIFETIME);

    // From now on the expiry is known: no 401 needed, the token is renewed ahead of it.
    await clock.advance(LIFETIME - 5);
    const third = await tab.client.getAccessToken();
    expect(third).not.toBe(second);
    expect(await userinfoStatus(provider, third)).toBe(200);
    expect(await provider.count('/oauth/token')).toBe(refreshes + 2);
    // A fresh token is not refreshed again.
    expect(await tab.client.getAccessToken()).toBe(third);
    expect(await provider.count('/oauth/token')).toBe(refreshes + 2);
  });

  it("a later login's token of unknown lifetime gets the learned lifetime, so getAccessToken() never hands out an expired one", async () => {
    const tab = await loggedInTab(provider);
    await tab.client.getAccessToken({ forceRefresh: true }); // learns the 20 s
    await tab.client.logout({ redirect: false });
    await tab.client.handleRedirectCallback(await signIn(tab, provider));
    const clock = fakeClock(provider);
    const fromLogin = await tab.client.getAccessToken();
    expect(tab.client.getSnapshot().expiresAt).toBe(now() + LIFETIME);

    await clock.advance(LIFETIME + 5);
    const refreshes = await provider.count('/oauth/token');
    const renewed = await tab.client.getAccessToken();

    expect(renewed).not.toBe(fromLogin);
    expect(await userinfoStatus(provider, renewed)).toBe(200);
    expect(await provider.count('/oauth/token')).toBe(refreshes + 1);
  });

  it('forceRefresh after another caller already renewed the rejected token sends no second request', async () => {
    const tab = await loggedInTab(provider);
    const first = await tab.client.getAccessToken();
    const refreshes = await provider.count('/oauth/token');
    const [a, b] = await Promise.all([
      tab.client.getAccessToken({ forceRefresh: true }),
      tab.client.getAccessToken({ forceRefresh: true }),
    ]);
    expect(a).toBe(b);
    expect(a).not.toBe(first);
    expect(await provider.count('/oauth/token')).toBe(refreshes + 1);
  });

  it('forceRefresh without a session is login_required', async () => {
    const tab = await loggedInTab(provider);
    await tab.client.logout({ redirect: false });
    await expect(tab.client.getAccessToken({ forceRefresh: true })).rejects.toMatchObject({ code: 'login_required' });
  });

  it("the client's now option is its one clock: token expiry and the ID token's times", async () => {
    let offset = 0;
    const now = () => Math.floor(Date.now() / 1000) + offset;
    const tab = await loggedInTab(provider, {}, { now });

    offset = 100;
    await tab.client.getAccessToken({ forceRefresh: true });
    expect(tab.client.getSnapshot().expiresAt).toBe(now() + LIFETIME);

    offset = 7200; // two hours ahead: a fresh ID token looks expired to this clock
    await expect(tab.client.handleRedirectCallback(await signIn(tab, provider))).rejects.toMatchObject({ code: 'id_token_expired' });
  });
});
