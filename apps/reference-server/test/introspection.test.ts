// RFC 7662 introspection over real HTTP: who may ask, and the rule of which tokens are active
// for whom (see src/endpoints/introspect.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic } from './helpers';
import { dpopKey } from './support/dpop';
import { type DpopServer, json, startDpopServer, webExchange } from './support/dpop-server';

const API = 'https://api.example.com';
let s: DpopServer;

beforeAll(async () => {
  s = await startDpopServer((config) => {
    const demo = config.tenants[0];
    for (const client of demo?.clients ?? []) client.resources = [API];
    demo?.clients?.push({ client_id: 'api', client_secret: 'api-secret-0123456789', grant_types: ['client_credentials'], response_types: [], introspection_audiences: [API] });
  });
});
afterAll(async () => {
  await s?.close();
});

const asApi = { authorization: basic('api', 'api-secret-0123456789') };
const asWeb = { authorization: basic('web', 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4') };
const asService = { authorization: basic('service', 'service-secret') };

function introspect(token: string, headers: Record<string, string>, extra: Record<string, string> = {}): Promise<Response> {
  return s.token('/oauth/introspect', { token, ...extra }, headers);
}

async function webTokens(extra: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Record<string, string>> {
  const res = await s.token('/oidc/token', webExchange(await s.webCode(extra)), headers);
  expect(res.status).toBe(200);
  return (await json(res)) as Record<string, string>;
}

describe('POST /oauth/introspect (RFC 7662)', () => {
  it('is in discovery, for confidential clients', async () => {
    const doc = await json(await fetch(`${s.listening.origin}/demo/.well-known/openid-configuration`));
    expect(doc.introspection_endpoint).toBe(`${s.issuer}/oauth/introspect`);
    // The shared client authentication: secrets or RFC 7523 assertions, never none (a public client cannot introspect).
    expect(doc.introspection_endpoint_auth_methods_supported).toEqual(['client_secret_post', 'client_secret_basic', 'client_secret_jwt', 'private_key_jwt']);
    expect(doc.introspection_endpoint_auth_signing_alg_values_supported).toEqual(doc.token_endpoint_auth_signing_alg_values_supported);
  });

  it('answers a client about its own live token: active with the token claims', async () => {
    const { access_token } = await webTokens();
    const res = await introspect(access_token ?? '', asWeb);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await json(res)).toEqual({
      active: true,
      iss: s.issuer,
      sub: 'alice',
      aud: s.issuer,
      exp: s.now() + 3600,
      client_id: 'web',
      scope: 'openid profile offline_access',
      token_type: 'Bearer',
      username: 'alice',
    });
  });

  it('refuses unauthenticated callers, public clients and wrong secrets with 401 invalid_client', async () => {
    const { access_token = '' } = await webTokens();
    for (const headers of [{}, { authorization: basic('web', 'wrong') }] as Record<string, string>[]) {
      const res = await introspect(access_token, headers);
      expect(res.status).toBe(401);
      expect((await json(res)).error).toBe('invalid_client');
    }
    const spa = await introspect(access_token, {}, { client_id: 'spa' });
    expect(spa.status).toBe(401);
    expect(await json(spa)).toMatchObject({ error: 'invalid_client' });
    const body = await s.token('/oauth/introspect', { token: access_token, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
    expect((await json(body)).active).toBe(true);
  });

  it("answers active: false for another client's token unless the caller's introspection_audiences hold its audience", async () => {
    const plain = (await webTokens()).access_token ?? '';
    expect(await json(await introspect(plain, asService))).toEqual({ active: false });
    expect(await json(await introspect(plain, asApi))).toEqual({ active: false });
    const forApi = (await webTokens({ resource: API })).access_token ?? '';
    expect(await json(await introspect(forApi, asApi))).toMatchObject({ active: true, aud: API, client_id: 'web', sub: 'alice' });
    expect(await json(await introspect(forApi, asService))).toEqual({ active: false });
  });

  it('answers active: false for unknown, revoked, expired and refresh tokens', async () => {
    expect(await json(await introspect('not-a-token', asWeb))).toEqual({ active: false });
    const { access_token = '', refresh_token = '' } = await webTokens();
    expect(await json(await introspect(refresh_token, asWeb))).toEqual({ active: false });
    const revoked = await s.token('/oauth/revoke', { token: access_token, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
    expect(revoked.status).toBe(200);
    expect(await json(await introspect(access_token, asWeb))).toEqual({ active: false });
    const other = (await webTokens()).access_token ?? '';
    s.clock.advance(3600);
    expect(await json(await introspect(other, asWeb))).toEqual({ active: false });
  });

  it('names the key of a DPoP-bound token (cnf.jkt) and the DPoP token type', async () => {
    const key = await dpopKey();
    const { access_token = '' } = await webTokens({}, { dpop: await s.proof(key, '/oidc/token') });
    expect(await json(await introspect(access_token, asWeb))).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });
  });

  it('answers malformed requests 400 invalid_request in the JSON shape, never 5xx', async () => {
    const missing = await s.token('/oauth/introspect', {}, asWeb);
    expect(missing.status).toBe(400);
    expect(await json(missing)).toMatchObject({ error: 'invalid_request' });
    const notForm = await fetch(`${s.listening.origin}/demo/oauth/introspect`, { method: 'POST', headers: { 'content-type': 'application/json', ...asWeb }, body: '{"token":"x"}' });
    expect(notForm.status).toBe(400);
    expect(await json(notForm)).toMatchObject({ error: 'invalid_request' });
    const repeated = await fetch(`${s.listening.origin}/demo/oauth/introspect`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...asWeb }, body: 'token=a&token=b' });
    expect(repeated.status).toBe(400);
    const get = await fetch(`${s.listening.origin}/demo/oauth/introspect`);
    expect(get.status).toBe(405);
    const badBasic = await introspect('x', { authorization: 'Basic %%%' });
    expect(badBasic.status).toBe(401);
  });
});

describe('introspection_audiences of a client that becomes public', () => {
  it('give it nothing: a public client cannot introspect (control.clients.update with client_secret: null)', async () => {
    await s.server.control.clients.update('api', { client_secret: null, grant_types: ['authorization_code'], redirect_uris: ['https://api.example.com/cb'] });
    const res = await introspect('any-token', {}, { client_id: 'api' });
    expect(res.status).toBe(401);
    expect(await json(res)).toMatchObject({ error: 'invalid_client' });
  });
});
