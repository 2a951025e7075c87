// Dynamic client registration over real HTTP: RFC 8414 metadata advertising the endpoint, an
// open tenant and one behind an initial access token (RFC 7591 3), a registered public client
// logging in with PKCE and a resource, a confidential one using its secret, the client managing
// its registration (RFC 7592), and every refusal: redirect URIs off https/loopback, metadata the
// policy does not allow, other clients' registration URIs, malformed bodies, the size cap.
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeLogin, CookieJar } from '../src/testing';
import { basic, pkce } from './helpers';
import { type DpopServer, json, startDpopServer } from './support/dpop-server';

const API = 'https://mcp.example/tools';
const INITIAL = 'q8Zr2VbN4xLk7TsW1yHc9PdGm3JfAe6U'; // 32 random characters
const REDIRECT = 'http://127.0.0.1:8976/callback';

let s: DpopServer;
beforeAll(async () => {
  s = await startDpopServer((config) => {
    const demo = config.tenants[0];
    if (!demo) throw new Error('no demo tenant');
    demo.access_token_format = 'jwt';
    demo.registration = { access: 'open', scopes: ['openid', 'profile', 'offline_access', 'api.read'], resources: [API], max_clients: 8 };
    config.tenants.push(
      { id: 'closed', development: true, registration: { access: 'initial_access_token', initial_access_token: INITIAL } },
      { id: 'none', development: true },
    );
  });
});
afterAll(async () => {
  await s?.close();
});

const origin = () => s.listening.origin;

function registerAt(tenant: string, metadata: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${origin()}/${tenant}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof metadata === 'string' ? metadata : JSON.stringify(metadata),
  });
}

const publicClient = { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], client_name: 'Agent', scope: 'openid offline_access' };

async function registered(metadata: unknown = publicClient): Promise<Record<string, unknown>> {
  const res = await registerAt('demo', metadata);
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body;
}

async function expectError(res: Response, status: number, error: string): Promise<Record<string, unknown>> {
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe('string');
  return body;
}

describe('authorization server metadata (RFC 8414)', () => {
  it('is served at the path-inserted and the appended well-known URIs, with the issuer and the registration endpoint', async () => {
    const issuer = `${origin()}/demo`;
    for (const url of [`${origin()}/.well-known/oauth-authorization-server/demo`, `${issuer}/.well-known/oauth-authorization-server`, `${origin()}/.well-known/openid-configuration/demo`]) {
      const res = await fetch(url);
      expect(res.status, url).toBe(200);
      const doc = await json(res);
      expect(doc.issuer).toBe(issuer);
      expect(doc.registration_endpoint).toBe(`${issuer}/oauth/register`);
      expect(doc.code_challenge_methods_supported).toEqual(['S256']);
    }
    const other = await json(await fetch(`${origin()}/.well-known/oauth-authorization-server/none`));
    expect(other.issuer).toBe(`${origin()}/none`);
    expect(other).not.toHaveProperty('registration_endpoint');
    expect((await fetch(`${origin()}/.well-known/oauth-authorization-server/nosuch`)).status).toBe(404);
  });
});

