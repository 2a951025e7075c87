import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authorizedFetch, getUserInfo, memoryStorage } from '../src/index';
import { fakeClock, loggedInTab, startProvider, userinfoStatus, type Provider } from './harness';

// Access tokens live 60 s; the code exchange says nothing about it (no expires_in), refreshes do.
let provider: Provider;
beforeAll(async () => {
  provider = await startProvider({ accessTokenLifetime: 60 });
});
afterAll(() => provider.stop());
afterEach(async () => {
  vi.useRealTimers();
  await provider.resetClock();
});

const now = () => Math.floor(Date.now() / 1000);

describe('access tokens of unknown lifetime (the first one)', () => {
  it('are used as they are, without refreshing', async () => {
    const tab = await loggedInTab(provider);
    const refreshes = await provider.count('/oauth/token');
    expect(tab.client.getSnapshot().expiresAt).toBeUndefined();
    const token = await tab.client.getAccessToken();
    expect(await tab.client.getAccessToken({ minValidity: 3600 })).toBe(token);
    expect(await provider.count('/oauth/token')).toBe(refreshes);
  });

  it('are refreshed when the resource answers 401, and the request retried once', async () => {
    const tab = await loggedInTab(provider);
    const clock = fakeClock(provider);
    const first = await tab.client.getAccessToken();
    const refreshed = vi.fn();
    tab.client.on('tokenRefreshed', refreshed);
    const refreshes = await provider.count('/oauth/token');

    await clock.advance(61); // the provider expired the token; the client could not know
    expect(await userinfoStatus(provider, first)).toBe(401);
    const response = await authorizedFetch(tab.client)(`${provider.issuer}/oidc/userinfo`);

    expect(response.status).toBe(200);
    expect(((await response.json()) as { sub: string }).sub).toBe('alice');
    expect(await provider.count('/oauth/token')).toBe(refreshes + 1);
    expect(await provider.count('/oidc/userinfo', 'GET')).toBeGreaterThanOrEqual(2);
    const second = await tab.client.getAccessToken();
    expect(second).not.toBe(first);
    expect(tab.client.getSnapshot().expiresAt).toBe(now() + 60); // known from now on
    expect(refreshed).toHaveBeenCalledWith({ expiresAt: now() + 60 });
  });
});

describe('access tokens of known lifetime', () => {
  // A session whose token came from a refresh, so its expiry is known.
  async function sessionWithKnownExpiry() {
    const tab = await loggedInTab(provider);
    const clock = fakeClock(provider);
    await clock.advance(61);
    expect((await authorizedFetch(tab.client)(`${provider.issuer}/oidc/userinfo`)).status).toBe(200);
    expect(tab.client.getSnapshot().expiresAt).toBe(now() + 60);
    return { tab, clock };
  }

  it('are refreshed by getAccessToken only once they expire within minValidity', async () => {
    const { tab, clock } = await sessionWithKnownExpiry();
    const token = await tab.client.getAccessToken({ minValidity: 10 });
    const refreshes = await provider.count('/oauth/token');

    await clock.advance(45); // 15 s left
    expect(await tab.client.getAccessToken({ minValidity: 10 })).toBe(token);
    expect(await provider.count('/oauth/token')).toBe(refreshes);

    await clock.advance(6); // 9 s left
    const renewed = await tab.client.getAccessToken({ minValidity: 10 });
    expect(renewed).not.toBe(token);
    expect(await provider.count('/oauth/token')).toBe(refreshes + 1);
    expect(await userinfoStatus(provider, renewed)).toBe(200);
  });

  it('use refreshLeeway (30 s) by default', async () => {
    const { tab, clock } = await sessionWithKnownExpiry();
    const token = await tab.client.getAccessToken();
    await clock.advance(29); // 31 s left
    expect(await tab.client.getAccessToken()).toBe(token);
    await clock.advance(2); // 29 s left
    expect(await tab.client.getAccessToken()).not.toBe(token);
  });

  it('cap the margin at half the lifetime, so a short-lived token is not refreshed on every call', async () => {
    const { tab, clock } = await sessionWithKnownExpiry();
    const refreshes = await provider.count('/oauth/token');
    const token = await tab.client.getAccessToken({ minValidity: 300 });
    expect(await tab.client.getAccessToken({ minValidity: 300 })).toBe(token);
    expect(await provider.count('/oauth/token')).toBe(refreshes);
    await clock.advance(31); // past half of the 60 s lifetime
    expect(await tab.client.getAccessToken({ minValidity: 300 })).not.toBe(token);
  });

  it('show their expiry in the snapshot, and expire without a timer or event: the next call refreshes', async () => {
    const { tab, clock } = await sessionWithKnownExpiry();
    const before = tab.client.getSnapshot();
    expect(before.expiresAt).toBe(now() + 60);
    const notified = vi.fn();
    tab.client.subscribe(notified);
    await clock.advance(61);
    expect(notified).not.toHaveBeenCalled(); // nothing runs in the background
    expect(tab.client.getSnapshot()).toBe(before);
    const refreshes = await provider.count('/oauth/token');
    await tab.client.getAccessToken();
    expect(await provider.count('/oauth/token')).toBe(refreshes + 1);
    expect(tab.client.getSnapshot().expiresAt).toBe(now() + 60);
  });
});

