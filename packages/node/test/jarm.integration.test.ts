// JARM over real HTTP against the reference server: each response mode a backend receives
// (query.jwt, form_post.jwt, and jwt), through finishLogin and the session layer; each JARM
// fault of the FAPI 2.0 Message Signing plan refused with its code before any token request;
// a response replayed to another client, and a plain response where JARM was asked (downgrade),
// refused; and fapi2({ messageSigning: true }) end to end: a signed request object pushed by
// PAR (asking for query.jwt) and a JARM response, to a client that must send signed request
// objects, registered for JARM or not.
import { demoConfig } from '@oidc-rp/reference-server';
import { CookieJar, completeLogin } from '@oidc-rp/reference-server/testing';
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type NodeClientOptions, createNodeClient, dpop, fapi2, isOidcError } from '../src/index';
import { type RunningServer, recordingFetch, startReferenceServer } from './support/reference-server';
import { Agent, type SessionWorld, startSessionWorld } from './support/session-app';

const REDIRECT = 'http://127.0.0.1:3000/callback';
const SECRET = 'secret-of-the-jarm-clients-7Hq2Lm9Vb4Zx';
let server: RunningServer;
let privateJwk: JsonWebKey & { kid: string };

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  privateJwk = { ...(await exportJWK(privateKey)), kid: 'ms-1' } as JsonWebKey & { kid: string };
  const config = demoConfig();
  const tenant = config.tenants[0]!;
  const client = (client_id: string) => ({
    client_id,
    client_secret: SECRET,
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code' as const],
    response_types: ['code' as const, 'code id_token' as const],
    scopes: ['openid', 'profile'],
    skip_consent: true,
  });
  tenant.clients?.push(client('jarm-web'), client('jarm-other'));
  // FAPI 2.0 Message Signing: an ES256 tenant, private_key_jwt clients that must push, use DPoP and
  // send signed request objects; fapi-rp is also registered for JARM, fapi-ask gets it only by asking.
  const fapiClient = async (client_id: string, jarm: boolean) => ({
    client_id,
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code' as const],
    scopes: ['openid', 'profile'],
    skip_consent: true,
    jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'ms-1' }] },
    token_endpoint_auth_method: 'private_key_jwt' as const,
    require_dpop: true,
    require_signed_request_object: true,
    request_object_signing_alg: 'ES256',
    ...(jarm ? { authorization_signed_response_alg: 'ES256' as const } : {}),
  });
  config.tenants.push({
    id: 'bank',
    development: true,
    signing_alg: 'ES256',
    require_pushed_authorization_requests: true,
    users: [{ username: 'alice', password: 'wonderland' }],
    clients: [await fapiClient('fapi-rp', true), await fapiClient('fapi-ask', false)],
  });
  server = await startReferenceServer(config);
});
afterAll(async () => {
  await server?.close();
});
beforeEach(async () => {
  await server.control.faults.clear();
});

function options(clientId = 'jarm-web', extra: Partial<NodeClientOptions> = {}): NodeClientOptions {
  return { issuer: server.issuer, clientId, clientSecret: SECRET, redirectUri: REDIRECT, scope: 'openid profile', responseMode: 'jwt', ...extra };
}

async function signIn(url: URL) {
  return completeLogin(url, { username: 'alice', password: 'wonderland', cookies: new CookieJar() });
}

async function redirected(url: URL): Promise<URL> {
  const result = await signIn(url);
  if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
  return new URL(result.location);
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  if (!isOidcError(error)) throw error;
  expect(error.message).not.toMatch(/eyJ/);
  return error.code;
}

