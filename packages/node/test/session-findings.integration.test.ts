// The security review's findings on the session layer, each performed as the attack over real
// HTTP: the app (node:http, Hono, Express, Fastify through toWebRequest) and the reference server
// on 127.0.0.1, port 0. Lifetimes move with a fake Date shared by the app, SDK and provider.
import { type Server, createServer } from 'node:http';
import { once } from 'node:events';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemorySessionStore, type SessionAuth, sendWebResponse, toWebRequest } from '../src/index';
import { type RedisClientType, createClient } from 'redis';
import { RedisSessionStore } from '../src/redis/index';
import { open, seal } from '../src/sealing';
import { fromSealed } from '../src/session/session-record';
import { type RunningRedis, startRedisServer } from '../../../test-support/redis-server';
import { Agent, SECRET, type SessionWorld, startSessionWorld } from './support/session-app';
import { rawRequest, recordBytesRead, streamBody } from './support/raw-http';

let world: SessionWorld;
beforeAll(async () => {
  world = await startSessionWorld({ accessTokenLifetime: 120 });
});
afterAll(() => world.close());
afterEach(async () => {
  vi.useRealTimers();
  await world.provider.control.transport.clear();
});

function advance(seconds: number): void {
  if (!vi.isFakeTimers()) vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  vi.setSystemTime(Date.now() + seconds * 1000);
}

const sessionCookies = (response: { headers: Headers }) => response.headers.getSetCookie().filter((c) => c.startsWith('oidc-rp.session'));

async function signedInAgent(username = 'alice'): Promise<{ agent: Agent; csrf: string; id: string }> {
  const agent = new Agent(world.appOrigin);
  await agent.logIn({ username });
  const { body } = await agent.json<{ csrfToken: string; id: string }>('/me');
  return { agent, csrf: body.csrfToken, id: body.id };
}

/** A node:http server on 127.0.0.1:0 around a web handler, through the Node adapter. */
async function serveWeb(handler: (request: Request) => Promise<Response>): Promise<{ origin: string; server: Server; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    try {
      await sendWebResponse(res, await handler(await toWebRequest(req)));
    } catch (error) {
      res.statusCode = 500;
      res.end(String(error));
    }
  });
  return listen(server);
}

