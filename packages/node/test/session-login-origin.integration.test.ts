// A login started on another host than the one the provider calls back (the app opened at
// http://localhost:PORT while redirectUri says http://127.0.0.1:PORT/auth/callback) would leave
// its transaction cookie on the first host and end in "no login matches the state". Over real
// HTTP: the login route sends the browser to the redirect URI's host first, and a configuration
// that cannot work fails with invalid_options naming both origins.
import { completeLogin } from '@oidc-rp/reference-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionAuth } from '../src/index';
import { Agent, SECRET, type SessionWorld, startSessionWorld } from './support/session-app';

let world: SessionWorld;
beforeAll(async () => {
  world = await startSessionWorld();
});
afterAll(() => world.close());

const port = () => new URL(world.appOrigin).port;

describe('a login started on another host name of this machine', () => {
  it('is sent to the redirect URI\u2019s host first, keeping path and returnTo, and then logs in', async () => {
    world.use();
    const local = new Agent(`http://localhost:${port()}`);
    const first = await local.request('/auth/login?returnTo=%2Forders');
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe(`${world.appOrigin}/auth/login?returnTo=%2Forders`);
    expect(first.headers.getSetCookie()).toEqual([]); // no transaction left on localhost

    // The browser follows to 127.0.0.1, where the login's cookie is set and the callback finds it.
    const agent = new Agent(world.appOrigin);
    const next = new URL(first.headers.get('location') as string);
    const login = await agent.request(`${next.pathname}${next.search}`);
    expect(login.status).toBe(302);
    const result = await completeLogin(login.headers.get('location') as string);
    if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
    const target = new URL(result.location);
    expect(target.origin).toBe(world.appOrigin);
    const callback = await agent.request(target.pathname + target.search);
    expect({ status: callback.status, location: callback.headers.get('location') }, await callback.clone().text()).toEqual({ status: 303, location: '/orders' });
    expect((await agent.json('/state')).body).toMatchObject({ signedIn: true });
  });

  it('without the redirect, the same login fails at the callback: the trap this avoids', async () => {
    world.use();
    // What happened before: the transaction cookie set on localhost never reaches 127.0.0.1.
    const local = new Agent(`http://localhost:${port()}`);
    const start = await world.client.handleLogin(new Request(`http://localhost:${port()}/auth/login`));
    local.jar.store(new URL(`http://localhost:${port()}/`), start);
    const result = await completeLogin(start.headers.get('location') as string);
    if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
    const callback = await new Agent(world.appOrigin).request(new URL(result.location).pathname + new URL(result.location).search);
    expect(callback.status).toBe(400);
    expect(await callback.text()).toContain('transaction_not_found');
  });

  it('a login that cannot be redirected (not a GET) fails with invalid_options naming both origins and the fix', async () => {
    const auth = world.use();
    const attempt = auth.login(new Request(`http://localhost:${port()}/start`, { method: 'POST' }));
    await expect(attempt).rejects.toMatchObject({
      code: 'invalid_options',
      message: expect.stringMatching(
        new RegExp(`started at localhost but the provider returns to http://127\\.0\\.0\\.1:${port()} .*open the app at http://127\\.0\\.0\\.1:${port()}`),
      ),
    });
  });
});

describe('configurations that cannot work fail at the first login', () => {
  it('baseUrl on another host than redirectUri: invalid_options naming both, over HTTP', async () => {
    const auth = world.use({ baseUrl: `http://localhost:${port()}` });
    await expect(auth.login(new Request(`${world.appOrigin}/auth/login`))).rejects.toMatchObject({ code: 'invalid_options' });
    const response = await new Agent(world.appOrigin).request('/auth/login');
    expect(response.status).toBe(500); // the test app answers a thrown error with 500 and its text
    const text = await response.text();
    expect(text).toMatch(/^OidcError: /);
    expect(text).toContain(`baseUrl (http://localhost:${port()}) and the client's redirectUri (${world.appOrigin}) name different hosts`);
    expect(response.headers.getSetCookie()).toEqual([]);
  });

  it('a callback route that is not the redirect URI\u2019s path: invalid_options saying which route to set', async () => {
    const auth = createSessionAuth({ client: world.client, secret: SECRET, routes: { callback: '/callback' } });
    await expect(auth.login(new Request(`${world.appOrigin}/auth/login`))).rejects.toMatchObject({
      code: 'invalid_options',
      message: expect.stringContaining("set routes: { callback: '/auth/callback' }"),
    });
  });

  it('the Host header tells the browser\u2019s host when the URL is built on baseUrl (Express with toWebRequest)', async () => {
    const auth = createSessionAuth({ client: world.client, secret: SECRET, baseUrl: world.appOrigin });
    const request = new Request(`${world.appOrigin}/auth/login?returnTo=%2Fx`, { headers: { host: `localhost:${port()}` } });
    const response = await auth.login(request);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${world.appOrigin}/auth/login?returnTo=%2Fx`);
    // Once there, the login goes on to the provider: no loop.
    const there = await auth.login(new Request(`${world.appOrigin}/auth/login?returnTo=%2Fx`, { headers: { host: `127.0.0.1:${port()}` } }));
    expect(new URL(there.headers.get('location') as string).origin).toBe(new URL(world.issuer).origin);
  });

  it('another host that is not loopback is left alone: behind a proxy the request URL may be internal', async () => {
    const auth = createSessionAuth({ client: world.client, secret: SECRET });
    const response = await auth.login(new Request('http://app-internal.svc:8080/auth/login'));
    expect(response.status).toBe(302);
    expect(new URL(response.headers.get('location') as string).origin).toBe(new URL(world.issuer).origin);
  });
});
