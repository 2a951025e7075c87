// Request objects (RFC 9101) at authorize and PAR, signed userinfo (OIDC Core 5.3.2) and
// WebFinger (OIDC Discovery 2), over real HTTP: what a correct client sends is accepted, and each
// attack (a wrong aud, an expired or replayed object, an algorithm the client did not register,
// an unsigned object where a signed one is required, a request_uri at a private address or with a
// huge body) is refused before anything is issued.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeLogin, CookieJar } from '../src/testing';
import { basic, WEB_REDIRECT } from './helpers';
import { type DpopServer, json, startDpopServer } from './support/dpop-server';

const SECRET = 'jar-secret-of-the-tests-Qw8Rt5Yu2Io7';
let s: DpopServer;
let es: CryptoKey;
let ps: CryptoKey;
let objects: Server;
let objectsOrigin: string;
const served = new Map<string, string>();

beforeAll(async () => {
  const esPair = await generateKeyPair('ES256');
  const psPair = await generateKeyPair('PS256');
  es = esPair.privateKey;
  ps = psPair.privateKey;
  const esJwk = { ...(await exportJWK(esPair.publicKey)), kid: 'es' } as Record<string, unknown>;
  const psJwk = { ...(await exportJWK(psPair.publicKey)), kid: 'ps' } as Record<string, unknown>;
  const base = { redirect_uris: [WEB_REDIRECT], client_secret: SECRET, scopes: ['openid', 'profile'], skip_consent: true };
  s = await startDpopServer((config) => {
    config.tenants[0]?.clients?.push(
      { client_id: 'jar', ...base, jwks: { keys: [esJwk] } },
      { client_id: 'jar-strict', ...base, jwks: { keys: [psJwk] }, request_object_signing_alg: 'PS256', require_signed_request_object: true },
      { client_id: 'jar-none', ...base, request_object_signing_alg: 'none' },
      { client_id: 'signed-ui', ...base, userinfo_signed_response_alg: 'RS256' },
      { client_id: 'signed-ui-broken', ...base, userinfo_signed_response_alg: 'RS256', fault: 'userinfo_encrypted' },
    );
  });
  objects = createServer((req, res) => {
    if (req.url === '/huge') {
      res.writeHead(200, { 'content-type': 'application/oauth-authz-req+jwt' });
      res.end('a'.repeat(200 * 1024));
      return;
    }
    const body = served.get(req.url ?? '');
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/oauth-authz-req+jwt' });
    res.end(body ?? '');
  });
  await new Promise<void>((resolve) => objects.listen(0, '127.0.0.1', resolve));
  objectsOrigin = `http://127.0.0.1:${(objects.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await s?.close();
  await new Promise((resolve) => objects?.close(resolve));
});

let jtis = 0;
function claims(clientId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    iss: clientId, aud: s.issuer, client_id: clientId, response_type: 'code', redirect_uri: WEB_REDIRECT, scope: 'openid profile',
    state: 'state-from-object', nonce: 'n', exp: s.now() + 300, nbf: s.now(), iat: s.now(), jti: `jti-${++jtis}`, ...extra,
  };
}

function sign(payload: Record<string, unknown>, key: CryptoKey = es, alg = 'ES256', kid = 'es'): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg, kid, typ: 'oauth-authz-req+jwt' }).sign(key);
}

function unsigned(payload: Record<string, unknown>): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part({ alg: 'none' })}.${part(payload)}.`;
}

function authorizeUrl(params: Record<string, string>): URL {
  const url = new URL(`${s.listening.origin}/demo/oidc/authorize`);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url;
}

async function login(params: Record<string, string>): Promise<URL> {
  const result = await completeLogin(authorizeUrl(params), { fetch: (r) => fetch(r), cookies: new CookieJar() });
  if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
  return new URL(result.location);
}

async function refused(params: Record<string, string>): Promise<string> {
  const response = await fetch(authorizeUrl(params), { redirect: 'manual' });
  expect(response.status).toBe(400);
  expect(response.headers.get('location')).toBeNull();
  return response.text();
}

describe('request objects at the authorize endpoint', () => {
  it('takes the parameters from a signed object by value, ignoring those beside it', async () => {
    const back = await login({ client_id: 'jar', request: await sign(claims('jar')), state: 'state-from-query', scope: 'openid' });
    expect(back.origin + back.pathname).toBe(WEB_REDIRECT);
    expect(back.searchParams.get('state')).toBe('state-from-object');
    expect(back.searchParams.get('code')).toBeTruthy();
  });

  it('refuses a wrong aud, an expired object, a replayed jti and an unregistered algorithm', async () => {
    expect(await refused({ client_id: 'jar', request: await sign(claims('jar', { aud: 'https://other.example' })) })).toContain('aud');
    expect(await refused({ client_id: 'jar', request: await sign(claims('jar', { exp: s.now() - 120 })) })).toContain('expired');
    const once = await sign(claims('jar'));
    await login({ client_id: 'jar', request: once });
    expect(await refused({ client_id: 'jar', request: once })).toContain('used before');
    expect(await refused({ client_id: 'jar-strict', request: await sign(claims('jar-strict'), es, 'ES256', 'es') })).toContain('PS256');
  });

  it('refuses an object signed by a key not registered for the client, or naming another client', async () => {
    const stranger = (await generateKeyPair('ES256')).privateKey;
    expect(await refused({ client_id: 'jar', request: await sign(claims('jar'), stranger) })).toContain('signature');
    expect(await refused({ client_id: 'jar', request: await sign(claims('jar', { iss: 'web' })) })).toContain('iss');
    expect(await refused({ client_id: 'jar', request: await sign(claims('jar', { client_id: 'web' })) })).toContain('client_id');
  });

  it('takes alg none only from a client registered for it; a client requiring signed objects gets none without one', async () => {
    const back = await login({ client_id: 'jar-none', request: unsigned(claims('jar-none')) });
    expect(back.searchParams.get('code')).toBeTruthy();
    expect(await refused({ client_id: 'jar', request: unsigned(claims('jar')) })).toContain('none');
    const plain = await fetch(authorizeUrl({ client_id: 'jar-strict', response_type: 'code', redirect_uri: WEB_REDIRECT, scope: 'openid', state: 's', nonce: 'n' }), { redirect: 'manual' });
    expect(new URL(plain.headers.get('location') ?? '').searchParams.get('error')).toBe('invalid_request');
    const strictSigned = await login({ client_id: 'jar-strict', request: await sign(claims('jar-strict'), ps, 'PS256', 'ps') });
    expect(strictSigned.searchParams.get('code')).toBeTruthy();
  });

  it('fetches a request_uri on loopback, and refuses a private address, a huge body and request beside request_uri', async () => {
    served.set('/ro/1', await sign(claims('jar')));
    const back = await login({ client_id: 'jar', request_uri: `${objectsOrigin}/ro/1` });
    expect(back.searchParams.get('state')).toBe('state-from-object');
    expect(await refused({ client_id: 'jar', request_uri: 'https://10.0.0.1/ro/1' })).toContain('private address');
    expect(await refused({ client_id: 'jar', request_uri: 'http://example.com/ro/1' })).toContain('https');
    expect(await refused({ client_id: 'jar', request_uri: `${objectsOrigin}/huge` })).toContain('could not be fetched');
    expect(await refused({ client_id: 'jar', request_uri: `${objectsOrigin}/missing` })).toContain('could not be fetched');
    const both = await fetch(authorizeUrl({ client_id: 'jar', request_uri: `${objectsOrigin}/ro/1`, request: await sign(claims('jar')) }), { redirect: 'manual' });
    expect(both.status).toBe(400);
  });

  it('answers malformed objects with a 400 page, never a 5xx', async () => {
    for (const request of ['x', 'eyJ.x.y', 'a.b.c', 'a.b.c.d.e', `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.bm90anNvbg.sig`]) {
      const response = await fetch(authorizeUrl({ client_id: 'jar', request }), { redirect: 'manual' });
      expect(response.status).toBe(400);
    }
    const numeric = await fetch(authorizeUrl({ client_id: 'jar', request: await sign(claims('jar', { state: 42 })) }), { redirect: 'manual' });
    expect(numeric.status).toBe(400);
  });
});

describe('request objects at the PAR endpoint', () => {
  const auth = (id: string) => ({ authorization: basic(id, SECRET) });

  it('pushes a signed object; its request_uri logs in', async () => {
    const pushed = await s.token('/oauth/par', { request: await sign(claims('jar')) }, auth('jar'));
    expect(pushed.status).toBe(201);
    const { request_uri } = (await json(pushed)) as { request_uri: string };
    const back = await login({ client_id: 'jar', request_uri });
    expect(back.searchParams.get('state')).toBe('state-from-object');
  });

  it('refuses a wrong aud, a replay, and a push without an object from a client that requires one', async () => {
    const wrongAud = await s.token('/oauth/par', { request: await sign(claims('jar', { aud: `${s.issuer}/oauth/par-elsewhere` })) }, auth('jar'));
    expect(wrongAud.status).toBe(400);
    expect((await json(wrongAud)).error).toBe('invalid_request_object');
    const once = await sign(claims('jar'));
    expect((await s.token('/oauth/par', { request: once }, auth('jar'))).status).toBe(201);
    expect((await json(await s.token('/oauth/par', { request: once }, auth('jar')))).error).toBe('invalid_request_object');
    const plain = await s.token('/oauth/par', { response_type: 'code', redirect_uri: WEB_REDIRECT, scope: 'openid', state: 's' }, auth('jar-strict'));
    expect(plain.status).toBe(400);
    expect((await json(plain)).error_description).toContain('signed request object');
  });
});

describe('signed userinfo, WebFinger and metadata', () => {
  async function userinfoOf(clientId: string): Promise<Response> {
    const back = await login({ response_type: 'code', client_id: clientId, redirect_uri: WEB_REDIRECT, scope: 'openid profile', state: 's', nonce: 'n' });
    const tokens = await json(await s.token('/oidc/token', { grant_type: 'authorization_code', code: back.searchParams.get('code') ?? '', redirect_uri: WEB_REDIRECT }, { authorization: basic(clientId, SECRET) }));
    return s.userinfo({ authorization: `Bearer ${String(tokens.access_token)}` });
  }

  it('answers a client registered for it with a JWT of this issuer for the client', async () => {
    const response = await userinfoOf('signed-ui');
    expect(response.headers.get('content-type')).toBe('application/jwt');
    const jwks = createLocalJWKSet((await json(await fetch(`${s.listening.origin}/demo/oidc/jwks`))) as never);
    const { payload, protectedHeader } = await jwtVerify(await response.text(), jwks, { issuer: s.issuer, audience: 'signed-ui' });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload.sub).toBeTruthy();
  });

  it('the userinfo_encrypted fault answers five JWE parts', async () => {
    expect((await (await userinfoOf('signed-ui-broken')).text()).split('.')).toHaveLength(5);
  });

  it('WebFinger links the tenant issuer for acct: and URL resources; unknown and missing resources are 4xx', async () => {
    const rel = 'http://openid.net/specs/connect/1.0/issuer';
    const ask = (resource?: string) =>
      fetch(`${s.listening.origin}/.well-known/webfinger?${new URLSearchParams({ ...(resource ? { resource } : {}), rel })}`);
    for (const resource of [`acct:alice@${s.listening.origin.slice(7)}`, `${s.listening.origin}/demo/users/alice`]) {
      const answer = await ask(resource);
      expect(answer.headers.get('content-type')).toBe('application/jrd+json');
      expect(await json(answer)).toEqual({ subject: resource, links: [{ rel, href: s.issuer }] });
    }
    expect((await ask('acct:nobody@example.com')).status).toBe(404);
    expect((await ask()).status).toBe(400);
    expect((await fetch(`${s.listening.origin}/.well-known/webfinger?resource=%ZZ`)).status).toBe(400);
  });

  it('discovery advertises request objects and signed userinfo', async () => {
    const metadata = await json(await fetch(`${s.issuer}/.well-known/openid-configuration`));
    expect(metadata).toMatchObject({ request_parameter_supported: true, request_uri_parameter_supported: true, require_request_uri_registration: false, userinfo_signing_alg_values_supported: ['RS256'] });
    expect(metadata.request_object_signing_alg_values_supported).toEqual(expect.arrayContaining(['PS256', 'ES256', 'EdDSA', 'RS256', 'none']));
  });
});
