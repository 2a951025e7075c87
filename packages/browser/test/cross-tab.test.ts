import { none, refreshTokens, serviceProvider } from '@oidc-rp/core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authorizedFetch, crossTab, memoryStorage, mutexLock, revocation, type BrowserClient, type BrowserClientEvents, type StorageAdapter } from '../src/index';
import { channelHub, createTab, fakeClock, loggedInTab, startProvider, userinfoStatus, type Provider, type TabParts } from './harness';

let provider: Provider;
beforeAll(async () => {
  provider = await startProvider({ accessTokenLifetime: 60 });
});
afterAll(() => provider.stop());
afterEach(async () => {
  vi.useRealTimers();
  await provider.resetClock();
});

/** What tabs of one browser share: localStorage-like token storage, the origin's lock, BroadcastChannel. */
function browser(lock = mutexLock()) {
  const tokenStorage = memoryStorage();
  const hub = channelHub();
  return { tokenStorage, tab: (): TabParts => ({ tokenStorage, lock, channel: hub() }) };
}

function next<E extends keyof BrowserClientEvents>(client: BrowserClient, event: E): Promise<BrowserClientEvents[E]> {
  return new Promise((resolve) => {
    const off = client.on(event, (detail) => {
      off();
      resolve(detail);
    });
  });
}

/** Two tabs sharing one session whose access token expiry is known (it came from a refresh). */
async function twoTabs(shared = browser()) {
  const a = await loggedInTab(provider, shared.tab());
  const b = createTab(provider, shared.tab());
  expect((await b.client.init()).user?.sub).toBe('alice'); // restored from the shared storage
  const clock = fakeClock(provider);
  await clock.advance(61);
  const heard = next(b.client, 'tokenRefreshed');
  expect((await authorizedFetch(a.client)(`${provider.issuer}/oidc/userinfo`)).status).toBe(200);
  await heard;
  return { a, b, clock };
}