async function listen(server: Server): Promise<{ origin: string; server: Server; close(): Promise<void> }> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return {
    origin: `http://127.0.0.1:${address.port}`,
    server,
    async close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('logout revokes the refresh token (RFC 7009)', () => {
  it('cookie mode: a copy of the cookie taken before logout gets no new tokens once the access token expired', async () => {
    world.use({ idpLogout: false });
    const { agent, csrf } = await signedInAgent();
    const copy = agent.cookieHeader();
    const revocationsBefore = world.provider.requests({ path: '/oauth/revoke' }).length;

    const logout = await agent.request('/auth/logout', { method: 'POST', headers: { 'x-csrf-token': csrf } });
    expect(logout.status).toBe(303);
    expect(sessionCookies(logout)).toEqual([expect.stringMatching(/^oidc-rp\.session=; Max-Age=0/)]);
    const revocations = world.provider.requests({ path: '/oauth/revoke' }).slice(revocationsBefore);
    expect(revocations).toHaveLength(1);
    expect(revocations[0]).toMatchObject({ method: 'POST', client_id: 'web', status: 200, params: { token: '[redacted]', token_type_hint: 'refresh_token' } });

    // The attacker replays the copy after the access token's assumed 300 s: the refresh is refused.
    advance(301);
    const replay = await fetch(`${world.appOrigin}/state`, { headers: { cookie: copy } });
    expect(await replay.json()).toEqual({ signedIn: false, reason: 'refresh_failed', error: 'token_endpoint_error' });
    expect(world.provider.requests({ path: '/oauth/token', grant_type: 'refresh_token' }).at(-1)?.status).toBe(400);
  });

  it('store mode: the store entry is gone and the refresh token is revoked too', async () => {
    world.use({ idpLogout: false, store: new MemorySessionStore() });
    const { agent, csrf } = await signedInAgent();
    const copy = agent.cookieHeader();
    const before = world.provider.requests({ path: '/oauth/revoke' }).length;
    expect((await agent.request('/auth/logout', { method: 'POST', headers: { 'x-csrf-token': csrf } })).status).toBe(303);
    expect(world.provider.requests({ path: '/oauth/revoke' }).slice(before)).toEqual([
      expect.objectContaining({ status: 200, params: expect.objectContaining({ token_type_hint: 'refresh_token' }) }),
    ]);
    const replay = await fetch(`${world.appOrigin}/state`, { headers: { cookie: copy } });
    expect(await replay.json()).toEqual({ signedIn: false, reason: 'revoked', error: null });
  });

  it('a failed revocation (the provider answers 503) does not stop the logout: the cookie is cleared', async () => {
    world.use({ idpLogout: false });
    const { agent, csrf } = await signedInAgent();
    await world.provider.control.transport.set('/oauth/revoke', { status: 503 });
    const logout = await agent.request('/auth/logout', { method: 'POST', headers: { 'x-csrf-token': csrf } });
    expect(logout.status).toBe(303);
    expect(sessionCookies(logout)).toEqual([expect.stringMatching(/^oidc-rp\.session=; Max-Age=0/)]);
    expect(world.provider.requests({ path: '/oauth/revoke' }).at(-1)?.status).toBe(503);
    expect((await agent.json('/state')).body).toMatchObject({ signedIn: false, reason: 'no_session' });
  });

  it('revokeOnLogout: false sends no revocation', async () => {
    world.use({ idpLogout: false, revokeOnLogout: false });
    const { agent, csrf } = await signedInAgent();
    const before = world.provider.requests({ path: '/oauth/revoke' }).length;
    expect((await agent.request('/auth/logout', { method: 'POST', headers: { 'x-csrf-token': csrf } })).status).toBe(303);
    expect(world.provider.requests({ path: '/oauth/revoke' }).length).toBe(before);
  });
});

describe('bodies are capped before they are read', () => {
  let app: Awaited<ReturnType<typeof serveWeb>>;
  let bytesRead: number[];
  let auth: SessionAuth;
  beforeAll(async () => {
    auth = world.use({ idpLogout: false });
    // Hono on node:http through the adapter, the session layer's routes and an app form using verifyCsrf.
    const hono = new Hono();
    hono.all('/auth/*', async (c) => (await auth.handle(c.req.raw)) ?? c.notFound());
    hono.post('/form', async (c) => {
      const { session } = await auth.getSession(c.req.raw, { refresh: false });
      if (!session) return c.json({ error: 'login_required' }, 401);
      return (await auth.verifyCsrf(c.req.raw, session)) ? c.json({ ok: true }) : c.json({ error: 'csrf' }, 403);
    });
    app = await serveWeb(async (request) => hono.fetch(request));
    bytesRead = recordBytesRead(app.server);
  });
  afterAll(() => app.close());

  /** The bytes the server read on the connection that just closed (bounded wait for the close). */
  async function lastBytesRead(count: number): Promise<number> {
    for (let i = 0; i < 200 && bytesRead.length < count; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(bytesRead.length).toBe(count);
    return bytesRead[count - 1] as number;
  }

  it('a 50 MiB chunked logout POST gets 413 and the server stops reading after the cap', async () => {
    world.use({ idpLogout: false });
    const { agent, csrf } = await signedInAgent();
    const seen = bytesRead.length;
    const result = await streamBody(
      app.origin,
      '/auth/logout',
      { cookie: agent.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', origin: app.origin },
      50 * 1024 * 1024,
    );
    expect(result.status).toBe(413);
    const read = await lastBytesRead(seen + 1);
    // 16 KiB cap, plus what was in flight: nowhere near the body's size.
    expect(read).toBeLessThan(1024 * 1024);
    expect(result.written).toBeLessThan(50 * 1024 * 1024);
    // The session was not ended by the refused request.
    expect((await fetch(`${world.appOrigin}/state`, { headers: { cookie: agent.cookieHeader() } }).then((r) => r.json())) as object).toMatchObject({
      signedIn: true,
    });
    void csrf;
  });

  it('the same on a form of the app checked with verifyCsrf: refused, reading stopped at the cap', async () => {
    world.use({ idpLogout: false });
    const { agent } = await signedInAgent();
    const seen = bytesRead.length;
    const result = await streamBody(app.origin, '/form', { cookie: agent.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' }, 50 * 1024 * 1024);
    expect(result.status).toBe(403);
    expect(await lastBytesRead(seen + 1)).toBeLessThan(1024 * 1024);
  });

  it('a logout form just under 16 KiB is still read (the csrf token at its end)', async () => {
    world.use({ idpLogout: false });
    const { agent, csrf } = await signedInAgent();
    const body = `filler=${'a'.repeat(16 * 1024 - 100)}&csrf_token=${csrf}`;
    expect(body.length).toBeLessThanOrEqual(16 * 1024);
    const response = await fetch(`${app.origin}/auth/logout`, {
      method: 'POST',
      headers: { cookie: agent.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      body,
      redirect: 'manual',
    });
    expect(response.status).toBe(303);
    const over = await signedInAgent();
    const tooLarge = await fetch(`${app.origin}/auth/logout`, {
      method: 'POST',
      headers: { cookie: over.agent.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      body: `filler=${'a'.repeat(16 * 1024)}&csrf_token=${over.csrf}`,
      redirect: 'manual',
    });
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.text()).toContain('larger than 16 KiB');
  });
});

describe('returnTo is bounded before it is sealed into the transaction cookie', () => {
  it('a cross-site link with an 8 KB returnTo cannot bloat the victim’s cookies: it is dropped, the login goes on to /', async () => {
    world.use();
    const agent = new Agent(world.appOrigin);
    const huge = `/${'a'.repeat(8000)}`;
    const login = await agent.request(`/auth/login?returnTo=${encodeURIComponent(huge)}`);
    expect(login.status).toBe(302);
    const transaction = login.headers.getSetCookie().find((c) => c.startsWith('oidc-rp.tx.'));
    expect(transaction?.length).toBeLessThan(1500);
    const callback = await agent.logIn({ returnTo: huge });
    expect(callback.headers.get('location')).toBe('/');
  });

  it('keeps a returnTo of up to 2048 characters, drops one longer', async () => {
    world.use();
    const longest = `/${'b'.repeat(2047)}`;
    expect((await new Agent(world.appOrigin).logIn({ returnTo: longest })).headers.get('location')).toBe(longest);
    expect((await new Agent(world.appOrigin).logIn({ returnTo: `${longest}b` })).headers.get('location')).toBe('/');
  });
});

describe('toWebRequest never turns a path into a host', () => {
  function echo(auth: SessionAuth) {
    return async (request: Request) => (await auth.handle(request)) ?? Response.json({ url: request.url });
  }

  async function expressApp(auth: SessionAuth) {
    const app = express();
    app.use(async (req, res, next) => {
      try {
        await sendWebResponse(res, await echo(auth)(await toWebRequest(req)));
      } catch (error) {
        next(error);
      }
    });
    return listen(createServer(app));
  }

  async function fastifyApp(auth: SessionAuth) {
    const app = Fastify();
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, _payload, done) => done(null)); // the adapter reads the body
    app.all('*', async (request, reply) => {
      reply.hijack();
      await sendWebResponse(reply.raw, await echo(auth)(await toWebRequest(request.raw)));
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (typeof address !== 'object' || address === null) throw new Error('no address');
    return { origin: `http://127.0.0.1:${address.port}`, close: () => app.close() };
  }

  for (const [name, start] of [
    ['node:http', (auth: SessionAuth) => serveWeb(echo(auth))],
    ['Express', expressApp],
    ['Fastify', fastifyApp],
  ] as const) {
    it(`${name}: //evil.example/… stays a path on the app's origin; a logout there redirects home, not away`, async () => {
      const auth = world.use({ idpLogout: false });
      const app = await start(auth);
      try {
        const { host } = new URL(app.origin);
        const page = await rawRequest(app.origin, '//evil.example/anything?x=1');
        expect(JSON.parse(page.body)).toEqual({ url: `${app.origin}//evil.example/anything?x=1` });
        // The route matches only its own path: no logout on //evil.example/auth/logout.
        const logout = await rawRequest(app.origin, '//evil.example/auth/logout', { method: 'POST' });
        expect(logout.headers.location ?? '').not.toContain('evil.example');
        // The logout route itself sends home on the request's own host.
        const real = await rawRequest(app.origin, '/auth/logout', { method: 'POST' });
        expect(real.status).toBe(303);
        expect(real.headers.location).toBe(`http://${host}/`);
        // A Host header that is more than a host is not used as the origin.
        const spoofed = await rawRequest(app.origin, '/x', { headers: { host: 'evil.example/path' } });
        if (spoofed.status === 200) expect(JSON.parse(spoofed.body)).toEqual({ url: 'http://localhost/x' });
        else expect(spoofed.status).toBe(400); // the framework refused the header itself
      } finally {
        await app.close();
      }
    });
  }

  it('streams the body lazily: an app route further down the Express chain still parses a body the layer did not read', async () => {
    const auth = world.use({ idpLogout: false });
    const app = express();
    app.use(async (req, res, next) => {
      try {
        const response = await auth.handle(await toWebRequest(req));
        if (response) return await sendWebResponse(res, response);
        next();
      } catch (error) {
        next(error);
      }
    });
    app.post('/orders', express.urlencoded({ extended: false }), (req, res) => {
      res.json(req.body);
    });
    const server = await listen(createServer(app));
    try {
      const response = await fetch(`${server.origin}/orders`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'item=tea&count=2' });
      expect(await response.json()).toEqual({ item: 'tea', count: '2' });
    } finally {
      await server.close();
    }
  });

  it('a body already read by someone else reads as empty, it does not hang', async () => {
    const app = await listen(
      createServer(async (req, res) => {
        for await (const _chunk of req); // consumed without a parsed result
        res.end(JSON.stringify({ body: await (await toWebRequest(req)).text() }));
      }),
    );
    try {
      const response = await fetch(`${app.origin}/x`, { method: 'POST', body: 'a=1' });
      expect(await response.json()).toEqual({ body: '' });
    } finally {
      await app.close();
    }
  });

  it('with baseUrl, the origin is baseUrl’s whatever the Host header or the path says', async () => {
    const auth = world.use({ idpLogout: false });
    const server = createServer(async (req, res) => {
      const request = await toWebRequest(req, { baseUrl: 'https://app.example.com' });
      await sendWebResponse(res, (await auth.handle(request)) ?? Response.json({ url: request.url }));
    });
    const app = await listen(server);
    try {
      const page = await rawRequest(app.origin, '//evil.example/x', { headers: { host: 'evil.example' } });
      expect(JSON.parse(page.body)).toEqual({ url: 'https://app.example.com//evil.example/x' });
      const absolute = await rawRequest(app.origin, 'http://evil.example/y?z=1');
      expect(JSON.parse(absolute.body)).toEqual({ url: 'https://app.example.com/y?z=1' });
    } finally {
      await app.close();
    }
  });
});

describe('headers-only reads (server components) without baseUrl never take a plain-named cookie for a __Host- one', () => {
  it('a session cookie planted without the prefix by a sibling subdomain is not read on a real host', async () => {
    world.use();
    // The attacker's own session, taken from their login and planted under the plain name.
    const { agent } = await signedInAgent('alice');
    const pairs = agent.cookieHeader().split('; ').map((pair) => pair.split('='));
    const planted = pairs.find(([name]) => name === 'oidc-rp.session')?.[1] as string;
    expect(planted).toMatch(/^[\w-]+(\.[\w-]*){4}$/);
    const asSibling = await rawRequest(world.appOrigin, '/server-component', { headers: { host: 'app.example.com', cookie: `oidc-rp.session=${planted}` } });
    expect(JSON.parse(asSibling.body)).toEqual({ signedIn: false, sub: null, reason: 'no_session' });
    // Only the __Host- cookie (which no sibling can set) is the session there.
    const prefixed = await rawRequest(world.appOrigin, '/server-component', { headers: { host: 'app.example.com', cookie: `__Host-oidc-rp.session=${planted}` } });
    expect(JSON.parse(prefixed.body)).toEqual({ signedIn: true, sub: 'alice', reason: null });
    // On a loopback host (development over http, no sibling subdomains) the plain cookie is read.
    const local = await rawRequest(world.appOrigin, '/server-component', { headers: { host: new URL(world.appOrigin).host, cookie: `oidc-rp.session=${planted}` } });
    expect(JSON.parse(local.body)).toEqual({ signedIn: true, sub: 'alice', reason: null });
  });
});

describe('MemorySessionStore is bounded per user as well as overall', () => {
  it('one account logging in over and over drops its own oldest sessions, never another user’s', async () => {
    const store = new MemorySessionStore({ maxEntries: 6, maxEntriesPerUser: 2 });
    world.use({ store, idpLogout: false });
    const victim = await signedInAgent('bigclaims');
    const attacker: Agent[] = [];
    for (let i = 0; i < 8; i++) attacker.push((await signedInAgent('alice')).agent);
    expect((await victim.agent.json('/state')).body).toMatchObject({ signedIn: true });
    const states = await Promise.all(attacker.map(async (a) => ((await a.json<{ signedIn: boolean; reason: string | null }>('/state')).body)));
    expect(states.map((s) => s.signedIn)).toEqual([false, false, false, false, false, false, true, true]);
    expect(states[0]?.reason).toBe('revoked');
  });

  it('overall, expired sessions go before live ones, then the oldest', async () => {
    const store = new MemorySessionStore({ maxEntries: 2 });
    await store.set('short', 'a', 1, { sub: 'u1' });
    await store.set('long', 'b', 100, { sub: 'u2' });
    advance(2);
    await store.set('new', 'c', 100, { sub: 'u3' });
    expect([await store.get('short'), await store.get('long'), await store.get('new')]).toEqual([undefined, 'b', 'c']);
    await store.set('newer', 'd', 100);
    expect([await store.get('long'), await store.get('new'), await store.get('newer')]).toEqual([undefined, 'c', 'd']);
    expect(() => new MemorySessionStore({ maxEntriesPerUser: 0 })).toThrow(/maxEntriesPerUser/);
  });
});

describe('the store down (Redis stopped)', () => {
  let redisServer: RunningRedis;
  let redis: RedisClientType;
  beforeAll(async () => {
    redisServer = await startRedisServer();
    redis = createClient({ url: redisServer.url, disableOfflineQueue: true });
    redis.on('error', () => undefined); // reconnects on its own; failures reach the store as errors
    await redis.connect();
  });
  afterAll(async () => {
    redis?.destroy();
    await redisServer?.stop();
  });

  it('withSession answers 503 session_store_unavailable (JSON, or a page for a browser), and logout still clears the cookie', async () => {
    world.use({ store: new RedisSessionStore({ redis, keyPrefix: 'findings:', commandTimeout: 500 }), idpLogout: false });
    const { agent } = await signedInAgent();
    expect((await agent.json('/with')).body).toEqual({ signedIn: true });
    await redisServer.stop();

    const api = await agent.json<{ error: string; message: string }>('/with');
    expect(api.status).toBe(503);
    expect(api.body).toMatchObject({ error: 'session_store_unavailable', message: expect.stringContaining('stays signed in once it is back') });
    expect(sessionCookies(api.response)).toEqual([]); // the outage signs nobody out
    const page = await agent.request('/with', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(503);
    expect(await page.text()).toContain('cannot reach its session storage');

    // The user can still sign out: the cookie is cleared even though the store cannot be told.
    const logout = await agent.request('/auth/logout', { method: 'POST', headers: { origin: world.appOrigin } });
    expect(logout.status).toBe(303);
    expect(sessionCookies(logout)).toEqual([expect.stringMatching(/^oidc-rp\.session=; Max-Age=0/)]);
    // A cross-site POST still cannot do even that.
    const crossSite = await fetch(`${world.appOrigin}/auth/logout`, { method: 'POST', headers: { cookie: 'oidc-rp.session=x', 'sec-fetch-site': 'cross-site' }, redirect: 'manual' });
    expect(crossSite.status).toBe(403);
    await redisServer.start();
  });
});

describe('the sealed session keeps one copy of the ID token claims', () => {
  it('a cookie-mode login with ~3 KB of claims fits (it failed with session_too_large while the claims were sealed twice)', async () => {
    world.use();
    const agent = new Agent(world.appOrigin);
    const callback = await agent.logIn({ username: 'claims3k' });
    expect(callback.status).toBe(303);
    const written = sessionCookies(callback).map((c) => (c.split(';')[0] as string).replace(/^[^=]+=/, ''));
    const sealed = written.join('');
    const { body } = await agent.json<{ user: Record<string, unknown> }>('/me');
    expect(body.user).toMatchObject({ sub: 'claims3k', picture: expect.stringMatching(/^https:/), website: expect.any(String), profile: expect.any(String) });
    expect(body.user).not.toHaveProperty('nonce');

    // What the same session measured sealed with the claims beside the ID token.
    const opened = await open(sealed, [SECRET], 'session cookie', 3 * 3800);
    if (!opened.ok) throw new Error('the session cookie did not open');
    expect(opened.payload.s).not.toHaveProperty('claims');
    const full = fromSealed(opened.payload.s) as { claims: Record<string, unknown> };
    expect(full.claims).toMatchObject({ sub: 'claims3k' });
    const before = (await seal({ s: full }, [SECRET], 'session cookie', opened.payload.exp as number)).length;
    expect(before).toBeGreaterThan(3 * 3800); // more than three cookies: session_too_large
    expect(sealed.length).toBeLessThan(before * 0.65);
    expect(sealed.length).toBeLessThanOrEqual(3 * 3800);
  });
});
