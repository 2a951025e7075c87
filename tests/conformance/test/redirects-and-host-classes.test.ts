// Where a provider can send the SDK, over real HTTP on 127.0.0.1: discovery and JWKS follow
// redirects only within their origin, and a discovery document cannot point a public issuer's
// endpoints (jwks_uri...) at loopback or a private network. The "other side" is a server that
// counts every request it gets: it must get none.
import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clearJwksCache, discover, validateIdToken } from '@oidc-rp/core';
import { createNodeClient } from '@oidc-rp/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function listen(handler: Handler): Promise<{ origin: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicJwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' };

function idToken(issuer: string): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const input = `${encode({ alg: 'RS256', kid: 'k1' })}.${encode({ iss: issuer, sub: 'alice', aud: 'rp', iat: now, exp: now + 300 })}`;
  return `${input}.${sign('RSA-SHA256', Buffer.from(input), privateKey).toString('base64url')}`;
}

function metadata(issuer: string, overrides: Record<string, string> = {}) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    response_types_supported: ['code'],
    ...overrides,
  };
}

let elsewhere: { origin: string; server: Server };
const elsewhereHits: string[] = [];
let provider: { origin: string; server: Server };
/** What the provider answers, per path; set by each test. */
let routes: Record<string, (res: ServerResponse) => void> = {};

const json = (body: unknown) => (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const redirect = (to: string) => (res: ServerResponse) => res.writeHead(302, { location: to }).end();

beforeAll(async () => {
  elsewhere = await listen((req, res) => {
    elsewhereHits.push(req.url ?? '');
    json({ keys: [publicJwk], issuer: 'x' })(res);
  });
  provider = await listen((req, res) => {
    const route = routes[new URL(req.url ?? '/', 'http://x').pathname];
    if (route) route(res);
    else res.writeHead(404).end();
  });
});
afterAll(async () => {
  for (const { server } of [elsewhere, provider]) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
beforeEach(() => {
  clearJwksCache();
  elsewhereHits.length = 0;
  routes = {};
});

describe('redirects', () => {
  it('discovery redirected to another origin: redirect_refused, the target never asked (core and node)', async () => {
    const issuer = `${provider.origin}/tenant`;
    routes['/tenant/.well-known/openid-configuration'] = redirect(`${elsewhere.origin}/.well-known/openid-configuration`);
    await expect(discover(issuer)).rejects.toMatchObject({ code: 'redirect_refused' });

    const client = createNodeClient({ issuer, clientId: 'rp', clientSecret: 'rp-secret-0123456789', redirectUri: 'http://127.0.0.1:3000/cb' });
    await expect(client.startLogin()).rejects.toMatchObject({ code: 'redirect_refused' });
    expect(elsewhereHits).toEqual([]);
  });

  it('discovery redirected within its origin is followed', async () => {
    const issuer = `${provider.origin}/tenant`;
    routes['/tenant/.well-known/openid-configuration'] = redirect('/tenant/v2/configuration');
    routes['/tenant/v2/configuration'] = json(metadata(issuer));
    await expect(discover(issuer)).resolves.toMatchObject({ issuer });
  });

  it('JWKS redirected to another origin: redirect_refused, no key taken from there', async () => {
    const issuer = `${provider.origin}/tenant`;
    routes['/tenant/jwks'] = redirect(`${elsewhere.origin}/jwks`);
    const error = await validateIdToken(idToken(issuer), { provider: metadata(issuer), clientId: 'rp' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'redirect_refused' });
    expect(elsewhereHits).toEqual([]);

    // Served directly, the same token is fine.
    routes['/tenant/jwks'] = json({ keys: [publicJwk] });
    await expect(validateIdToken(idToken(issuer), { provider: metadata(issuer), clientId: 'rp' })).resolves.toMatchObject({ sub: 'alice' });
  });
});

describe('host classes', () => {
  // A public issuer, reached over real HTTP through a fetch that routes its name to 127.0.0.1.
  const PUBLIC_ISSUER = 'https://op.example.com';
  const routed: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const target = url.origin === PUBLIC_ISSUER ? new URL(`${url.pathname}${url.search}`, provider.origin) : url;
    return fetch(target, init);
  };

  it('a public issuer whose jwks_uri is on loopback: host_class_mismatch, before any key is fetched (core and node)', async () => {
    routes['/.well-known/openid-configuration'] = json(metadata(PUBLIC_ISSUER, { jwks_uri: `${elsewhere.origin}/jwks` }));
    const error = await discover(PUBLIC_ISSUER, { fetch: routed }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'host_class_mismatch' });
    expect((error as Error).message).toMatch(/"jwks_uri" is on a loopback host, the issuer on a public one/);

    const client = createNodeClient({ issuer: PUBLIC_ISSUER, clientId: 'rp', clientSecret: 'rp-secret-0123456789', redirectUri: 'https://app.example.com/cb', fetch: routed });
    await expect(client.startLogin()).rejects.toMatchObject({ code: 'host_class_mismatch' });
    expect(elsewhereHits).toEqual([]);
  });

  it('allowHostClassMismatch accepts the split when the deployment means it', async () => {
    routes['/.well-known/openid-configuration'] = json(metadata(PUBLIC_ISSUER, { jwks_uri: `${elsewhere.origin}/jwks` }));
    await expect(discover(PUBLIC_ISSUER, { fetch: routed, allowHostClassMismatch: true })).resolves.toMatchObject({ jwks_uri: `${elsewhere.origin}/jwks` });
  });
});
