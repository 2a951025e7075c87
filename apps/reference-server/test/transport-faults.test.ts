// Transport faults at runtime: an endpoint answers 5xx or 429 with Retry-After, answers late,
// or drops the connection, once, N times or until cleared; in-process and over real HTTP.
import { afterEach, describe, expect, it } from 'vitest';
import { createReferenceServer, demoConfig, type Listening } from '../src/index';
import { type Harness, setup, controlRejection } from './helpers';

const running: Listening[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((l) => l.close()));
});

const cc = (h: Harness) => h.post('/oauth/token', { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret', scope: 'api.read' });


describe('transport faults in-process', () => {
  it('answers 503 for the next request only (times: 1), in the endpoint JSON shape, with CORS headers', async () => {
    const h = await setup();
    await h.server.control.transport.set('/oauth/token', { status: 503 }, { times: 1 });
    const failed = await h.post('/oauth/token', { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret' }, { origin: 'http://127.0.0.1:5173' });
    expect(failed.status).toBe(503);
    expect(failed.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:5173');
    expect(await failed.json()).toMatchObject({ error: 'temporarily_unavailable' });
    expect((await cc(h)).status).toBe(200);
    expect(await h.server.control.transport.list()).toEqual([]);
  });

  it('answers 429 with Retry-After, and 500 as server_error', async () => {
    const h = await setup();
    await h.server.control.transport.set('/oauth/token', { status: 429, retryAfter: 7 }, { times: 1 });
    const limited = await cc(h);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    await h.server.control.transport.set('/oauth/token', { status: 500 }, { times: 2 });
    expect(await (await cc(h)).json()).toMatchObject({ error: 'server_error' });
    expect((await cc(h)).status).toBe(500);
    expect((await cc(h)).status).toBe(200);
  });

  it('takes a JWKS outage until cleared, leaving the other endpoints up', async () => {
    const h = await setup();
    await h.server.control.transport.set('/oidc/jwks', { status: 503 });
    for (let i = 0; i < 3; i++) expect((await h.get('/oidc/jwks')).status).toBe(503);
    expect((await h.get('/.well-known/openid-configuration')).status).toBe(200);
    expect(await h.server.control.transport.list()).toEqual([{ tenant: 'demo', endpoint: '/oidc/jwks', status: 503, remaining: null }]);
    await h.server.control.transport.clear('/oidc/jwks');
    expect((await h.get('/oidc/jwks')).status).toBe(200);
  });

  it('answers an HTML endpoint with an error page of the status', async () => {
    const h = await setup();
    await h.server.control.transport.set('/oidc/authorize', { status: 502 }, { times: 1 });
    const page = await h.get('/oidc/authorize?client_id=web');
    expect(page.status).toBe(502);
    expect(page.headers.get('content-type')).toContain('text/html');
  });

  it('adds latency, then answers normally (timer: 150 ms of latency)', async () => {
    const h = await setup();
    await h.server.control.transport.set('/oidc/jwks', { latencyMs: 150 }, { times: 1 });
    const started = performance.now();
    const response = await h.get('/oidc/jwks');
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(response.status).toBe(200);
    expect(h.server.requests({ path: '/oidc/jwks' })[0]).toMatchObject({ status: 200, transport_fault: 'latency' });
  });

  it('drops the connection: the in-process fetch rejects like a network failure, then recovers', async () => {
    const h = await setup();
    await h.server.control.transport.set('/oauth/token', { drop: true }, { times: 1 });
    const error = await cc(h).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('fetch failed');
    expect((await cc(h)).status).toBe(200);
    expect(h.server.requests({ path: '/oauth/token' }).map((e) => [e.status, e.transport_fault])).toEqual([
      [0, 'drop'],
      [200, undefined],
    ]);
  });

  it('refuses bad faults with the field named, setting nothing', async () => {
    const h = await setup();
    const { transport } = h.server.control;
    expect(await controlRejection(transport.set('/oidc/nowhere', { status: 503 }))).toMatchObject({ code: 'unknown_endpoint', field: 'endpoint' });
    expect(await controlRejection(transport.set('/oidc/jwks', { status: 404 }))).toMatchObject({ field: 'fault.status' });
    expect(await controlRejection(transport.set('/oidc/jwks', { status: 503, drop: true }))).toMatchObject({ field: 'fault.drop' });
    expect(await controlRejection(transport.set('/oidc/jwks', {}))).toMatchObject({ field: 'fault' });
    expect(await controlRejection(transport.set('/oidc/jwks', { retryAfter: 3, latencyMs: 5 }))).toMatchObject({ field: 'fault.retryAfter' });
    expect(await controlRejection(transport.set('/oidc/jwks', { latencyMs: 600_000 }))).toMatchObject({ field: 'fault.latencyMs' });
    expect(await controlRejection(transport.set('/oidc/jwks', { status: 503, colour: 'red' } as never))).toMatchObject({ field: 'fault.colour' });
    expect(await controlRejection(transport.set('/oidc/jwks', { status: 503 }, { times: 0 }))).toMatchObject({ field: 'times' });
    expect(await controlRejection(transport.set('/oidc/jwks', { status: 503 }, { tenant: 'nope' }))).toMatchObject({ code: 'unknown_tenant' });
    expect(await controlRejection(transport.clear('/nowhere'))).toMatchObject({ field: 'endpoint' });
    expect(await transport.list()).toEqual([]);
  });
});

describe('transport faults over real HTTP', () => {
  it('drops the connection (the socket is destroyed), and the next request is served', async () => {
    const server = await createReferenceServer(demoConfig(), { logger: false });
    const listening = await server.listen({ port: 0 });
    running.push(listening);
    await server.control.transport.set('/oidc/userinfo', { drop: true }, { times: 1 });
    const error = await fetch(`${listening.origin}/demo/oidc/userinfo`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((await fetch(`${listening.origin}/demo/oidc/userinfo`)).status).toBe(401);
    expect(server.requests({ path: '/oidc/userinfo' }).map((e) => e.status)).toEqual([0, 401]);
  });

  it('sets faults through the HTTP control API, also on a discovery outage with latency before it', async () => {
    const server = await createReferenceServer(demoConfig(), { logger: false, controlApi: true });
    const listening = await server.listen({ port: 0 });
    running.push(listening);
    const set = await fetch(`${listening.origin}/_control/transport`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-control-request': '1' },
      body: JSON.stringify({ endpoint: '/.well-known/openid-configuration', status: 503, latencyMs: 20, times: 2 }),
    });
    expect(await set.json()).toEqual([{ tenant: 'demo', endpoint: '/.well-known/openid-configuration', status: 503, latencyMs: 20, remaining: 2 }]);
    const discovery = () => fetch(`${listening.origin}/demo/.well-known/openid-configuration`);
    expect((await discovery()).status).toBe(503);
    expect((await fetch(`${listening.origin}/_control/transport?endpoint=/.well-known/openid-configuration`, { method: 'DELETE', headers: { 'x-control-request': '1' } })).status).toBe(204);
    expect((await discovery()).status).toBe(200);
    const bad = await fetch(`${listening.origin}/_control/transport`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-control-request': '1' },
      body: JSON.stringify({ endpoint: '/oidc/jwks', status: 503, times: 'twice' }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_request', field: 'times' });
  });
});
