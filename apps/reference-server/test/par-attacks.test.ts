// Pushed authorization requests (RFC 9126) over real HTTP: the honest push and login, every
// authorize-time check at push time, and the attacks on request_uri (reuse, expiry, another
// client's, parameters mixed in at authorize), PAR required per client, DPoP binding at push.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeLogin, CookieJar } from '../src/testing';
import { basic, pkce, SPA_REDIRECT, WEB_REDIRECT } from './helpers';
import { dpopKey, type DpopKey } from './support/dpop';
import { type DpopServer, json, startDpopServer } from './support/dpop-server';

let s: DpopServer;
let key: DpopKey;
const PREFIX = 'urn:ietf:params:oauth:request_uri:';

beforeAll(async () => {
  s = await startDpopServer((config) => {
    const clients = config.tenants[0]?.clients ?? [];
    clients.push({
      client_id: 'strict-web',
      client_secret: 'strict-web-secret-0123456789abcdef',
      redirect_uris: [WEB_REDIRECT],
      grant_types: ['authorization_code'],
      scopes: ['openid', 'profile'],
      skip_consent: true,
      require_pushed_authorization_requests: true,
    });
  });
  key = await dpopKey();
});
afterAll(async () => {
  await s?.close();
});

const local = () => `${s.listening.origin}/demo`;
const WEB_AUTH = { authorization: basic('web', 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4') };

function webRequest(extra: Record<string, string> = {}): Record<string, string> {
  return { response_type: 'code', client_id: 'web', redirect_uri: WEB_REDIRECT, scope: 'openid profile', state: 'pushed-state', nonce: 'n', ...extra };
}

async function push(form: Record<string, string>, headers: Record<string, string> = WEB_AUTH): Promise<Response> {
  return s.token('/oauth/par', form, headers);
}

async function requestUri(form: Record<string, string> = webRequest(), headers: Record<string, string> = WEB_AUTH): Promise<string> {
  const res = await push(form, headers);
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(201);
  expect(body.expires_in).toBe(60);
  expect(String(body.request_uri).startsWith(PREFIX)).toBe(true);
  return String(body.request_uri);
}

function authorize(params: Record<string, string>): Promise<Response> {
  const url = new URL(`${local()}/oidc/authorize`);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return fetch(url, { redirect: 'manual' });
}

// Signs in from the authorize URL; the redirect back to the client.
async function loginWith(params: Record<string, string>): Promise<URL> {
  const url = new URL(`${local()}/oidc/authorize`);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const result = await completeLogin(url, { fetch: (r) => fetch(r), cookies: new CookieJar() });
  if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
  return new URL(result.location);
}

async function expectPage(res: Response, text: RegExp): Promise<void> {
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  expect(await res.text()).toMatch(text);
}

describe('the PAR endpoint', () => {
  it('a confidential client pushes, the browser carries only client_id and request_uri, and the code is exchanged', async () => {
    const uri = await requestUri();
    const callback = await loginWith({ client_id: 'web', request_uri: uri });
    expect(callback.origin + callback.pathname).toBe(WEB_REDIRECT);
    expect(callback.searchParams.get('state')).toBe('pushed-state');
    const code = callback.searchParams.get('code') ?? '';
    const res = await s.token('/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT }, WEB_AUTH);
    expect(res.status).toBe(200);
    expect(await json(res)).toHaveProperty('id_token');
  });

  it('a public client pushes with its client_id and PKCE', async () => {
    const { verifier, challenge } = pkce();
    const form = { response_type: 'code', client_id: 'spa', redirect_uri: SPA_REDIRECT, scope: 'openid', state: 's', nonce: 'n', code_challenge: challenge, code_challenge_method: 'S256' };
    const uri = await requestUri(form, {});
    const code = (await loginWith({ client_id: 'spa', request_uri: uri })).searchParams.get('code') ?? '';
    const res = await s.token('/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: SPA_REDIRECT, client_id: 'spa', code_verifier: verifier });
    expect(res.status).toBe(200);
  });

  it('runs every authorize check at push time and answers in JSON, never redirecting', async () => {
    const cases: [Record<string, string>, string][] = [
      [webRequest({ redirect_uri: 'https://evil.example/cb' }), 'invalid_request'],
      [webRequest({ scope: 'openid admin' }), 'invalid_scope'],
      [webRequest({ response_type: 'token' }), 'unauthorized_client'],
      [webRequest({ request_uri: `${PREFIX}x` }), 'invalid_request'],
      [webRequest({ state: '' }), 'invalid_request'],
    ];
    for (const [form, error] of cases) {
      const res = await push(form);
      expect(res.status, JSON.stringify(form)).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect((await json(res)).error).toBe(error);
    }
    const publicWithoutPkce = await push({ response_type: 'code', client_id: 'spa', redirect_uri: SPA_REDIRECT, scope: 'openid', state: 's' }, {});
    expect((await json(publicWithoutPkce)).error_description).toMatch(/PKCE/);
  });

  it('authenticates the client: a wrong secret, no secret for a confidential client, are 401', async () => {
    expect((await push(webRequest(), { authorization: basic('web', 'wrong') })).status).toBe(401);
    const unauthenticated = await push(webRequest(), {});
    expect(unauthenticated.status).toBe(401);
    expect((await json(unauthenticated)).error).toBe('invalid_client');
  });

  it('announces the endpoint in discovery', async () => {
    const doc = await json(await fetch(`${local()}/.well-known/openid-configuration`));
    expect(doc.pushed_authorization_request_endpoint).toBe(`${s.issuer}/oauth/par`);
    expect(doc.require_pushed_authorization_requests).toBe(false);
  });
});

describe('attacks on request_uri', () => {
  it('a request_uri is used once', async () => {
    const uri = await requestUri();
    expect((await authorize({ client_id: 'web', request_uri: uri })).status).toBe(302);
    await expectPage(await authorize({ client_id: 'web', request_uri: uri }), /unknown, expired or already used/);
  });

  it('a request_uri expires after 60 seconds', async () => {
    const uri = await requestUri();
    s.clock.advance(61);
    await expectPage(await authorize({ client_id: 'web', request_uri: uri }), /unknown, expired or already used/);
  });

  it("another client cannot use a client's request_uri, and trying does not spend it", async () => {
    const uri = await requestUri();
    await expectPage(await authorize({ client_id: 'spa', request_uri: uri }), /another client/);
    expect((await authorize({ client_id: 'web', request_uri: uri })).status).toBe(302);
  });

  it('parameters sent beside request_uri are refused, not merged, and nothing goes to their redirect_uri', async () => {
    const uri = await requestUri();
    const extras: Record<string, string>[] = [{ redirect_uri: 'https://evil.example/cb' }, { scope: 'openid profile email' }, { state: 'attacker' }, { response_mode: 'fragment' }];
    for (const extra of extras) {
      await expectPage(await authorize({ client_id: 'web', request_uri: uri, ...extra }), /client_id and request_uri only/);
    }
    await expectPage(await authorize({ request_uri: uri }), /no client_id/);
    await expectPage(await authorize({ client_id: 'web', request_uri: `${PREFIX}guessed` }), /unknown/);
  });
});

describe('PAR required, and DPoP binding at push', () => {
  it('a client that requires PAR is refused at authorize without it, and served with it', async () => {
    const direct = await authorize({ response_type: 'code', client_id: 'strict-web', redirect_uri: WEB_REDIRECT, scope: 'openid', state: 's', nonce: 'n' });
    expect(direct.status).toBe(302);
    const location = new URL(direct.headers.get('location') ?? '');
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toMatch(/must push/);
    expect(location.searchParams.has('code')).toBe(false);
    const headers = { authorization: basic('strict-web', 'strict-web-secret-0123456789abcdef') };
    const uri = await requestUri({ ...webRequest(), client_id: 'strict-web' }, headers);
    expect((await loginWith({ client_id: 'strict-web', request_uri: uri })).searchParams.has('code')).toBe(true);
  });

  it('a DPoP proof at push binds the code to its key; a dpop_jkt of another key is refused', async () => {
    const uri = await requestUri(webRequest(), { ...WEB_AUTH, dpop: await s.proof(key, '/oauth/par') });
    const code = (await loginWith({ client_id: 'web', request_uri: uri })).searchParams.get('code') ?? '';
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT };
    const unbound = await s.token('/oidc/token', exchange, WEB_AUTH);
    expect((await json(unbound)).error).toBe('invalid_dpop_proof');
    const bound = await s.token('/oidc/token', exchange, { ...WEB_AUTH, dpop: await s.proof(key, '/oidc/token') });
    expect(bound.status).toBe(200);
    expect((await json(bound)).token_type).toBe('DPoP');

    const other = await dpopKey();
    const mismatch = await push(webRequest({ dpop_jkt: other.jkt }), { ...WEB_AUTH, dpop: await s.proof(key, '/oauth/par') });
    expect(mismatch.status).toBe(400);
    expect((await json(mismatch)).error).toBe('invalid_dpop_proof');
    const badProof = await push(webRequest(), { ...WEB_AUTH, dpop: await s.proof(key, '/oidc/token') });
    expect((await json(badProof)).error).toBe('invalid_dpop_proof');
  });
});