describe('JARM logins', () => {
  it('responseMode "jwt": query.jwt asked, one `response` JWT comes back, verified and redeemed', async () => {
    const client = createNodeClient(options());
    const { url, transaction } = await client.startLogin();
    expect(url.searchParams.get('response_mode')).toBe('query.jwt');
    expect(transaction).toMatchObject({ responseMode: 'query', jarm: true });
    const callback = await redirected(url);
    expect([...callback.searchParams.keys()]).toEqual(['response']);
    const tokens = await client.finishLogin(new Request(callback), transaction);
    expect(tokens.claims?.sub).toBe('alice');
  });

  it('form_post.jwt: the posted `response` is read from the callback request', async () => {
    const client = createNodeClient(options('jarm-web', { responseMode: 'form_post.jwt' }));
    const { url, transaction } = await client.startLogin();
    expect(url.searchParams.get('response_mode')).toBe('form_post.jwt');
    const result = await signIn(url);
    if (result.type !== 'form_post') throw new Error(`expected a form_post, got ${result.type}`);
    expect([...result.body.keys()]).toEqual(['response']);
    const post = new Request(result.action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: result.body.toString() });
    expect((await client.finishLogin(post, transaction)).claims?.sub).toBe('alice');
  });

  it('hybrid with form_post.jwt: the front-channel ID token inside the JWT is validated too', async () => {
    const client = createNodeClient(options('jarm-web', { responseType: 'code id_token', responseMode: 'form_post.jwt' }));
    const { url, transaction } = await client.startLogin();
    const result = await signIn(url);
    if (result.type !== 'form_post') throw new Error(`expected a form_post, got ${result.type}`);
    expect((await client.finishLogin(result.body, transaction)).claims?.sub).toBe('alice');
  });

  it('an error comes back as JARM and is the provider\'s error', async () => {
    const client = createNodeClient(options());
    const { url, transaction } = await client.startLogin({ prompt: 'none' });
    const res = await fetch(url, { redirect: 'manual' });
    const callback = new URL(res.headers.get('location') ?? '');
    expect([...callback.searchParams.keys()]).toEqual(['response']);
    const error = await client.finishLogin(callback, transaction).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'authorization_error', error: 'login_required' });
  });

  it('refuses modes a backend cannot receive, or query.jwt with tokens, before any request', () => {
    expect(() => createNodeClient(options('jarm-web', { responseMode: 'fragment.jwt' as 'jwt' }))).toThrow(expect.objectContaining({ code: 'invalid_options' }));
    expect(() => createNodeClient(options('jarm-web', { responseType: 'code id_token', responseMode: 'query.jwt' }))).toThrow(/form_post\.jwt/);
    expect(() => createNodeClient(options('jarm-web', { responseType: 'code id_token', responseMode: 'jwt' }))).toThrow(/form_post\.jwt/);
  });

  it('a provider that does not list the JARM mode is refused at startLogin', async () => {
    const metadata = await createNodeClient(options()).getProvider();
    const client = createNodeClient(options('jarm-web', { issuer: undefined, provider: { ...metadata, response_modes_supported: ['query', 'form_post'] } }));
    expect(await refusal(client.startLogin())).toBe('invalid_provider_metadata');
  });
});

// One row per JARM module of the FAPI 2.0 Message Signing client plan: the fault the fake
// provider sends, and the code the client refuses it with. Pass rule: no token request.
const FAULT_CASES = [
  ['jarm_missing_iss', 'jarm_iss_mismatch'], // ...-ensure-jarm-without-iss-fails
  ['jarm_wrong_iss', 'jarm_iss_mismatch'], // ...-ensure-jarm-with-invalid-iss-fails
  ['jarm_missing_aud', 'jarm_aud_mismatch'], // ...-ensure-jarm-without-aud-fails
  ['jarm_wrong_aud', 'jarm_aud_mismatch'], // ...-ensure-jarm-with-invalid-aud-fails
  ['jarm_missing_exp', 'jarm_exp_missing'], // ...-ensure-jarm-without-exp-fails
  ['jarm_expired', 'jarm_expired'], // ...-ensure-jarm-with-expired-exp-fails
  ['jarm_bad_signature', 'jarm_signature_invalid'], // ...-ensure-jarm-with-invalid-sig-fails
  ['jarm_alg_none', 'jarm_alg_not_allowed'], // ...-ensure-jarm-signature-is-not-none
  ['jarm_plain_response', 'jarm_response_missing'], // a downgrade: plain parameters where JARM was asked
] as const;

