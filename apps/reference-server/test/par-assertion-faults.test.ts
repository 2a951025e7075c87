// The test-provider faults of pushed authorization requests (RFC 9126) and client assertions
// (RFC 7523), switched on at runtime (control API over HTTP, and in-process) and met over real
// HTTP: each bends a valid request exactly as its name says, for the counted requests only, and
// a request it does not come into play in neither sees it nor spends it.
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_REQUEST_HEADER } from '../src/control/access';
import { CLIENT_ASSERTION_FAULTS, FAULTS, PAR_FAULTS, validateConfig, demoConfig } from '../src/index';
import { completeLogin, CookieJar } from '../src/testing';
import { basic, WEB_REDIRECT } from './helpers';
import { type DpopServer, json, startDpopServer } from './support/dpop-server';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const PREFIX = 'urn:ietf:params:oauth:request_uri:';
const HMAC_SECRET = 'hmac-client-secret-of-more-than-32-bytes-0123456789';
const WEB_AUTH = { authorization: basic('web', 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4') };

let s: DpopServer;
let key: { privateKey: CryptoKey; publicJwk: JWK };

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  key = { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid: 'k1' } };
  s = await startDpopServer(
    (config) => {
      config.tenants[0]?.clients?.push(
        { client_id: 'keyed', redirect_uris: [WEB_REDIRECT], grant_types: ['authorization_code', 'client_credentials'], scopes: ['openid', 'api.read'], skip_consent: true, jwks: { keys: [key.publicJwk as Record<string, unknown>] } },
        { client_id: 'hmac', client_secret: HMAC_SECRET, grant_types: ['client_credentials'], scopes: ['api.read'], token_endpoint_auth_method: 'client_secret_jwt' },
      );
    },
    { controlApi: true },
  );
});
afterAll(async () => {
  await s?.close();
});
afterEach(async () => {
  await s.server.control.faults.clear();
});

function webRequest(): Record<string, string> {
  return { response_type: 'code', client_id: 'web', redirect_uri: WEB_REDIRECT, scope: 'openid profile', state: 'pushed-state', nonce: 'n' };
}

const push = (form: Record<string, string> = webRequest(), headers: Record<string, string> = WEB_AUTH) => s.token('/oauth/par', form, headers);

function authorize(params: Record<string, string>): Promise<Response> {
  const url = new URL(`${s.listening.origin}/demo/oidc/authorize`);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return fetch(url, { redirect: 'manual' });
}

async function loginWith(requestUri: string): Promise<URL> {
  const url = new URL(`${s.listening.origin}/demo/oidc/authorize`);
  url.searchParams.set('client_id', 'web');
  url.searchParams.set('request_uri', requestUri);
  const result = await completeLogin(url, { fetch: (r) => fetch(r), cookies: new CookieJar() });
  if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
  return new URL(result.location);
}

