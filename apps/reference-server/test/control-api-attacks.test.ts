// Attacks on the HTTP control API over real HTTP (issue 23, items 1, 6 and 7): a same-host
// reverse proxy in front of a secret-less control API, a loopback page sending a simple
// (preflight-free) request, and a chunked body without a declared length. Each defence has a
// guard showing that the normal use still works.
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { controlAccess, CONTROL_REQUEST_HEADER } from '../src/control/access';
import { ConfigError, createReferenceServer, demoConfig, type Listening, type ReferenceServer, type ServerConfig } from '../src/index';
import { MAX_BODY_BYTES } from '../src/http/params';
import { developmentKeysFor } from '../../../test-support/development-keys';

const HEADER = { [CONTROL_REQUEST_HEADER]: '1' };
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function start(config: ServerConfig = demoConfig(), controlApi: boolean | { secret: string } = true): Promise<{ server: ReferenceServer; listening: Listening }> {
  const server = await createReferenceServer(config, { logger: false, controlApi, developmentKeys: developmentKeysFor(config) });
  const listening = await server.listen({ port: 0 });
  closers.push(() => server.close());
  return { server, listening };
}

/**
 * A reverse proxy on the same host, built like nginx's `proxy_pass` or Apache's `ProxyPass`:
 * every request reaches the server from 127.0.0.1. `rewrite` sets the headers it sends on.
 */
