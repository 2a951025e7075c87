/**
 * The whole story against the reference server over real HTTP, with the browser's own parts:
 * sessionStorage, location and history of the page, Web Locks, BroadcastChannel, the page's
 * fetch (cross-origin, so the provider's CORS answers matter).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authorizedFetch, createBrowserClient, crossTab, discovery, type BrowserClientOptions } from '../src/index';
import { PAGE, REDIRECT_URI, fakeClock, startProvider, userinfoStatus, type Provider } from './harness';

let provider: Provider;
beforeAll(async () => {
  provider = await startProvider({ accessTokenLifetime: 60 });
});
afterAll(() => provider.stop());
afterEach(async () => {
  vi.useRealTimers();
  await provider.resetClock();
  history.replaceState(null, '', PAGE);
  sessionStorage.clear();
});

function appClient(redirects: string[], extra: Partial<BrowserClientOptions> = {}) {
  const real = { currentUrl: () => location.href, replaceUrl: (url: string) => history.replaceState(history.state, '', url) };
  return createBrowserClient({
    provider: discovery(provider.issuer),
    clientId: 'spa',
    redirectUri: REDIRECT_URI,
    postLogoutRedirectUri: PAGE,
    crossTab: crossTab(), // the real Web Locks and BroadcastChannel
    // Leaving the page is the one thing a test page cannot do.
    navigate: { ...real, redirect: (url) => void redirects.push(url), openPopup: () => null },
    ...extra,
  });
}

describe('browser client against the reference server over HTTP', () => {
  it('login → callback → API call → refresh with rotation → reload → logout', async () => {
    const redirects: string[] = [];
    const app = appClient(redirects, { tokenStorage: 'sessionStorage' });
    expect((await app.init()).status).toBe('unauthenticated');

    // Login: discovery, then off to the provider's login page.
    await app.login({ appState: { returnTo: '/profile' } });
    const authorize = new URL(redirects[0]!);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${provider.issuer}/oidc/authorize`);

    // The provider sends the browser back; the app boots on the callback page.
    history.replaceState(null, '', await provider.login(authorize.href));
    const callbackPage = appClient(redirects, { tokenStorage: 'sessionStorage' });
    const [snapshot, result] = await Promise.all([callbackPage.init(), callbackPage.handleRedirectCallback()]);
    expect(snapshot).toMatchObject({ status: 'authenticated', user: { sub: 'alice', name: 'Alice Liddell' } });
    expect(result.appState).toEqual({ returnTo: '/profile' });
    expect(location.href).toBe(REDIRECT_URI);

    // A protected, cross-origin API call.
    const me = await authorizedFetch(callbackPage)(`${provider.issuer}/oidc/userinfo`);
    expect(me.status).toBe(200);
    expect(((await me.json()) as { email: string }).email).toBe('alice@example.com');

    // The first token expires (its lifetime was unknown): 401, refresh, retry.
    const clock = fakeClock(provider);
    const first = await callbackPage.getAccessToken();
    await clock.advance(61);
    expect((await authorizedFetch(callbackPage)(`${provider.issuer}/oidc/userinfo`)).status).toBe(200);
    const second = await callbackPage.getAccessToken();
    expect(second).not.toBe(first);

    // Now the expiry is known: refreshed ahead of it, with the rotated refresh token.
    await clock.advance(45);
    const third = await callbackPage.getAccessToken();
    expect(third).not.toBe(second);
    expect(await userinfoStatus(provider, third)).toBe(200);
    expect(await provider.count('/oauth/token')).toBeGreaterThanOrEqual(2);

    // A reload restores the session from sessionStorage.
    vi.useRealTimers();
    await provider.resetClock();
    const reloaded = appClient(redirects, { tokenStorage: 'sessionStorage' });
    expect((await reloaded.init()).user?.sub).toBe('alice');

    // Logout: local state cleared, refresh token revoked, off to the provider's logout.
    await reloaded.logout();
    expect(reloaded.getSnapshot().status).toBe('unauthenticated');
    expect(Object.keys(sessionStorage).filter((key) => key.startsWith('oidc-rp.session'))).toEqual([]);
    expect(redirects.at(-1)).toContain(`${provider.issuer}/oidc/logout?`);
    expect((await appClient(redirects, { tokenStorage: 'sessionStorage' }).init()).status).toBe('unauthenticated');
  });

  it('keeps tokens out of Web Storage by default', async () => {
    const redirects: string[] = [];
    const app = appClient(redirects);
    await app.login();
    history.replaceState(null, '', await provider.login(redirects[0]!));
    expect((await app.init()).status).toBe('authenticated');
    const token = await app.getAccessToken();
    for (const storage of [sessionStorage, localStorage]) {
      for (const key of Object.keys(storage)) expect(storage.getItem(key)).not.toContain(token);
    }
    expect((await appClient(redirects).init()).status).toBe('unauthenticated'); // a reload starts over
  });

  it('fails cleanly when the provider does not allow the page origin (CORS)', async () => {
    const window_ = globalThis as unknown as { happyDOM: { setURL(url: string): void } };
    window_.happyDOM.setURL('http://127.0.0.1:5999/');
    try {
      const app = createBrowserClient({ provider: discovery(provider.issuer), clientId: 'spa', redirectUri: 'http://127.0.0.1:5999/callback' });
      await expect(app.login()).rejects.toMatchObject({ code: 'network_error' });
    } finally {
      window_.happyDOM.setURL(PAGE);
    }
  });

  it('says at start, as status error, that a page on another origin than the redirect URI cannot log in (development build)', async () => {
    const window_ = globalThis as unknown as { happyDOM: { setURL(url: string): void } };
    window_.happyDOM.setURL('http://localhost:5173/');
    try {
      const app = appClient([]);
      const snapshot = await app.init();
      expect(snapshot.status).toBe('error');
      expect(snapshot.error).toMatchObject({ code: 'invalid_options' });
      expect(snapshot.error?.message).toMatch(/open the app at http:\/\/127\.0\.0\.1:5173/);
      expect(app.getSnapshot()).toBe(snapshot);
    } finally {
      window_.happyDOM.setURL(PAGE);
    }
    // On the redirect URI's origin the same start is a plain signed-out state.
    expect((await appClient([]).init()).status).toBe('unauthenticated');
  });

  it('refuses at once a login started on another origin than the redirect URI (the Vite localhost / 127.0.0.1 trap)', async () => {
    const window_ = globalThis as unknown as { happyDOM: { setURL(url: string): void } };
    // What Vite prints is localhost; the registered redirect URI says 127.0.0.1.
    window_.happyDOM.setURL('http://localhost:5173/');
    try {
      const redirects: string[] = [];
      const app = appClient(redirects);
      const authorizations = await provider.count('/oidc/authorize', 'GET');
      const error = (await app.login().catch((e: unknown) => e)) as Error;
      expect(error).toMatchObject({ code: 'invalid_options' });
      expect(error.message).toContain('http://localhost:5173');
      expect(error.message).toContain('http://127.0.0.1:5173');
      expect(error.message).toMatch(/open the app at http:\/\/127\.0\.0\.1:5173, or register a redirect URI at http:\/\/localhost:5173/);
      // Nothing was started: no navigation, no transaction left in this origin's storage.
      expect(redirects).toEqual([]);
      expect(Object.keys(sessionStorage)).toEqual([]);
      expect(await provider.count('/oidc/authorize', 'GET')).toBe(authorizations);
    } finally {
      window_.happyDOM.setURL(PAGE);
    }
  });
});
