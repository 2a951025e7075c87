// A client's jwks_uri is fetched by the server on an anonymous token request, so a hostile or
// broken one is an attack on the server, performed here over real HTTP: a huge answer is cut off
// at 64 KB (and refused from its Content-Length before the body), a failing one is fetched once
// for a burst of requests (single flight) and not again for 10 s (negative cache).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JWKS_TIMEOUT_MS } from '../src/oauth/client-jwks';
import { type DpopServer, json, startDpopServer } from './support/dpop-server';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const CHUNK = Buffer.alloc(64 * 1024, 0x20);

interface Host {
  uri: string;
  server: Server;
  fetches: number;
  /** Body bytes the host managed to hand to its socket. */
  written: number;
  /** Resolves when the server closed the host's last connection. */
  closed: Promise<void>;
}

const hosts: Host[] = [];

async function host(path: string, answer: (req: IncomingMessage, res: ServerResponse, h: Host) => void): Promise<Host> {
  const h = { fetches: 0, written: 0 } as Host;
  let markClosed: () => void = () => undefined;
  h.server = createServer((req, res) => {
    h.fetches += 1;
    h.closed = new Promise((resolve) => {
      markClosed = resolve;
    });
    res.on('close', () => markClosed());
    answer(req, res, h);
  });
  await new Promise<void>((resolve) => h.server.listen(0, '127.0.0.1', resolve));
  h.uri = `http://127.0.0.1:${(h.server.address() as AddressInfo).port}${path}`;
  hosts.push(h);
  return h;
}

/** Writes `total` bytes of whitespace as fast as the reader takes them, stopping when it hangs up. */
async function stream(res: ServerResponse, h: Host, total: number): Promise<void> {
  res.write('{"keys":[');
  while (h.written < total && !res.destroyed) {
    h.written += CHUNK.length;
    if (!res.write(CHUNK)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
  }
  if (!res.destroyed) res.end(']}');
}

let s: DpopServer;
let signer: CryptoKey;
let huge: Host;
let declared: Host;
let failing: Host;

beforeAll(async () => {
  signer = (await generateKeyPair('ES256')).privateKey;
  huge = await host('/huge', (_req, res, h) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    void stream(res, h, 32 * 1024 * 1024);
  });
  declared = await host('/declared', (_req, res) => {
    // Headers only: a body of 300 MiB is announced, and never sent.
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(300 * 1024 * 1024) });
    res.flushHeaders();
  });
  failing = await host('/failing', (_req, res) => {
    res.writeHead(503, { 'content-type': 'text/plain' });
    res.end('down');
  });
  s = await startDpopServer((config) => {
    const clients = config.tenants[0]?.clients ?? [];
    for (const [id, h] of [['huge-jwks', huge], ['declared-jwks', declared], ['failing-jwks', failing]] as const) {
      clients.push({ client_id: id, grant_types: ['client_credentials'], scopes: ['api.read'], jwks_uri: h.uri, token_endpoint_auth_method: 'private_key_jwt' });
    }
  });
});
afterAll(async () => {
  await s?.close();
  for (const h of hosts) {
    h.server.closeAllConnections();
    await new Promise((resolve) => h.server.close(resolve));
  }
});

async function tokenRequest(clientId: string): Promise<Response> {
  const now = s.now();
  const assertion = await new SignJWT({ iss: clientId, sub: clientId, aud: s.issuer, jti: crypto.randomUUID(), iat: now, exp: now + 60 })
    .setProtectedHeader({ alg: 'ES256' })
    .sign(signer);
  return s.token('/oauth/token', { grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: assertion });
}

async function expectJwksRefusal(res: Response): Promise<void> {
  const body = await json(res);
  expect(res.status).toBe(401);
  expect(body.error).toBe('invalid_client');
  expect(String(body.error_description)).toMatch(/jwks_uri could not be fetched/);
}

describe('L2: a jwks_uri answer is read up to 64 KB, never in full', () => {
  it('a 32 MiB answer is cut off: the server hangs up after a little more than 64 KB', async () => {
    await expectJwksRefusal(await tokenRequest('huge-jwks'));
    await huge.closed;
    // What was handed to the socket: 64 KB read, plus what the kernel's buffers took meanwhile.
    expect(huge.written).toBeLessThan(8 * 1024 * 1024);
  });

  it('an answer whose Content-Length is over 64 KB is refused before its body arrives (timer: sooner than the fetch timeout)', async () => {
    // The body never comes: only a check of Content-Length answers before the fetch timeout,
    // which would give the same refusal. So the refusal must come before that timeout fires.
    const started = Date.now();
    await expectJwksRefusal(await tokenRequest('declared-jwks'));
    await declared.closed;
    expect(Date.now() - started).toBeLessThan(JWKS_TIMEOUT_MS);
  });
});

describe('I3: a failing jwks_uri is fetched once per burst, and not again for 10 s', () => {
  it('twenty concurrent requests share one fetch; later ones within 10 s fetch nothing; after 10 s it is tried again (timer: the server clock moves)', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => tokenRequest('failing-jwks')));
    for (const res of answers) await expectJwksRefusal(res);
    expect(failing.fetches).toBe(1);
    for (let i = 0; i < 5; i++) await expectJwksRefusal(await tokenRequest('failing-jwks'));
    expect(failing.fetches).toBe(1);
    s.clock.advance(9);
    await expectJwksRefusal(await tokenRequest('failing-jwks'));
    expect(failing.fetches).toBe(1);
    s.clock.advance(2);
    await expectJwksRefusal(await tokenRequest('failing-jwks'));
    expect(failing.fetches).toBe(2);
  });
});