async function proxy(upstream: string, rewrite: (headers: IncomingHttpHeaders, peer: string) => IncomingHttpHeaders): Promise<string> {
  const target = new URL(upstream);
  const server: Server = createServer((req, res) => {
    const headers = rewrite({ ...req.headers }, req.socket.remoteAddress ?? '');
    const forwarded = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forwarded.on('error', () => res.writeHead(502).end());
    req.pipe(forwarded);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** nginx with `proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for` and X-Real-IP; Host is the upstream's ($proxy_host). */
const nginx = (upstream: string) => (headers: IncomingHttpHeaders, peer: string): IncomingHttpHeaders => ({
  ...headers,
  host: new URL(upstream).host,
  'x-forwarded-for': peer,
  'x-real-ip': peer,
  'x-forwarded-proto': 'https',
});

async function addUser(origin: string, headers: Record<string, string> = HEADER): Promise<Response> {
  return fetch(`${origin}/_control/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ username: 'mallory', password: 'mallory-password' }),
  });
}

/** demo_login is refused next to any setting that exposes the server (item 4). */
function withoutDemoLogin(): ServerConfig {
  const config = demoConfig();
  for (const tenant of config.tenants) tenant.demo_login = false;
  return config;
}

async function usernames(server: ReferenceServer): Promise<string[]> {
  return (await server.control.users.list()).map((u) => u.username);
}

describe('control API behind a same-host reverse proxy (item 1)', () => {
  it('guard: a loopback call with no proxy works', async () => {
    const { server, listening } = await start();
    const added = await addUser(listening.origin);
    expect(added.status).toBe(201);
    expect(await usernames(server)).toContain('mallory');
  });

  it.each([
    ['nginx (X-Forwarded-For, X-Real-IP, X-Forwarded-Proto)', {}],
    ['RFC 7239 Forwarded only', { forwarded: 'for=203.0.113.7;proto=https' }],
    ['Via only', { via: '1.1 proxy' }],
    ['X-Forwarded-Host only', { 'x-forwarded-host': 'login.example.com' }],
  ])('refuses a remote call relayed by %s: 403, and nothing changes', async (_name, extra) => {
    const { server, listening } = await start();
    const relay = await proxy(listening.origin, (headers, peer) =>
      Object.keys(extra).length === 0 ? nginx(listening.origin)(headers, peer) : { ...headers, host: new URL(listening.origin).host, ...extra },
    );
    const response = await addUser(relay);
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('proxy') });
    expect(await usernames(server)).not.toContain('mallory');
  });

  it('refuses a proxy that adds nothing but passes the public Host (ProxyPreserveHost)', async () => {
    const { server, listening } = await start();
    const relay = await proxy(listening.origin, (headers) => ({ ...headers, host: 'login.example.com' }));
    expect((await addUser(relay)).status).toBe(403);
    expect(await usernames(server)).not.toContain('mallory');
  });

  it('a Host naming the public origin never counts as loopback, even when the public origin is a loopback one', () => {
    const facts = { remoteAddress: '127.0.0.1', headers: new Headers({ host: '127.0.0.1:8443', [CONTROL_REQUEST_HEADER]: '1' }) };
    expect(controlAccess({ enabled: true }, facts)).toEqual({ allowed: true });
    expect(controlAccess({ enabled: true, publicHost: '127.0.0.1:8443' }, facts)).toMatchObject({ allowed: false, status: 403 });
  });

  it.each([
    ['public_origin', (c: ServerConfig) => Object.assign(c, { public_origin: 'https://login.example.com' })],
    ['trust_proxy', (c: ServerConfig) => Object.assign(c, { trust_proxy: true })],
    ['trusted_hosts', (c: ServerConfig) => Object.assign(c, { trusted_hosts: ['login.internal:8443'] })],
  ])('a secret-less control API refuses to start with %s set, and says how to set a secret', async (setting, change) => {
    const config = change(withoutDemoLogin());
    const error = await createReferenceServer(config, { logger: false, controlApi: true }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(setting);
    expect((error as Error).message).toContain('OIDC_RP_CONTROL_SECRET');
    // With a secret it starts: the bearer decides, not the address.
    const { listening } = await start(change(withoutDemoLogin()), { secret: 'Tq8vLz3KcW9pXr2N' });
    expect(listening.port).toBeGreaterThan(0);
  });

  it('guard: behind the proxy, the secret still works from anywhere', async () => {
    const secret = 'Tq8vLz3KcW9pXr2N';
    const { server, listening } = await start(demoConfig(), { secret });
    const relay = await proxy(listening.origin, nginx(listening.origin));
    expect((await addUser(relay, { ...HEADER, authorization: `Bearer ${secret}` })).status).toBe(201);
    expect(await usernames(server)).toContain('mallory');
  });
});

describe('every control call is a non-simple request (item 6)', () => {
  it('a simple POST from a page on another loopback origin (no preflight) cannot rotate the keys', async () => {
    const { server, listening } = await start();
    const before = (await (await fetch(`${listening.origin}/demo/oidc/jwks`)).json()) as { keys: { kid: string }[] };
    // What `fetch(url, { method: 'POST', mode: 'no-cors' })` on http://127.0.0.1:5173 sends.
    const rotate = await fetch(`${listening.origin}/_control/keys/rotate`, { method: 'POST', headers: { origin: 'http://127.0.0.1:5173', 'sec-fetch-site': 'same-site' } });
    expect(rotate.status).toBe(403);
    expect(await rotate.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining(CONTROL_REQUEST_HEADER) });
    const after = (await (await fetch(`${listening.origin}/demo/oidc/jwks`)).json()) as { keys: { kid: string }[] };
    expect(after.keys.map((k) => k.kid)).toEqual(before.keys.map((k) => k.kid));
    // GET and DELETE need it too: a no-cors GET must not read or clear the journal either.
    expect((await fetch(`${listening.origin}/_control/requests`, { method: 'DELETE' })).status).toBe(403);
    expect((await fetch(`${listening.origin}/_control/users`)).status).toBe(403);
    expect(server.requests().length).toBeGreaterThan(0);
  });

  it('guard: with the header, the rotation goes through', async () => {
    const { listening } = await start();
    const rotate = await fetch(`${listening.origin}/_control/keys/rotate`, { method: 'POST', headers: HEADER });
    expect(rotate.status).toBe(200);
    expect(await rotate.json()).toEqual({ kid: expect.any(String) });
  });

  it('the server never answers a preflight for the header, so no other origin can add it', async () => {
    const { listening } = await start();
    const preflight = await fetch(`${listening.origin}/_control/keys/rotate`, {
      method: 'OPTIONS',
      headers: { origin: 'http://127.0.0.1:5173', 'access-control-request-method': 'POST', 'access-control-request-headers': CONTROL_REQUEST_HEADER },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-headers')).toBeNull();
  });
});

describe('the control API JSON reader is bounded (item 7)', () => {
  function chunked(origin: string, chunks: number, chunkBytes: number): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${origin}/_control/users`, { method: 'POST', headers: { 'content-type': 'application/json', ...HEADER } }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
      // No Content-Length: Node sends Transfer-Encoding: chunked.
      req.write('{"username":"mallory","password":"');
      for (let i = 0; i < chunks; i++) req.write('x'.repeat(chunkBytes));
      req.end('"}');
    });
  }

  it('a chunked body past the limit is 413 in the contract shape, and nothing is added', async () => {
    const { server, listening } = await start();
    const answer = await chunked(listening.origin, 40, 4096);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({
      error: 'invalid_request',
      error_description: `the body is larger than ${MAX_BODY_BYTES} bytes`,
      code: 'invalid_input',
      field: 'body',
    });
    expect(await usernames(server)).not.toContain('mallory');
  });

  it('a declared length past the limit is 413 too', async () => {
    const { listening } = await start();
    const big = await addUserBody(listening.origin, 'x'.repeat(MAX_BODY_BYTES));
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ code: 'invalid_input', field: 'body' });
  });

  it('guard: a chunked body within the limit is read', async () => {
    const { server, listening } = await start();
    const answer = await chunked(listening.origin, 2, 16);
    expect(answer.status).toBe(201);
    expect(await usernames(server)).toContain('mallory');
  });
});

function addUserBody(origin: string, password: string): Promise<Response> {
  return fetch(`${origin}/_control/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...HEADER },
    body: JSON.stringify({ username: 'mallory', password }),
  });
}
