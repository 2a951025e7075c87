// getUserInfo(client) against the reference server over HTTP (child process, CORS as in a browser).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserClient, getUserInfo, memoryStorage } from '../src/index';
import { createTab, loggedInTab, startProvider, type Provider } from './harness';

let provider: Provider;
beforeAll(async () => {
  provider = await startProvider();
});
afterAll(() => provider.stop());

describe('getUserInfo(client)', () => {
  it("returns the logged-in user's claims from the userinfo endpoint", async () => {
    const tab = await loggedInTab(provider);
    const before = await provider.count('/oidc/userinfo', 'GET');
    expect(await getUserInfo(tab.client)).toMatchObject({ sub: 'alice', name: 'Alice Liddell', email: 'alice@example.com' });
    expect(await provider.count('/oidc/userinfo', 'GET')).toBe(before + 1);
  });

  it("sends with the client's network settings, and refuses an answer about another user, keeping the session", async () => {
    // The client's fetch, with the userinfo answer swapped for someone else's (a misbehaving provider).
    const swapping: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!String(input instanceof Request ? input.url : input).endsWith('/oidc/userinfo')) return response;
      return Response.json({ ...((await response.json()) as object), sub: 'mallory' });
    };
    const tab = await loggedInTab(provider, {}, { http: { fetch: swapping } });
    await expect(getUserInfo(tab.client)).rejects.toMatchObject({ code: 'userinfo_sub_mismatch' });
    expect(tab.client.getUser()?.sub).toBe('alice');
    expect(tab.client.getSnapshot().status).toBe('authenticated');
  });

  it('needs a session: login_required, no request', async () => {
    const tab = createTab(provider);
    const before = await provider.count('/oidc/userinfo', 'GET');
    await expect(getUserInfo(tab.client)).rejects.toMatchObject({ code: 'login_required' });
    expect(await provider.count('/oidc/userinfo', 'GET')).toBe(before);
  });

  it('works over any client that offers the public API it uses (a test double), and the client exposes no token beyond getAccessToken', async () => {
    const storage = memoryStorage();
    const tab = await loggedInTab(provider, { tokenStorage: storage });
    const c = tab.client;
    const double: Pick<BrowserClient, 'getAccessToken' | 'getUser' | 'getProvider' | 'http'> = {
      getAccessToken: () => c.getAccessToken(),
      getUser: () => c.getUser(),
      getProvider: () => c.getProvider(),
      http: c.http,
    };
    expect(await getUserInfo(double)).toMatchObject({ sub: 'alice' });
    // No side channel: nothing reachable from the client object holds the refresh token.
    const [key] = await storage.keys();
    const refreshToken = (JSON.parse((await storage.get(key!)) ?? '{}') as { refreshToken?: string }).refreshToken;
    expect(refreshToken).toBeTruthy();
    expect(JSON.stringify(c, (_key, value) => (typeof value === 'function' ? String(value) : value))).not.toContain(refreshToken);
    expect(Object.keys(c).sort()).toEqual(
      ['dpop', 'getAccessToken', 'getProvider', 'getSnapshot', 'getUser', 'handleRedirectCallback', 'http', 'init', 'isRedirectCallback', 'login', 'logout', 'on', 'resources', 'subscribe'].sort(),
    );
  });
});