describe('registering a client (RFC 7591)', () => {
  it('registers a public client that logs in with PKCE and a resource, and refreshes', async () => {
    const client = await registered();
    expect(client).toMatchObject({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], client_name: 'Agent', scope: 'openid offline_access' });
    expect(client).not.toHaveProperty('client_secret');
    expect(client.registration_client_uri).toBe(`${origin()}/demo/oauth/register/${String(client.client_id)}`);
    expect(typeof client.registration_access_token).toBe('string');

    const { verifier, challenge } = pkce();
    const url = new URL(`${origin()}/demo/oidc/authorize`);
    const params = { response_type: 'code', client_id: String(client.client_id), redirect_uri: REDIRECT, scope: 'openid offline_access', state: 's', code_challenge: challenge, code_challenge_method: 'S256', resource: API };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const result = await completeLogin(url, { fetch: (r) => fetch(r), cookies: new CookieJar() });
    if (result.type !== 'redirect') throw new Error('expected a redirect');
    const code = new URL(result.location).searchParams.get('code') ?? '';
    const tokens = await json(await s.token('/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: String(client.client_id), code_verifier: verifier }));
    expect(decodeJwt(String(tokens.access_token))).toMatchObject({ aud: API, client_id: client.client_id });
    const refreshed = await s.token('/oauth/token', { grant_type: 'refresh_token', client_id: String(client.client_id), refresh_token: String(tokens.refresh_token), resource: API });
    expect(refreshed.status).toBe(200);
  });

  it('a registered public client must use PKCE, and gets only the policy resources', async () => {
    const client = await registered();
    const url = new URL(`${origin()}/demo/oidc/authorize`);
    for (const [k, v] of Object.entries({ response_type: 'code', client_id: String(client.client_id), redirect_uri: REDIRECT, scope: 'openid', state: 's' })) url.searchParams.set(k, v);
    const noPkce = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location') ?? '');
    expect(noPkce.searchParams.get('error')).toBe('invalid_request');
    expect(noPkce.searchParams.get('error_description')).toMatch(/PKCE/);
    url.searchParams.set('code_challenge', pkce().challenge);
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('resource', 'https://payroll.example/');
    const elsewhere = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location') ?? '');
    expect(elsewhere.searchParams.get('error')).toBe('invalid_target');
  });

  it('registers a confidential client with a secret it authenticates with (client credentials for the policy resource)', async () => {
    const client = await registered({ grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic', scope: 'api.read' });
    expect(typeof client.client_secret).toBe('string');
    expect(client.client_secret_expires_at).toBe(0);
    const auth = { authorization: basic(String(client.client_id), String(client.client_secret)) };
    const res = await s.token('/oauth/token', { grant_type: 'client_credentials', scope: 'api.read', resource: API }, auth);
    expect(decodeJwt(String((await json(res)).access_token)).aud).toBe(API);
    await expectError(await s.token('/oauth/token', { grant_type: 'client_credentials', scope: 'api.read' }, { authorization: basic(String(client.client_id), 'wrong-secret') }), 401, 'invalid_client');
  });

  it.each([
    ['http off loopback', { ...publicClient, redirect_uris: ['http://app.example/cb'] }],
    ['a custom scheme', { ...publicClient, redirect_uris: ['com.example.app:/cb'] }],
    ['a fragment', { ...publicClient, redirect_uris: ['https://app.example/cb#x'] }],
    ['javascript:', { ...publicClient, redirect_uris: ['javascript:alert(1)'] }],
    ['none for the code flow', { ...publicClient, redirect_uris: [] }],
    ['a non-string', { ...publicClient, redirect_uris: [42] }],
  ])('refuses redirect URIs with %s: invalid_redirect_uri', async (_name, metadata) => {
    await expectError(await registerAt('demo', metadata), 400, 'invalid_redirect_uri');
  });

  it.each([
    ['the implicit grant', { ...publicClient, grant_types: ['implicit'] }],
    ['a token response type', { ...publicClient, response_types: ['code', 'token'] }],
    ['client credentials for a public client', { grant_types: ['client_credentials'], token_endpoint_auth_method: 'none' }],
    ['a scope outside the policy', { ...publicClient, scope: 'openid admin' }],
    ['an unknown auth method', { ...publicClient, token_endpoint_auth_method: 'tls_client_auth' }],
    ['private key material in jwks', { ...publicClient, token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'secret' }] } }],
    ['private_key_jwt without keys', { ...publicClient, token_endpoint_auth_method: 'private_key_jwt' }],
    ['a non-boolean dpop_bound_access_tokens', { ...publicClient, dpop_bound_access_tokens: 'yes' }],
    ['a JSON array', [publicClient]],
    ['malformed JSON', '{"redirect_uris": ['],
  ])('refuses %s: invalid_client_metadata', async (_name, metadata) => {
    await expectError(await registerAt('demo', metadata), 400, 'invalid_client_metadata');
  });

  it('refuses a body that is not JSON, without a 5xx', async () => {
    const res = await fetch(`${origin()}/demo/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'redirect_uris=x' });
    await expectError(res, 400, 'invalid_client_metadata');
  });

  it('ignores metadata it does not understand (RFC 7591 2)', async () => {
    const client = await registered({ ...publicClient, logo_uri: 'https://agent.example/logo.png', software_id: 'x' });
    expect(client).not.toHaveProperty('logo_uri');
  });

  it('behind an initial access token: refused without it or with another, registered with it', async () => {
    const metadata = { redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'none' };
    const missing = await registerAt('closed', metadata);
    await expectError(missing, 401, 'invalid_token');
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    await expectError(await registerAt('closed', metadata, { authorization: `Bearer ${INITIAL.replace('q', 'Q')}` }), 401, 'invalid_token');
    const ok = await registerAt('closed', metadata, { authorization: `Bearer ${INITIAL}` });
    expect(ok.status).toBe(201);
  });

  it('is not offered by a tenant without registration: 404 in JSON', async () => {
    await expectError(await registerAt('none', publicClient), 404, 'invalid_request');
  });
});

describe('managing a registration (RFC 7592)', () => {
  it('reads, updates and deletes with the registration access token, and nothing with another', async () => {
    const client = await registered();
    const uri = String(client.registration_client_uri);
    const auth = { authorization: `Bearer ${String(client.registration_access_token)}` };
    const read = await json(await fetch(uri, { headers: auth }));
    expect(read).toMatchObject({ client_id: client.client_id, redirect_uris: [REDIRECT], registration_client_uri: uri });
    expect(read).not.toHaveProperty('registration_access_token');

    const other = await registered();
    const otherAuth = { authorization: `Bearer ${String(other.registration_access_token)}` };
    await expectError(await fetch(uri, { headers: otherAuth }), 401, 'invalid_token');
    await expectError(await fetch(uri), 401, 'invalid_token');
    await expectError(await fetch(`${origin()}/demo/oauth/register/no-such-client`, { headers: auth }), 401, 'invalid_token');

    const second = 'http://localhost:8976/callback';
    const put = (body: unknown, headers = auth) => fetch(uri, { method: 'PUT', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const updated = await put({ ...publicClient, client_id: client.client_id, redirect_uris: [REDIRECT, second] });
    expect(updated.status).toBe(200);
    expect((await json(updated)).redirect_uris).toEqual([REDIRECT, second]);
    await expectError(await put({ ...publicClient, client_id: other.client_id }), 400, 'invalid_request');
    await expectError(await put({ ...publicClient, client_id: client.client_id, redirect_uris: ['http://evil.example/cb'] }), 400, 'invalid_redirect_uri');
    await expectError(await put({ ...publicClient, client_id: client.client_id }, otherAuth), 401, 'invalid_token');

    const deleted = await fetch(uri, { method: 'DELETE', headers: auth });
    expect(deleted.status).toBe(204);
    await expectError(await fetch(uri, { headers: auth }), 401, 'invalid_token');
    const url = new URL(`${origin()}/demo/oidc/authorize`);
    url.searchParams.set('client_id', String(client.client_id));
    url.searchParams.set('redirect_uri', REDIRECT);
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(400);
  });
});

describe('front-channel logout metadata (Front-Channel Logout 1.0 §2)', () => {
  it('registers frontchannel_logout_uri and frontchannel_logout_session_required and reads them back', async () => {
    const body = await registered({ ...publicClient, frontchannel_logout_uri: 'http://127.0.0.1:8976/fcl', frontchannel_logout_session_required: true });
    expect(body.frontchannel_logout_uri).toBe('http://127.0.0.1:8976/fcl');
    expect(body.frontchannel_logout_session_required).toBe(true);
  });

  it('refuses a frontchannel_logout_uri off https/loopback or with a fragment, and a non-boolean flag', async () => {
    for (const uri of ['http://app.example/fcl', 'https://app.example/fcl#x', 'nope']) {
      await expectError(await registerAt('demo', { ...publicClient, frontchannel_logout_uri: uri }), 400, 'invalid_client_metadata');
    }
    await expectError(await registerAt('demo', { ...publicClient, frontchannel_logout_uri: 'https://app.example/fcl', frontchannel_logout_session_required: 'yes' }), 400, 'invalid_client_metadata');
  });
});

describe('the registration cap', () => {
  it('refuses registrations past max_clients with 403 access_denied, and a deletion frees a place', async () => {
    const made: Record<string, unknown>[] = [];
    for (;;) {
      const res = await registerAt('demo', publicClient);
      if (res.status !== 201) {
        await expectError(res, 403, 'access_denied');
        break;
      }
      made.push(await json(res));
      expect(made.length).toBeLessThanOrEqual(8);
    }
    const last = made.at(-1) ?? (await registered());
    await fetch(String(last.registration_client_uri), { method: 'DELETE', headers: { authorization: `Bearer ${String(last.registration_access_token)}` } });
    expect((await registerAt('demo', publicClient)).status).toBe(201);
  });
});

