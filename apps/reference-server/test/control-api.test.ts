// The HTTP control API over real HTTP: off by default, loopback-only without a secret, bearer
// secret required when set, and refused to cross-site pages and DNS-rebinding hosts; every
// control area through its JSON routes, with bad input answered 4xx in the contract's shape.
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { CONTROL_REQUEST_HEADER, controlAccess, isLoopbackAddress } from '../src/control/access';
import { createReferenceServer, demoConfig, type Listening, type ReferenceServer } from '../src/index';
import { completeLogin } from '../src/testing';
import { authorizeUrl, webParams } from './helpers';

const SECRET = 'Hj4rQw7ZmX2bVn9C';
const running: Listening[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((l) => l.close()));
});

async function start(controlApi?: boolean | { secret?: string }): Promise<{ server: ReferenceServer; origin: string }> {
  const config = demoConfig();
  for (const client of config.tenants[0]?.clients ?? []) client.skip_consent = true;
  const server = await createReferenceServer(config, { logger: false, developmentKeys: true, ...(controlApi !== undefined ? { controlApi } : {}) });
  const listening = await server.listen({ port: 0 });
  running.push(listening);
  return { server, origin: listening.origin };
}

function call(origin: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${origin}/_control${path}`, {
    method,
    headers: { [CONTROL_REQUEST_HEADER]: '1', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
}

/** A raw request with headers fetch would not let a test set (Host). */
function raw(origin: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}/_control${path}`, { headers: { [CONTROL_REQUEST_HEADER]: '1', ...headers } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTP control API: who may call it', () => {
  it('is unreachable when off: a 404 in the usual shape saying how to turn it on, and nothing changes', async () => {
    const { server, origin } = await start();
    const response = await call(origin, 'POST', '/users', { username: 'mallory', password: 'p' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: 'invalid_request',
      error_description: 'The control API is off on this server: start it with --control (or createReferenceServer(config, { controlApi: true })) to use /_control/.',
    });
    expect((await call(origin, 'GET', '/users')).status).toBe(404);
    expect((await server.control.users.list()).map((u) => u.username)).toEqual(['alice', 'bob']);
  });

  it('answers loopback callers when on without a secret', async () => {
    const { origin } = await start(true);
    const response = await call(origin, 'GET', '/users');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([
      { username: 'alice', claims: expect.objectContaining({ sub: 'alice' }) },
      { username: 'bob', claims: expect.objectContaining({ sub: 'bob' }) },
    ]);
  });

  it('refuses a DNS-rebinding page: a loopback peer naming another host gets 403', async () => {
    const { origin } = await start(true);
    const rebound = await raw(origin, '/users', { host: 'attacker.example:80' });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toMatchObject({ error: 'invalid_request' });
    expect((await raw(origin, '/users', { host: `localhost:${new URL(origin).port}` })).status).toBe(200);
  });

  it('refuses cross-site callers (Origin, Sec-Fetch-Site) and cross-site form posts', async () => {
    const { server, origin } = await start(true);
    const user = { username: 'mallory', password: 'p' };
    expect((await call(origin, 'POST', '/users', user, { origin: 'https://attacker.example' })).status).toBe(403);
    expect((await call(origin, 'POST', '/users', user, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    // A form or text/plain post needs no preflight in a browser: refused for its content type.
    const simple = await call(origin, 'POST', '/users', JSON.stringify(user), { 'content-type': 'text/plain' });
    expect(simple.status).toBe(415);
    expect(await simple.json()).toMatchObject({ error: 'invalid_request', field: 'content-type' });
    expect((await server.control.users.list()).map((u) => u.username)).toEqual(['alice', 'bob']);
    expect((await call(origin, 'POST', '/users', user, { origin: 'null' })).status).toBe(403);
    // The developer's own page on localhost may call it.
    expect((await call(origin, 'GET', '/users', undefined, { origin: 'http://localhost:5173', 'sec-fetch-site': 'cross-site' })).status).toBe(200);
  });

  it('with a secret, requires it as a bearer token: missing or wrong is 401', async () => {
    const { server, origin } = await start({ secret: SECRET });
    const missing = await call(origin, 'POST', '/users', { username: 'mallory', password: 'p' });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="control"');
    expect(await missing.json()).toMatchObject({ error: 'invalid_request' });
    for (const authorization of [`Bearer ${SECRET}x`, `Bearer ${SECRET.slice(1)}`, `Basic ${SECRET}`, SECRET]) {
      expect((await call(origin, 'GET', '/users', undefined, { authorization })).status).toBe(401);
    }
    expect((await server.control.users.list()).map((u) => u.username)).toEqual(['alice', 'bob']);
    const ok = await call(origin, 'POST', '/users', { username: 'carol', password: 'p' }, { authorization: `Bearer ${SECRET}` });
    expect(ok.status).toBe(201);
    // The secret, not the address, decides: any Host is fine with it.
    expect((await raw(origin, '/users', { host: 'control.example', authorization: `Bearer ${SECRET}` })).status).toBe(200);
  });

  it('does not answer in-process requests without the secret (in-process code has server.control)', async () => {
    const { server } = await start(true);
    const response = await server.fetch(new Request('http://127.0.0.1/_control/users', { headers: { [CONTROL_REQUEST_HEADER]: '1' } }));
    expect(response.status).toBe(403);
  });

  it('refuses a short secret at start', async () => {
    await expect(createReferenceServer(demoConfig(), { controlApi: { secret: 'short' } })).rejects.toThrow(/at least 16/);
  });
});

describe('controlAccess (the decision)', () => {
  const headers = (h: Record<string, string> = {}) => new Headers({ host: '127.0.0.1:4000', [CONTROL_REQUEST_HEADER]: '1', ...h });

  it('is 404 when off, whatever the caller', () => {
    expect(controlAccess({ enabled: false }, { remoteAddress: '127.0.0.1', headers: headers() })).toMatchObject({ allowed: false, status: 404 });
    expect(controlAccess({ enabled: false, secret: SECRET }, { remoteAddress: '127.0.0.1', headers: headers({ authorization: `Bearer ${SECRET}` }) })).toMatchObject({ status: 404 });
  });

  it('without a secret, allows loopback peers only: 403 for any other address or none', () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) {
      expect(controlAccess({ enabled: true }, { remoteAddress: address, headers: headers() })).toEqual({ allowed: true });
    }
    for (const address of ['10.0.0.5', '192.168.1.2', '::ffff:10.0.0.5', 'fe80::1', '172.17.0.1', '128.0.0.1', undefined]) {
      expect(controlAccess({ enabled: true }, { remoteAddress: address, headers: headers() })).toMatchObject({ allowed: false, status: 403 });
    }
  });

  it('with a secret, allows any address bearing it and nothing else', () => {
    const settings = { enabled: true, secret: SECRET };
    expect(controlAccess(settings, { remoteAddress: '203.0.113.9', headers: headers({ authorization: `Bearer ${SECRET}` }) })).toEqual({ allowed: true });
    expect(controlAccess(settings, { remoteAddress: '127.0.0.1', headers: headers() })).toMatchObject({ status: 401 });
    expect(controlAccess(settings, { remoteAddress: '127.0.0.1', headers: headers({ authorization: 'Bearer ' }) })).toMatchObject({ status: 401 });
  });

  it('knows loopback addresses', () => {
    expect(isLoopbackAddress('127.0.0.1')).toBe(true);
    expect(isLoopbackAddress('::1')).toBe(true);
    expect(isLoopbackAddress('0.0.0.0')).toBe(false);
    expect(isLoopbackAddress('127.0.0.1.evil')).toBe(false);
  });
});

describe('HTTP control API: the routes', () => {
  it('adds, changes and removes a user; the user signs in over real HTTP', async () => {
    const { origin } = await start(true);
    expect((await call(origin, 'POST', '/users', { username: 'carol', password: 'builder', claims: { name: 'Carol' } })).status).toBe(201);
    const issuer = `${origin}/demo`;
    const result = await completeLogin(authorizeUrl(webParams(), issuer).href, { username: 'carol', password: 'builder' });
    expect(result.type === 'redirect' && new URL(result.location).searchParams.get('code')).toBeTruthy();
    expect((await call(origin, 'PATCH', '/users/carol', { claims: { name: 'Robert' } })).status).toBe(200);
    expect(await (await call(origin, 'GET', '/users')).json()).toContainEqual({ username: 'carol', claims: { name: 'Robert' } });
    expect((await call(origin, 'DELETE', '/users/carol')).status).toBe(204);
    const gone = await call(origin, 'DELETE', '/users/carol');
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ error: 'invalid_request', code: 'unknown_user', field: 'username' });
  });

  it('registers a client and sets, lists and clears its faults', async () => {
    const { origin } = await start(true);
    const client = { client_id: 'batch', client_secret: 'batch-secret-1', grant_types: ['client_credentials'], scopes: ['api.read'] };
    expect((await call(origin, 'POST', '/clients', client)).status).toBe(201);
    const token = () =>
      fetch(`${origin}/demo/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'batch', client_secret: 'batch-secret-1' }),
      });
    expect((await token()).status).toBe(200);
    const set = await call(origin, 'PUT', '/faults/batch', { fault: 'token_response_not_json', times: 1 });
    expect(await set.json()).toEqual([{ tenant: 'demo', client_id: 'batch', fault: 'token_response_not_json', remaining: 1 }]);
    expect((await token()).headers.get('content-type')).toContain('text/html');
    expect((await token()).headers.get('content-type')).toContain('application/json');
    await call(origin, 'PUT', '/faults/batch', { fault: ['token_response_not_json'] });
    expect((await call(origin, 'DELETE', '/faults/batch?fault=token_response_not_json')).status).toBe(204);
    expect(await (await call(origin, 'GET', '/faults')).json()).toEqual([]);
    const unknown = await call(origin, 'PUT', '/faults/ghost', { fault: 'id_token_expired' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: 'unknown_client', field: 'client_id' });
  });

  it('moves the clock and rotates keys', async () => {
    const { origin } = await start(true);
    expect(await (await call(origin, 'POST', '/clock/advance', { seconds: 90 })).json()).toMatchObject({ offsetSeconds: 90 });
    // The set clock keeps running from that instant: a busy machine may report it a few ms on.
    const set = (await (await call(origin, 'PUT', '/clock', { time: '2031-05-01T00:00:00Z' })).json()) as { time: string };
    const drift = Date.parse(set.time) - Date.parse('2031-05-01T00:00:00Z');
    expect(drift).toBeGreaterThanOrEqual(0);
    expect(drift).toBeLessThan(5_000);
    expect(await (await call(origin, 'DELETE', '/clock')).json()).toMatchObject({ offsetSeconds: 0 });
    const { kid } = (await (await call(origin, 'POST', '/keys/rotate')).json()) as { kid: string };
    const jwks = (await (await fetch(`${origin}/demo/oidc/jwks`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys[0]?.kid).toBe(kid);
  });

  it('answers malformed input with 4xx in the contract shape (413 for an oversized body), never 5xx', async () => {
    const { server, origin } = await start(true);
    const cases: [string, string, unknown, number, string?][] = [
      ['POST', '/users', '{"username": ', 400, 'body'],
      ['POST', '/users', '[1, 2]', 400, 'body'],
      ['POST', '/users', { username: 'x' }, 400, 'user.password'],
      ['POST', '/clock/advance', { seconds: 'soon' }, 400, 'seconds'],
      ['PUT', '/clock', { time: 'tomorrow' }, 400, 'time'],
      ['PUT', '/faults/web', { fault: 'id_token_expired', times: 0 }, 400, 'times'],
      ['PUT', '/faults/web', { fault: 'id_token_expired', forever: true }, 400, 'forever'],
      ['POST', '/transport', { endpoint: '/nowhere', status: 503 }, 400, 'endpoint'],
      ['GET', '/users?tenant=elsewhere', undefined, 404, 'tenant'],
      ['GET', '/requests?colour=blue', undefined, 400, 'colour'],
    ];
    for (const [method, path, body, status, field] of cases) {
      const response = await call(origin, method, path, body);
      expect({ path, status: response.status }).toEqual({ path, status });
      const json = (await response.json()) as Record<string, unknown>;
      expect(json).toMatchObject({ error: 'invalid_request', error_description: expect.any(String) });
      if (field) expect(json.field).toBe(field);
    }
    expect((await call(origin, 'GET', '/nothing-here')).status).toBe(404);
    expect((await call(origin, 'GET', '/users/alice')).status).toBe(405);
    expect((await call(origin, 'POST', '/users', 'x'.repeat(70_000))).status).toBe(413);
    expect((await server.control.users.list()).map((u) => u.username)).toEqual(['alice', 'bob']);
  });
});