/** The HTTP control API's fault route, as a test in another process (or curl) calls it. */
function setOverHttp(clientId: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${s.listening.origin}/_control/faults/${clientId}`, {
    method: 'PUT',
    headers: { [CONTROL_REQUEST_HEADER]: '1', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function remaining(clientId: string): Promise<Record<string, number | null>> {
  const list = await s.server.control.faults.list();
  return Object.fromEntries(list.filter((f) => f.client_id === clientId).map((f) => [f.fault, f.remaining]));
}

describe('the fault names', () => {
  it('PAR_FAULTS and CLIENT_ASSERTION_FAULTS are faults, and a config file may name them', () => {
    for (const fault of [...PAR_FAULTS, ...CLIENT_ASSERTION_FAULTS]) expect(FAULTS).toContain(fault);
    const config = demoConfig();
    const web = config.tenants[0]?.clients?.find((c) => c.client_id === 'web');
    if (!web) throw new Error('the demo config has a client "web"');
    web.fault = [...PAR_FAULTS, ...CLIENT_ASSERTION_FAULTS];
    expect([...(validateConfig(config)[0]?.clients.get('web')?.faults ?? [])].sort()).toEqual([...PAR_FAULTS, ...CLIENT_ASSERTION_FAULTS].sort());
  });
});

describe('PAR faults', () => {
  it('par_request_refused (set over the HTTP control API, once): a valid push is 400 invalid_request in JSON, stores nothing, and the next push passes', async () => {
    const set = await setOverHttp('web', { fault: 'par_request_refused', times: 1 });
    expect(set.status).toBe(200);
    // A login that is not pushed never meets the fault, and does not spend it.
    const code = await s.webCode();
    expect(code).not.toBe('');
    expect(await remaining('web')).toEqual({ par_request_refused: 1 });

    const refused = await push();
    const body = await json(refused);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();
    expect(body).toMatchObject({ error: 'invalid_request', error_description: expect.any(String) });
    expect(body.request_uri).toBeUndefined();
    expect(await remaining('web')).toEqual({});
    expect((await push()).status).toBe(201);
  });

  it('par_response_missing_request_uri: 201 with expires_in and no request_uri, for that client only', async () => {
    await s.server.control.faults.set('web', 'par_response_missing_request_uri');
    const res = await push();
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body).toEqual({ expires_in: 60 });
    const spa = await push({ response_type: 'code', client_id: 'spa', redirect_uri: 'http://127.0.0.1:5173/callback', scope: 'openid', state: 's', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' }, {});
    expect(String((await json(spa)).request_uri).startsWith(PREFIX)).toBe(true);
  });

  it('par_response_bad_expires_in: expires_in is the string "60" (not a JSON number); the request_uri itself still works', async () => {
    await s.server.control.faults.set('web', 'par_response_bad_expires_in', { times: 1 });
    const res = await push();
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body.expires_in).toBe('60');
    const callback = await loginWith(String(body.request_uri));
    expect(callback.searchParams.get('code')).toEqual(expect.any(String));
  });

  it('par_request_uri_expired: at authorize a valid request_uri is an invalid_request_uri error redirect with its state and iss, and is spent', async () => {
    await s.server.control.faults.set('web', 'par_request_uri_expired', { times: 1 });
    // The push itself is not bent, nor counted.
    const uri = String((await json(await push())).request_uri);
    expect(await remaining('web')).toEqual({ par_request_uri_expired: 1 });

    const res = await authorize({ client_id: 'web', request_uri: uri });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location') ?? '');
    expect(location.origin + location.pathname).toBe(WEB_REDIRECT);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: 'invalid_request_uri',
      error_description: expect.stringMatching(/expired or was already used/),
      state: 'pushed-state',
      iss: s.issuer,
    });
    // Spent as a real use would: a second try is the server's own refusal, a 400 page.
    const again = await authorize({ client_id: 'web', request_uri: uri });
    expect(again.status).toBe(400);
    expect(again.headers.get('location')).toBeNull();
    // Once: the next pushed login completes.
    const callback = await loginWith(String((await json(await push())).request_uri));
    expect(callback.searchParams.get('state')).toBe('pushed-state');
    expect(callback.searchParams.get('code')).toEqual(expect.any(String));
  });
});

interface AssertionOptions {
  clientId?: string;
  signer?: CryptoKey | Uint8Array;
  alg?: string;
}

async function assertion(options: AssertionOptions = {}): Promise<string> {
  const clientId = options.clientId ?? 'keyed';
  const now = s.now();
  return new SignJWT({ iss: clientId, sub: clientId, aud: s.issuer, jti: crypto.randomUUID(), iat: now, exp: now + 60 })
    .setProtectedHeader({ alg: options.alg ?? 'ES256' })
    .sign(options.signer ?? key.privateKey);
}

const cc = (clientAssertion: string) =>
  s.token('/oauth/token', { grant_type: 'client_credentials', scope: 'api.read', client_assertion_type: JWT_BEARER, client_assertion: clientAssertion });

async function expectInvalidClient(res: Response, description: RegExp): Promise<void> {
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(401);
  expect(body.error).toBe('invalid_client');
  expect(String(body.error_description)).toMatch(description);
  expect(body.access_token).toBeUndefined();
}

describe('client assertion faults', () => {
  const cases: [(typeof CLIENT_ASSERTION_FAULTS)[number], RegExp][] = [
    ['client_assertion_replayed', /has been used before/],
    ['client_assertion_wrong_aud', /aud must be the issuer/],
    ['client_assertion_expired', /has expired/],
    ['client_assertion_unknown_key', /does not verify with the keys registered/],
  ];
  for (const [fault, description] of cases) {
    it(`${fault}: a valid private_key_jwt assertion is 401 invalid_client as the check says; its jti is left unspent, and the fault is spent`, async () => {
      await s.server.control.faults.set('keyed', fault, { times: 1 });
      const jwt = await assertion();
      await expectInvalidClient(await cc(jwt), description);
      expect(await remaining('keyed')).toEqual({});
      // The same assertion now passes (the refusal spent nothing), and cannot pass twice.
      expect((await cc(jwt)).status).toBe(200);
      await expectInvalidClient(await cc(jwt), /has been used before/);
    });
  }

  it('apply to client_secret_jwt (HS256) assertions too, set over the HTTP control API', async () => {
    expect((await setOverHttp('hmac', { fault: 'client_assertion_expired' })).status).toBe(200);
    const secret = new TextEncoder().encode(HMAC_SECRET);
    await expectInvalidClient(await cc(await assertion({ clientId: 'hmac', signer: secret, alg: 'HS256' })), /has expired/);
    await expectInvalidClient(await cc(await assertion({ clientId: 'hmac', signer: secret, alg: 'HS256' })), /has expired/);
    expect(await remaining('hmac')).toEqual({ client_assertion_expired: null });
  });

  it('apply at the PAR endpoint, which authenticates clients the same way', async () => {
    await s.server.control.faults.set('keyed', 'client_assertion_replayed', { times: 1 });
    const form = { response_type: 'code', client_id: 'keyed', redirect_uri: WEB_REDIRECT, scope: 'openid', state: 's', nonce: 'n', client_assertion_type: JWT_BEARER };
    await expectInvalidClient(await push({ ...form, client_assertion: await assertion() }, {}), /has been used before/);
    expect((await push({ ...form, client_assertion: await assertion() }, {})).status).toBe(201);
  });

  it('a client that authenticates with its secret never meets them, and does not spend them', async () => {
    await s.server.control.faults.set('web', 'client_assertion_replayed', { times: 1 });
    expect((await push()).status).toBe(201);
    const code = await s.webCode();
    expect((await s.token('/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT }, WEB_AUTH)).status).toBe(200);
    expect(await remaining('web')).toEqual({ client_assertion_replayed: 1 });
  });
});