describe('JARM faults: refused before the code is redeemed', () => {
  it.each(FAULT_CASES)('%s -> %s', async (fault, code) => {
    await server.control.faults.set('jarm-web', fault, { tenant: 'demo' });
    const client = createNodeClient(options());
    const { url, transaction } = await client.startLogin();
    const callback = await redirected(url);
    const before = server.count('POST', '/oidc/token');
    expect(await refusal(client.finishLogin(callback, transaction))).toBe(code);
    expect(server.count('POST', '/oidc/token')).toBe(before);
  });
});

describe('attacks', () => {
  it("a JARM response replayed to another client (its aud) is refused, even with that client's state", async () => {
    const victim = createNodeClient(options('jarm-web'));
    const { url } = await victim.startLogin();
    const stolen = (await redirected(url)).searchParams.get('response') ?? '';
    const other = createNodeClient(options('jarm-other'));
    const { transaction } = await other.startLogin();
    const before = server.count('POST', '/oidc/token');
    expect(await refusal(other.finishLogin(`${REDIRECT}?response=${stolen}`, transaction))).toBe('jarm_aud_mismatch');
    expect(server.count('POST', '/oidc/token')).toBe(before);
  });

  it('a plain code callback (a real code, state and iss) for a JARM login is a refused downgrade', async () => {
    // The attacker has a genuine plain response of the same client, e.g. from a login it started without JARM.
    const plainClient = createNodeClient(options('jarm-web', { responseMode: 'query' }));
    const plain = await redirected((await plainClient.startLogin()).url);
    const client = createNodeClient(options());
    const { transaction } = await client.startLogin();
    const forged = new URL(REDIRECT);
    forged.searchParams.set('code', plain.searchParams.get('code') ?? '');
    forged.searchParams.set('state', transaction.state);
    forged.searchParams.set('iss', server.issuer);
    const before = server.count('POST', '/oidc/token');
    expect(await refusal(client.finishLogin(forged, transaction))).toBe('jarm_response_missing');
    expect(server.count('POST', '/oidc/token')).toBe(before);
  });

  it('the transaction cannot be edited to drop JARM: it is sealed', async () => {
    const client = createNodeClient(options('jarm-web', { cookieSecret: 'oFp2bAbXNweB5DkDlIp8K5Ci-dGM7BII-jQ4' }));
    const { transaction } = await client.startLogin();
    const sealed = await client.sealTransaction(transaction);
    expect((await client.unsealTransaction(sealed)).jarm).toBe(true);
  });
});