describe('tabs sharing a session', () => {
  it('refreshing at the same moment send ONE refresh request and both get the same working token', async () => {
    const { a, b, clock } = await twoTabs();
    await clock.advance(61);
    const before = await provider.count('/oauth/token');

    const [tokenA, tokenB] = await Promise.all([a.client.getAccessToken(), b.client.getAccessToken()]);

    expect(await provider.count('/oauth/token')).toBe(before + 1);
    expect(tokenA).toBe(tokenB);
    expect(await userinfoStatus(provider, tokenA)).toBe(200);
    expect(a.client.getSnapshot().status).toBe('authenticated');
    expect(b.client.getSnapshot().status).toBe('authenticated');
    // Rotation goes on working for both afterwards.
    await clock.advance(61);
    const [again] = await Promise.all([b.client.getAccessToken(), a.client.getAccessToken()]);
    expect(await provider.count('/oauth/token')).toBe(before + 2);
    expect(await userinfoStatus(provider, again)).toBe(200);
  });

  it('share one refresh when both get a 401 at the same moment', async () => {
    const { a, b, clock } = await twoTabs();
    await clock.advance(61);
    const before = await provider.count('/oauth/token');
    const responses = await Promise.all([
      authorizedFetch(a.client)(`${provider.issuer}/oidc/userinfo`),
      authorizedFetch(b.client)(`${provider.issuer}/oidc/userinfo`),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    expect(await provider.count('/oauth/token')).toBe(before + 1);
  });

  it('without a shared lock, the same race makes the provider revoke the session (what the lock prevents)', async () => {
    const shared = browser();
    const { a, clock } = await twoTabs(shared);
    const separate = createTab(provider, { tokenStorage: shared.tokenStorage, lock: mutexLock() });
    await separate.client.init();
    await clock.advance(61);
    const before = await provider.count('/oauth/token');

    const results = await Promise.allSettled([a.client.getAccessToken(), separate.client.getAccessToken()]);

    expect(await provider.count('/oauth/token')).toBe(before + 2);
    expect(results.some((r) => r.status === 'rejected')).toBe(true);
  });

  it('hear about another tab refreshing: new snapshot and tokenRefreshed, without a request of their own', async () => {
    const { a, b, clock } = await twoTabs();
    const before = b.client.getSnapshot();
    await clock.advance(61);
    const heard = next(b.client, 'tokenRefreshed');
    const refreshes = await provider.count('/oauth/token');

    await a.client.getAccessToken();
    const detail = await heard;

    expect(b.client.getSnapshot()).not.toBe(before);
    expect(detail.expiresAt).toBe(a.client.getSnapshot().expiresAt);
    expect(await b.client.getAccessToken()).toBe(await a.client.getAccessToken());
    expect(await provider.count('/oauth/token')).toBe(refreshes + 1);
  });

  it('hear about a login in another tab', async () => {
    const shared = browser();
    const b = createTab(provider, shared.tab());
    expect((await b.client.init()).status).toBe('unauthenticated');
    const heard = next(b.client, 'login');
    await loggedInTab(provider, shared.tab());
    expect((await heard).user?.sub).toBe('alice');
    expect(b.client.getSnapshot().status).toBe('authenticated');
  });

  it('are all logged out by a logout in one of them, with one revocation (revocation part)', async () => {
    const shared = browser();
    const a = await loggedInTab(provider, shared.tab(), { revocation });
    const b = createTab(provider, shared.tab(), { revocation });
    await b.client.init();
    const heard = next(b.client, 'logout');
    const revocations = await provider.count('/oauth/revoke');

    await a.client.logout({ redirect: false });
    await heard;

    expect(b.client.getSnapshot().status).toBe('unauthenticated');
    await expect(b.client.getAccessToken()).rejects.toMatchObject({ code: 'login_required' });
    expect(await provider.count('/oauth/revoke')).toBe(revocations + 1);
  });
});

describe('tabs with sessions of their own (memory storage)', () => {
  async function refreshTokenIn(storage: StorageAdapter): Promise<string> {
    const [key] = await storage.keys();
    return (JSON.parse((await storage.get(key!))!) as { refreshToken: string }).refreshToken;
  }

  it('a logout in one ends the others too, and each revokes its own refresh token (revocation part)', async () => {
    const hub = channelHub();
    const storageB = memoryStorage();
    const a = await loggedInTab(provider, { channel: hub() }, { revocation });
    const b = await loggedInTab(provider, { channel: hub(), tokenStorage: storageB }, { revocation });
    const refreshTokenB = await refreshTokenIn(storageB);
    const revocations = await provider.count('/oauth/revoke');
    const heard = next(b.client, 'logout');

    await a.client.logout({ redirect: false });
    await heard;
    await vi.waitFor(async () => expect(await provider.count('/oauth/revoke')).toBe(revocations + 2), { timeout: 10_000 });

    expect(b.client.getSnapshot().status).toBe('unauthenticated');
    expect(await storageB.keys()).toEqual([]);
    await expect(
      refreshTokens({ provider: serviceProvider(provider.issuer), client: { clientId: 'spa' }, clientAuth: none(), refreshToken: refreshTokenB }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it("refreshes in one tab do not touch another tab's session", async () => {
    const hub = channelHub();
    const a = await loggedInTab(provider, { channel: hub() });
    const b = await loggedInTab(provider, { channel: hub() });
    const tokenB = await b.client.getAccessToken();
    const clock = fakeClock(provider);
    await clock.advance(61);
    expect((await authorizedFetch(a.client)(`${provider.issuer}/oidc/userinfo`)).status).toBe(200);
    expect(await b.client.getAccessToken()).toBe(tokenB);
    expect((await authorizedFetch(b.client)(`${provider.issuer}/oidc/userinfo`)).status).toBe(200); // its own refresh works
  });
});

describe('tabs without the crossTab part', () => {
  it('are sessions of their own: no channel is opened, and a logout in one leaves the other logged in', async () => {
    const opened = vi.fn();
    vi.stubGlobal(
      'BroadcastChannel',
      class {
        constructor(name: string) {
          opened(name);
        }
        postMessage() {}
        addEventListener() {}
        removeEventListener() {}
      },
    );
    try {
      const a = await loggedInTab(provider);
      const b = await loggedInTab(provider);
      await a.client.logout({ redirect: false });
      expect(a.client.getSnapshot().status).toBe('unauthenticated');
      expect(b.client.getSnapshot().status).toBe('authenticated');
      expect(await userinfoStatus(provider, await b.client.getAccessToken())).toBe(200);
      expect(opened).not.toHaveBeenCalled();

      // The same tab with the part uses the browser's channel.
      const c = createTab(provider, {}, { crossTab: crossTab() });
      await c.client.init();
      expect(opened).toHaveBeenCalledWith(`oidc-rp:${provider.issuer}:spa`);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
