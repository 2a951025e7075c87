// The session layer over real HTTP: an app on node:http (through the Express-style adapter)
// and the reference server, both on port 0, driven like a browser through the real login form.
// Lifetimes move with a fake Date shared by the app, the SDK and the in-process server.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemorySessionStore } from '../src/index';
import { Agent, SECRET, type SessionWorld, startSessionWorld } from './support/session-app';

let world: SessionWorld;
beforeAll(async () => {
  world = await startSessionWorld({ accessTokenLifetime: 120 });
});
afterAll(() => world.close());
afterEach(() => {
  vi.useRealTimers();
});

/** Moves the shared clock forward (fake Date only: sockets and timers stay real). */
function advance(seconds: number): void {
  if (!vi.isFakeTimers()) vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  vi.setSystemTime(Date.now() + seconds * 1000);
}

const sessionCookies = (response: Response) => response.headers.getSetCookie().filter((c) => c.startsWith('oidc-rp.session'));

describe('login and session read', () => {
  it('logs in through the provider, lands on returnTo with a sealed HttpOnly SameSite=Lax cookie, and reads the session', async () => {
    world.use();
    const agent = new Agent(world.appOrigin);
    const callback = await agent.logIn({ returnTo: '/me?tab=profile' });
    expect(callback.status).toBe(303);
    expect(callback.headers.get('location')).toBe('/me?tab=profile');
    const [cookie] = sessionCookies(callback);
    expect(cookie).toMatch(/^oidc-rp\.session=[\w-]+(\.[\w-]*){4}; Max-Age=86400; Path=\/; HttpOnly; SameSite=Lax$/);
    // The transaction cookie of the login is cleared.
    expect(callback.headers.getSetCookie().some((c) => c.startsWith('oidc-rp.tx.') && c.includes('Max-Age=0'))).toBe(true);

    const { status, body } = await agent.json<{ user: Record<string, unknown>; accessToken: string }>('/me');
    expect(status).toBe(200);
    expect(body.user).toMatchObject({ sub: 'alice', name: 'Alice Liddell', email: 'alice@example.com', iss: world.issuer, aud: 'web' });
    expect(body.user).not.toHaveProperty('nonce');
    expect(body.user).not.toHaveProperty('at_hash');
    expect(body.accessToken).toEqual(expect.any(String));
    // Sealed: the browser cannot read the tokens or claims.
    expect(cookie).not.toContain(body.accessToken);
    expect(cookie).not.toContain('alice');
  });

  it('never redirects to another origin after login (open redirect)', async () => {
    world.use();
    for (const returnTo of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
      const callback = await new Agent(world.appOrigin).logIn({ returnTo });
      expect(callback.headers.get('location')).toBe('/');
    }
  });

  it('a protected route sends a signed-out browser to login with returnTo, and an API call gets 401 JSON', async () => {
    world.use();
    const agent = new Agent(world.appOrigin);
    const page = await agent.request('/me?x=1', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe('/auth/login?returnTo=%2Fme%3Fx%3D1');
    const api = await agent.json('/me');
    expect(api.status).toBe(401);
    expect(api.body).toMatchObject({ error: 'login_required', reason: 'no_session' });
  });

  it('a callback without a pending login shows the error code instead of a session', async () => {
    world.use();
    const response = await new Agent(world.appOrigin).request('/auth/callback?code=x&state=y');
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('transaction_not_found');
    expect(sessionCookies(response)).toEqual([]);
  });
});

describe('refresh and expiry', () => {
  it('refreshes an expired access token on read, once for parallel requests carrying the same cookie', async () => {
    world.use();
    const agent = new Agent(world.appOrigin);
    await agent.logIn();
    const before = (await agent.json<{ accessToken: string }>('/me')).body.accessToken;
    const refreshesBefore = world.count('POST', '/oauth/token');
    const oldCookie = agent.cookieHeader();

    // The code exchange states no lifetime: taken as unknownAccessTokenLifetime (300 s).
    advance(301);
    const parallel = await Promise.all(
      [...Array(4)].map(() => fetch(`${world.appOrigin}/me`, { headers: { cookie: oldCookie, accept: 'application/json' } })),
    );
    const tokens = await Promise.all(parallel.map(async (r) => ((await r.json()) as { accessToken: string }).accessToken));
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).not.toBe(before);
    expect(world.count('POST', '/oauth/token') - refreshesBefore).toBe(1);
    // The refreshed session comes back as a new cookie.
    for (const response of parallel) expect(sessionCookies(response)).toHaveLength(1);

    // The new cookie carries the new token without another refresh.
    agent.jar.store(new URL(world.appOrigin), parallel[0] as Response);
    expect((await agent.json<{ accessToken: string }>('/me')).body.accessToken).toBe(tokens[0]);
    expect(world.count('POST', '/oauth/token') - refreshesBefore).toBe(1);
  });

  it('getAccessToken returns a refreshed token with the cookie to send', async () => {
    world.use();
    const agent = new Agent(world.appOrigin);
    await agent.logIn();
    const first = (await agent.json<{ accessToken: string }>('/token')).body.accessToken;
    advance(250); // within the 60 s leeway of the assumed 300 s
    const response = await agent.json<{ accessToken: string }>('/token');
    expect(response.body.accessToken).not.toBe(first);
    expect(sessionCookies(response.response)).toHaveLength(1);
    agent.jar.store(new URL(world.appOrigin), response.response);
    // The refresh answer states 120 s: refreshed again once that is nearly over, not before.
    advance(30);
    expect((await agent.json<{ accessToken: string }>('/token')).body.accessToken).toBe(response.body.accessToken);
    advance(40);
    expect((await agent.json<{ accessToken: string }>('/token')).body.accessToken).not.toBe(response.body.accessToken);
  });

  it('forceRefresh refreshes a token that has not expired (after a 401 from an API)', async () => {
    world.use();
    const agent = new Agent(world.appOrigin);
    await agent.logIn();
    const first = (await agent.json<{ accessToken: string }>('/token')).body.accessToken;
    const refreshesBefore = world.count('POST', '/oauth/token');
    const forced = await agent.json<{ accessToken: string }>('/token?force=1');
    expect(forced.body.accessToken).not.toBe(first);
    expect(world.count('POST', '/oauth/token') - refreshesBefore).toBe(1);
  });

  it('signs out with reason refresh_failed when the provider refuses the refresh token', async () => {
    world.use();
    const agent = new Agent(world.appOrigin);
    await agent.logIn();
    const refreshToken = world.refreshTokens.at(-1) as string;
    const revoked = await fetch(`${world.issuer}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: refreshToken, token_type_hint: 'refresh_token', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' }),
    });
    expect(revoked.status).toBe(200);
    advance(301);
    const { body, response } = await agent.json('/state');
    expect(body).toEqual({ signedIn: false, reason: 'refresh_failed', error: 'token_endpoint_error' });
    expect(sessionCookies(response).every((c) => c.includes('Max-Age=0'))).toBe(true);
    expect((await agent.json('/state')).body).toMatchObject({ signedIn: false, reason: 'no_session' });
  });

  it('keeps the session when the provider cannot be reached for a refresh, and refreshes once it can', async () => {
    world.use();
    const agent = new Agent(world.appOrigin);
    await agent.logIn();
    advance(301);
    world.providerDown = true;
    try {
      const { body, response } = await agent.json('/state');
      expect(body).toEqual({ signedIn: true, reason: null, error: 'network_error' });
      expect(sessionCookies(response).some((c) => c.includes('Max-Age=0'))).toBe(false);
      expect((await agent.json('/token')).status).toBe(401); // getAccessToken: no fresh token to give
    } finally {
      world.providerDown = false;
    }
    const recovered = await agent.json<{ accessToken: string }>('/token');
    expect(recovered.status).toBe(200);
    expect((await agent.json('/state')).body).toEqual({ signedIn: true, reason: null, error: null });
  });

  it('rolls the expiry with activity and ends the session after rollingDuration idle', async () => {
    world.use({ rollingDuration: 600, absoluteDuration: 100_000, refreshLeeway: 0 });
    const agent = new Agent(world.appOrigin);
    await agent.logIn();
    advance(400);
    const active = await agent.json<{ expiresAt: number }>('/me');
    expect(active.status).toBe(200);
    expect(active.body.expiresAt).toBe(Math.floor(Date.now() / 1000) + 600); // rolled
    advance(400); // 800 s after login, 400 s after the last request: still in
    expect((await agent.json('/state')).body).toMatchObject({ signedIn: true });
    const idleCookie = agent.cookieHeader();
    advance(601);
    // The browser drops the cookie at its Max-Age; one sent anyway (clock skew) is refused as expired.
    expect(agent.cookieHeader()).toBe('');
    const late = await agent.json('/state', { cookie: idleCookie });
    expect(late.body).toEqual({ signedIn: false, reason: 'expired', error: null });
    expect(sessionCookies(late.response).every((c) => c.includes('Max-Age=0'))).toBe(true);
  });

  it('ends an active session at absoluteDuration', async () => {
    world.use({ rollingDuration: 600, absoluteDuration: 1000, refreshLeeway: 0 });
    const agent = new Agent(world.appOrigin);
    await agent.logIn();
    advance(500);
    expect((await agent.json('/state')).body).toMatchObject({ signedIn: true });
    const cookie = agent.cookieHeader();
    advance(501);
    expect((await agent.json('/state', { cookie })).body).toMatchObject({ signedIn: false, reason: 'expired' });
  });
});

describe('cookies that cannot be trusted', () => {
  async function loggedIn() {
    world.use();
    const agent = new Agent(world.appOrigin);
    await agent.logIn();
    return agent;
  }

  it('a tampered cookie signs out with reason invalid and is cleared', async () => {
    const agent = await loggedIn();
    const [name, value] = agent.cookieHeader().split('=') as [string, string];
    const parts = value.split('.');
    parts[3] = ((parts[3] as string)[0] === 'A' ? 'B' : 'A') + (parts[3] as string).slice(1);
    const { body, response } = await agent.json('/state', { cookie: `${name}=${parts.join('.')}` });
    expect(body).toEqual({ signedIn: false, reason: 'invalid', error: null });
    expect(sessionCookies(response)).toEqual(['oidc-rp.session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax']);
  });

  it('a cookie sealed with another secret is invalid; one sealed with a rotated-out secret still opens', async () => {
    const agent = await loggedIn();
    world.use({ secret: 'test-different-qozQHmqBJQpd3nMPVyZvk2p9YyvJkTi7' });
    expect((await agent.json('/state')).body).toMatchObject({ signedIn: false, reason: 'invalid' });
    const again = await loggedIn();
    world.use({ secret: ['test-rotated-g9MS8TZjrgTmN8daxkFuatZ-t_r4PB4N', SECRET] });
    expect((await again.json('/state')).body).toMatchObject({ signedIn: true });
  });

  it('garbage is invalid, never a server error', async () => {
    world.use();
    for (const cookie of ['oidc-rp.session=abc', 'oidc-rp.session=a.b.c.d.e', `oidc-rp.session=${'x'.repeat(5000)}`, 'oidc-rp.session.1=abc']) {
      const { status, body } = await new Agent(world.appOrigin).json('/state', { cookie });
      expect(status).toBe(200);
      expect(body).toMatchObject({ signedIn: false, reason: 'invalid' });
    }
  });
});

describe('logout (CSRF-safe)', () => {
  async function loggedIn() {
    world.use();
    const agent = new Agent(world.appOrigin);
    await agent.logIn();
    const { body } = await agent.json<{ csrfToken: string; id: string }>('/me');
    return { agent, csrfToken: body.csrfToken };
  }
  const form = (fields: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

  it('refuses a cross-site logout: no token, another Origin, or Sec-Fetch-Site cross-site; the session survives', async () => {
    const { agent, csrfToken } = await loggedIn();
    const attempts = [
      form({}),
      form({ csrf_token: 'guessed' }),
      { ...form({ csrf_token: csrfToken }), headers: { ...form({}).headers, origin: 'http://evil.example' } },
      { ...form({ csrf_token: csrfToken }), headers: { ...form({}).headers, 'sec-fetch-site': 'cross-site' } },
    ];
    for (const attempt of attempts) {
      const response = await agent.request('/auth/logout', attempt);
      expect(response.status).toBe(403);
      expect(sessionCookies(response)).toEqual([]);
    }
    expect((await agent.json('/state')).body).toMatchObject({ signedIn: true });
  });

  it('a GET (a link, an image) does not log out: it shows a confirmation form with the token', async () => {
    const { agent, csrfToken } = await loggedIn();
    const response = await agent.request('/auth/logout');
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('method="post"');
    expect(page).toContain(`value="${csrfToken}"`);
    expect((await agent.json('/state')).body).toMatchObject({ signedIn: true });
  });

  it('a same-origin POST with the token ends the session and the provider\u2019s (id_token_hint)', async () => {
    const { agent, csrfToken } = await loggedIn();
    const response = await agent.request('/auth/logout', { ...form({ csrf_token: csrfToken }), headers: { ...form({}).headers, origin: world.appOrigin } });
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location') as string);
    expect(`${location.origin}${location.pathname}`).toBe(`${world.issuer}/oidc/logout`);
    expect(location.searchParams.get('id_token_hint')).toEqual(expect.any(String));
    expect(location.searchParams.get('post_logout_redirect_uri')).toBe(`${world.appOrigin}/`);
    expect(sessionCookies(response).every((c) => c.includes('Max-Age=0'))).toBe(true);
    expect((await agent.json('/state')).body).toMatchObject({ signedIn: false, reason: 'no_session' });
  });

  it('the x-csrf-token header works for fetch-based logout', async () => {
    const { agent, csrfToken } = await loggedIn();
    world.use({ idpLogout: false, postLogoutRedirect: '/bye' });
    const response = await agent.request('/auth/logout', { method: 'POST', headers: { 'x-csrf-token': csrfToken } });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(`${world.appOrigin}/bye`);
  });
});

describe('large sessions', () => {
  it('chunks a session over ~4 KB into several cookies and reads it back', async () => {
    world.use();
    const agent = new Agent(world.appOrigin);
    const callback = await agent.logIn({ username: 'bigclaims' });
    const cookies = sessionCookies(callback);
    expect(cookies.length).toBeGreaterThan(1);
    expect(cookies.map((c) => c.split('=')[0])).toEqual(cookies.map((_, i) => `oidc-rp.session.${i}`));
    for (const cookie of cookies) expect(cookie.length).toBeLessThan(4096);
    const { body } = await agent.json<{ user: { picture: string } }>('/me');
    expect(body.user.picture).toHaveLength('https://pictures.example.com/'.length + 2000);

    // A missing chunk is an incomplete session: invalid, and every chunk is cleared.
    const withoutFirst = agent.cookieHeader().split('; ').filter((c) => !c.startsWith('oidc-rp.session.0=')).join('; ');
    const broken = await agent.json('/state', { cookie: withoutFirst });
    expect(broken.body).toMatchObject({ signedIn: false, reason: 'invalid' });
    expect(sessionCookies(broken.response).filter((c) => c.includes('Max-Age=0'))).toHaveLength(cookies.length - 1);
  });

  it('a session too large for cookies fails the login with session_too_large; with a store it works in one small cookie', async () => {
    world.use();
    const refused = await new Agent(world.appOrigin).logIn({ username: 'hugeclaims' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('session_too_large');

    world.use({ store: new MemorySessionStore() });
    const agent = new Agent(world.appOrigin);
    const callback = await agent.logIn({ username: 'hugeclaims' });
    const cookies = sessionCookies(callback);
    expect(cookies).toHaveLength(1);
    expect((cookies[0] as string).length).toBeLessThan(400);
    expect((await agent.json<{ user: { sub: string } }>('/me')).body.user.sub).toBe('hugeclaims');
  });

  it('with a store, revokeSession ends a session from the back end (reason revoked)', async () => {
    const auth = world.use({ store: new MemorySessionStore() });
    const agent = new Agent(world.appOrigin);
    await agent.logIn();
    const { body } = await agent.json<{ id: string }>('/me');
    await auth.revokeSession(body.id);
    expect((await agent.json('/state')).body).toMatchObject({ signedIn: false, reason: 'revoked' });
  });

  it('a new login replaces the previous session in the store (no fixation)', async () => {
    const store = new MemorySessionStore();
    world.use({ store });
    const agent = new Agent(world.appOrigin);
    await agent.logIn();
    const first = (await agent.json<{ id: string }>('/me')).body.id;
    const oldCookie = agent.cookieHeader();
    await agent.logIn();
    const second = (await agent.json<{ id: string }>('/me')).body.id;
    expect(second).not.toBe(first);
    expect(await store.get(first)).toBeUndefined();
    expect((await agent.json('/state', { cookie: oldCookie })).body).toMatchObject({ reason: 'revoked' });
  });
});