describe('refreshing', () => {
  it('shares one refresh between concurrent callers in a tab', async () => {
    const tab = await loggedInTab(provider);
    const clock = fakeClock(provider);
    await clock.advance(61);
    const refreshes = await provider.count('/oauth/token');
    const responses = await Promise.all([1, 2, 3].map(() => authorizedFetch(tab.client)(`${provider.issuer}/oidc/userinfo`)));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await provider.count('/oauth/token')).toBe(refreshes + 1);
  });

  it('getAccessToken({ rejected }) renews a refused token once; a later caller with the same refused token gets the new one, no second refresh', async () => {
    const tab = await loggedInTab(provider);
    const refused = await tab.client.getAccessToken();
    const clock = fakeClock(provider);
    await clock.advance(61);
    const refreshes = await provider.count('/oauth/token');
    const renewed = await tab.client.getAccessToken({ rejected: refused });
    expect(renewed).not.toBe(refused);
    expect(await tab.client.getAccessToken({ rejected: refused })).toBe(renewed); // a 401 that arrived late
    expect(await provider.count('/oauth/token')).toBe(refreshes + 1);
    expect(await userinfoStatus(provider, renewed)).toBe(200);
  });

  it('ends the session when the provider refuses the refresh token (invalid_grant)', async () => {
    const storage = memoryStorage();
    const tab = await loggedInTab(provider, { tokenStorage: storage });
    const clock = fakeClock(provider);
    const [key] = await storage.keys();
    const original = (await storage.get(key!))!;
    await clock.advance(61);
    await authorizedFetch(tab.client)(`${provider.issuer}/oidc/userinfo`); // rotates the refresh token
    await clock.advance(61);
    await storage.set(key!, original); // someone replays the first, already used, refresh token
    const errors = vi.fn();
    tab.client.on('error', errors);

    const response = await authorizedFetch(tab.client)(`${provider.issuer}/oidc/userinfo`);

    expect(response.status).toBe(401); // the first 401, not retried
    expect(tab.client.getSnapshot()).toMatchObject({ status: 'unauthenticated', error: { code: 'token_endpoint_error', error: 'invalid_grant' } });
    expect(errors).toHaveBeenCalledWith(expect.objectContaining({ error: 'invalid_grant' }));
    expect(await storage.get(key!)).toBeNull();
    await expect(tab.client.getAccessToken()).rejects.toMatchObject({ code: 'login_required' });
  });

  it.each([
    ['refresh_id_token_wrong_sub', 'id_token_sub_mismatch'],
    ['refresh_id_token_wrong_iss', 'id_token_iss_mismatch'],
  ] as const)('ends the session when the refreshed ID token is refused (%s → %s): tokens dropped, subscribers told, the old token never used again', async (fault, code) => {
    const storage = memoryStorage();
    const tab = await loggedInTab(provider, { tokenStorage: storage });
    const [key] = await storage.keys();
    expect(await storage.get(key!)).not.toBeNull();
    const snapshots: string[] = [];
    tab.client.subscribe(() => snapshots.push(tab.client.getSnapshot().status));
    const errors = vi.fn();
    tab.client.on('error', errors);
    await provider.fault('spa', fault, 1);

    await expect(tab.client.getAccessToken({ forceRefresh: true })).rejects.toMatchObject({ code });

    expect(tab.client.getSnapshot()).toMatchObject({ status: 'unauthenticated', error: { code } });
    expect(tab.client.getSnapshot().idToken).toBeUndefined();
    expect(snapshots).toEqual(['unauthenticated']);
    expect(errors).toHaveBeenCalledWith(expect.objectContaining({ code }));
    expect(tab.client.getUser()).toBeUndefined();
    expect(await storage.get(key!)).toBeNull();
    // Neither the old access token nor the refused new one reaches the resource any more.
    const userinfoCalls = await provider.count('/oidc/userinfo', 'GET');
    await expect(tab.client.getAccessToken()).rejects.toMatchObject({ code: 'login_required' });
    await expect(getUserInfo(tab.client)).rejects.toMatchObject({ code: 'login_required' });
    expect((await authorizedFetch(tab.client)(`${provider.issuer}/oidc/userinfo`).catch((error: { code: string }) => error)) as unknown).toMatchObject({ code: 'login_required' });
    expect(await provider.count('/oidc/userinfo', 'GET')).toBe(userinfoCalls);
  });

  it('keeps the session when the network fails, and recovers once it is back', async () => {
    let offline = false;
    const tab = await loggedInTab(
      provider,
      {},
      {
        http: {
          // The token endpoint becomes unreachable; the resource stays up.
          fetch: (input, init) =>
            offline && String(input).includes('/oauth/token') ? Promise.reject(new TypeError('Failed to fetch')) : fetch(input, init),
        },
      },
    );
    const clock = fakeClock(provider);
    await clock.advance(61);
    const errors = vi.fn();
    tab.client.on('error', errors);

    offline = true;
    const failed = await authorizedFetch(tab.client)(`${provider.issuer}/oidc/userinfo`);
    expect(failed.status).toBe(401);
    expect(errors).toHaveBeenCalledWith(expect.objectContaining({ code: 'network_error' }));
    expect(tab.client.getSnapshot().status).toBe('authenticated');

    offline = false;
    expect((await authorizedFetch(tab.client)(`${provider.issuer}/oidc/userinfo`)).status).toBe(200);
  });
});