describe('fapi2({ messageSigning: true })', () => {
  for (const clientId of ['fapi-rp', 'fapi-ask']) {
    it(`${clientId}: pushes a signed request object asking for query.jwt, verifies the ES256 response JWT and gets DPoP-bound tokens`, async () => {
      const recorder = recordingFetch();
      const client = createNodeClient(
        fapi2({ issuer: `${server.origin}/bank`, clientId, privateKey: privateJwk, dpop: await dpop(), redirectUri: REDIRECT, scope: 'openid profile', messageSigning: true, fetch: recorder.fetch }),
      );
      const { url, transaction } = await client.startLogin();
      expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
      expect(transaction.jarm).toBe(true);
      // The push: the client assertion beside one signed request object that carries the JARM mode.
      const push = recorder.posts.find((p) => p.url.endsWith('/oauth/par'))!;
      expect([...push.body.keys()].sort()).toEqual(['client_assertion', 'client_assertion_type', 'client_id', 'request']);
      const [header, payload] = push.body.get('request')!.split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
      expect(header).toMatchObject({ alg: 'ES256', typ: 'oauth-authz-req+jwt', kid: 'ms-1' });
      expect(payload).toMatchObject({ response_mode: 'query.jwt', response_type: 'code', client_id: clientId });
      const callback = await redirected(url);
      expect([...callback.searchParams.keys()]).toEqual(['response']);
      const tokens = await client.finishLogin(callback, transaction);
      expect(tokens).toMatchObject({ tokenType: 'DPoP', claims: { sub: 'alice' } });
    });
  }

  it('without messageSigning the provider refuses the push: the client must send a signed request object', async () => {
    const client = createNodeClient(fapi2({ issuer: `${server.origin}/bank`, clientId: 'fapi-rp', privateKey: privateJwk, dpop: await dpop(), redirectUri: REDIRECT }));
    expect(await refusal(client.startLogin())).toBe('token_endpoint_error');
  });

  it('refuses a provider without a FAPI algorithm for JARM, and a JARM fault, before any token request', async () => {
    const base = { clientId: 'fapi-rp', privateKey: privateJwk, dpop: await dpop(), redirectUri: REDIRECT, messageSigning: true };
    const metadata = await createNodeClient(fapi2({ ...base, issuer: `${server.origin}/bank` })).getProvider();
    const rs256 = createNodeClient(fapi2({ ...base, provider: { ...metadata, authorization_signing_alg_values_supported: ['RS256'] } }));
    expect(await refusal(rs256.startLogin())).toBe('invalid_provider_metadata');
    await server.control.faults.set('fapi-rp', 'jarm_wrong_aud', { tenant: 'bank' });
    const client = createNodeClient(fapi2({ ...base, issuer: `${server.origin}/bank` }));
    const { url, transaction } = await client.startLogin();
    const callback = await redirected(url);
    const before = server.count('POST', '/oidc/token');
    expect(await refusal(client.finishLogin(callback, transaction))).toBe('jarm_aud_mismatch');
    expect(server.count('POST', '/oidc/token')).toBe(before);
  });
});

describe('the session layer', () => {
  let world: SessionWorld;
  beforeAll(async () => {
    world = await startSessionWorld();
  });
  afterAll(async () => {
    await world?.close();
  });

  it('logs in with a query.jwt callback', async () => {
    world.use({ loginOptions: { responseMode: 'jwt' } });
    const agent = new Agent(world.appOrigin);
    const callback = await agent.logIn();
    expect(callback.status, (await callback.clone().text()).replace(/<[^>]*>/g, " ").replace(/\s+/g, " ")).toBe(303);
    expect((await agent.json<{ user: { sub: string } }>('/me')).body.user.sub).toBe('alice');
  });

  it('logs in with a form_post.jwt callback', async () => {
    world.use({ loginOptions: { responseMode: 'form_post.jwt' } });
    const agent = new Agent(world.appOrigin);
    const login = await agent.request('/auth/login');
    const result = await completeLogin(login.headers.get('location') as string, { username: 'alice', password: 'wonderland' });
    if (result.type !== 'form_post') throw new Error(`expected a form_post, got ${result.type}`);
    expect([...result.body.keys()]).toEqual(['response']);
    const target = new URL(result.action);
    const callback = await agent.request(target.pathname, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: result.body.toString() });
    expect(callback.status).toBe(303);
    expect((await agent.json<{ user: { sub: string } }>('/me')).body.user.sub).toBe('alice');
  });

  it('a JARM fault at the callback leaves no session and redeems no code', async () => {
    world.use({ loginOptions: { responseMode: 'jwt' } });
    await world.control.faults.set('web', 'jarm_bad_signature', { times: 1 });
    const before = world.count('POST', '/oidc/token');
    const agent = new Agent(world.appOrigin);
    const callback = await agent.logIn();
    expect(callback.status).toBeGreaterThanOrEqual(400);
    expect(world.count('POST', '/oidc/token')).toBe(before);
    expect((await agent.json<{ signedIn: boolean }>('/state')).body.signedIn).toBe(false);
  });
});
