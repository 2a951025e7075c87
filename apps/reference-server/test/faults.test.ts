// The misbehaving mode on the wire: each fault changes exactly what it names, for its client
// only. Whether a client library refuses it is proven in tests/conformance.
import { createHmac } from 'node:crypto';
import { compactVerify, createLocalJWKSet, decodeJwt, decodeProtectedHeader, exportSPKI, importJWK, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, validateConfig, type ServerConfig } from '../src/index';
import { FAULTS, type Fault } from '../src/config/fault-names';
import { authorizeUrl, demoTenant, exchangeWebCode, ISSUER, leftHalfHash, login, ORIGIN, setup, WEB_REDIRECT, type Harness } from './helpers';

/** One confidential client per fault, named after it; the demo's `web` stays well-behaved. */
function withFaultClients(config: ServerConfig): void {
  for (const fault of FAULTS) {
    demoTenant(config).clients?.push({
      client_id: fault,
      client_secret: 'secret',
      redirect_uris: [WEB_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
      response_types: ['code', 'code id_token'],
      scopes: ['openid', 'profile', 'email', 'offline_access', 'api.read'],
      skip_consent: true,
      fault,
    });
  }
}

let h: Harness;
beforeAll(async () => {
  h = await setup(withFaultClients);
});

function params(clientId: string, extra: Record<string, string> = {}): Record<string, string> {
  return { response_type: 'code', client_id: clientId, redirect_uri: WEB_REDIRECT, scope: 'openid profile offline_access', state: 'st-1', nonce: 'n-1', ...extra };
}

async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

async function jwks(): Promise<JWK[]> {
  return ((await json(await h.get('/oidc/jwks'))) as { keys: JWK[] }).keys;
}

/** Logs in as `clientId` and redeems the code with its secret: the raw token response. */
async function codeExchange(clientId: string): Promise<Response> {
  const { params: response } = await login(h, params(clientId));
  return exchangeWebCode(h, response.get('code') ?? '', { client_id: clientId, client_secret: clientId === 'web' ? 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' : 'secret' });
}

async function tokens(clientId: string): Promise<{ access_token: string; id_token: string; refresh_token?: string }> {
  const response = await codeExchange(clientId);
  expect(response.status).toBe(200);
  return (await response.json()) as { access_token: string; id_token: string };
}

async function verifies(jwt: string): Promise<boolean> {
  return compactVerify(jwt, createLocalJWKSet({ keys: await jwks() })).then(
    () => true,
    () => false,
  );
}

describe('config', () => {
  const base = (fault: unknown) => ({
    tenants: [{ id: 't', clients: [{ client_id: 'c', client_secret: 's', redirect_uris: ['https://a.example/cb'], fault }] }],
  });
  const refusal = (fault: unknown): ConfigError => {
    try {
      validateConfig(base(fault));
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return error as ConfigError;
    }
    throw new Error('config was accepted');
  };

  it('takes one fault name or a list; clients without "fault" have none', () => {
    expect([...(validateConfig(base('id_token_wrong_aud'))[0]?.clients.get('c')?.faults ?? [])]).toEqual(['id_token_wrong_aud']);
    const [tenant] = validateConfig(base(['redirect_missing_iss', 'userinfo_wrong_sub']));
    expect([...(tenant?.clients.get('c')?.faults ?? [])]).toEqual(['redirect_missing_iss', 'userinfo_wrong_sub']);
    expect(validateConfig({ tenants: [{ id: 't', clients: [{ client_id: 'c', client_secret: 's', redirect_uris: ['https://a.example/cb'] }] }] })[0]?.clients.get('c')?.faults.size).toBe(0);
  });

  it('catalogues at least the faults of the conformance issue', () => {
    for (const name of [
      'id_token_bad_signature', 'id_token_alg_none', 'id_token_hs256_with_public_key', 'id_token_unknown_kid', 'id_token_wrong_iss',
      'id_token_wrong_aud', 'id_token_multiple_aud_no_azp', 'id_token_expired', 'id_token_iat_future', 'id_token_nonce_mismatch',
      'id_token_missing_nonce', 'id_token_missing_sub', 'id_token_bad_at_hash', 'id_token_bad_c_hash', 'redirect_missing_state',
      'redirect_wrong_state', 'redirect_wrong_iss', 'redirect_missing_iss', 'token_response_not_json', 'token_response_missing_access_token',
      'token_response_token_type_lowercase', 'discovery_issuer_mismatch', 'jwks_key_rotated', 'userinfo_wrong_sub',
    ]) {
      expect(FAULTS).toContain(name);
    }
  });

  it.each<[string, unknown, string]>([
    ['an unknown name', 'id_token_sideways', 'tenants[0].clients[0].fault'],
    ['an unknown name in a list', ['id_token_wrong_aud', 'nope'], 'tenants[0].clients[0].fault[1]'],
    ['a repeated name', ['id_token_wrong_aud', 'id_token_wrong_aud'], 'tenants[0].clients[0].fault[1]'],
    ['a number', 3, 'tenants[0].clients[0].fault'],
    ['an object', { name: 'id_token_wrong_aud' }, 'tenants[0].clients[0].fault'],
  ])('refuses %s, naming the field', (_name, fault, field) => {
    const error = refusal(fault);
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
  });
});

describe('ID token claims', () => {
  const now = () => Math.floor(h.clock.ms / 1000);
  it.each<[Fault, (claims: Record<string, unknown>, body: { access_token: string }) => void]>([
    ['id_token_wrong_iss', (c) => expect(c.iss).toBe(`${ORIGIN}/impostor-of-demo`)],
    ['id_token_wrong_aud', (c) => expect(c.aud).toBe('another-client')],
    ['id_token_multiple_aud_no_azp', (c) => {
      expect(c.aud).toEqual(['id_token_multiple_aud_no_azp', 'another-client']);
      expect(c).not.toHaveProperty('azp');
    }],
    ['id_token_azp_mismatch', (c) => expect(c).toMatchObject({ aud: ['id_token_azp_mismatch', 'another-client'], azp: 'another-client' })],
    ['id_token_expired', (c) => expect(c.exp).toBeLessThan(now() - 600)],
    ['id_token_iat_future', (c) => {
      expect(c.iat).toBeGreaterThan(now() + 600);
      expect(c.exp).toBeGreaterThan(c.iat as number);
    }],
    ['id_token_nonce_mismatch', (c) => {
      expect(c.nonce).toEqual(expect.any(String));
      expect(c.nonce).not.toBe('n-1');
    }],
    ['id_token_missing_nonce', (c) => expect(c).not.toHaveProperty('nonce')],
    ['id_token_missing_sub', (c) => expect(c).not.toHaveProperty('sub')],
    ['id_token_bad_at_hash', (c, body) => {
      expect(c.at_hash).toEqual(expect.any(String));
      expect(c.at_hash).not.toBe(leftHalfHash(body.access_token));
    }],
  ])('%s: only that claim is wrong, and the token is properly signed', async (fault, check) => {
    const body = await tokens(fault);
    const claims = decodeJwt(body.id_token) as Record<string, unknown>;
    check(claims, body);
    expect(await verifies(body.id_token)).toBe(true);
    const untouched = { iss: ISSUER, aud: fault, sub: 'alice', nonce: 'n-1', at_hash: leftHalfHash(body.access_token) };
    const changed: Partial<Record<Fault, string[]>> = {
      id_token_wrong_iss: ['iss'], id_token_wrong_aud: ['aud'], id_token_multiple_aud_no_azp: ['aud'], id_token_azp_mismatch: ['aud'],
      id_token_nonce_mismatch: ['nonce'], id_token_missing_nonce: ['nonce'], id_token_missing_sub: ['sub'], id_token_bad_at_hash: ['at_hash'],
    };
    for (const [claim, value] of Object.entries(untouched)) if (!changed[fault]?.includes(claim)) expect(claims[claim]).toEqual(value);
  });

  it('a well-behaved client of the same tenant gets a correct ID token', async () => {
    const body = await tokens('web');
    expect(decodeJwt(body.id_token)).toMatchObject({ iss: ISSUER, aud: 'web', sub: 'alice', nonce: 'n-1', at_hash: leftHalfHash(body.access_token) });
    expect(await verifies(body.id_token)).toBe(true);
  });

  it('c_hash faults change the c_hash of a front-channel ID token (hybrid)', async () => {
    const bad = await login(h, params('id_token_bad_c_hash', { response_type: 'code id_token' }));
    const badClaims = decodeJwt(bad.params.get('id_token') ?? '');
    expect(badClaims.c_hash).toEqual(expect.any(String));
    expect(badClaims.c_hash).not.toBe(leftHalfHash(bad.params.get('code') ?? ''));
    const missing = await login(h, params('id_token_missing_c_hash', { response_type: 'code id_token' }));
    expect(decodeJwt(missing.params.get('id_token') ?? '')).not.toHaveProperty('c_hash');
    const good = await login(h, params('web', { response_type: 'code id_token' }));
    expect(decodeJwt(good.params.get('id_token') ?? '').c_hash).toBe(leftHalfHash(good.params.get('code') ?? ''));
  });
});

describe('ID token signatures and keys', () => {
  it('id_token_bad_signature: a published kid, right claims, a signature that does not verify', async () => {
    const { id_token } = await tokens('id_token_bad_signature');
    const { kid, alg } = decodeProtectedHeader(id_token);
    expect(alg).toBe('RS256');
    expect((await jwks()).map((k) => k.kid)).toContain(kid);
    expect(decodeJwt(id_token)).toMatchObject({ iss: ISSUER, aud: 'id_token_bad_signature', sub: 'alice' });
    expect(await verifies(id_token)).toBe(false);
  });

  it('id_token_alg_none: an unsecured JWT with an empty signature', async () => {
    const { id_token } = await tokens('id_token_alg_none');
    expect(decodeProtectedHeader(id_token)).toEqual({ alg: 'none', typ: 'JWT' });
    expect(id_token.endsWith('.')).toBe(true);
    expect(decodeJwt(id_token)).toMatchObject({ iss: ISSUER, sub: 'alice' });
  });

  it('id_token_hs256_with_public_key: HS256 keyed with the PEM of the published public key', async () => {
    const { id_token } = await tokens('id_token_hs256_with_public_key');
    const { alg, kid } = decodeProtectedHeader(id_token);
    expect(alg).toBe('HS256');
    const published = (await jwks()).find((k) => k.kid === kid);
    expect(published).toBeDefined();
    const pem = await exportSPKI((await importJWK(published as JWK, 'RS256')) as CryptoKey);
    const [header, payload, signature] = id_token.split('.');
    expect(createHmac('sha256', pem).update(`${header}.${payload}`).digest('base64url')).toBe(signature);
  });

  it('id_token_unknown_kid: signed with a key the JWKS never publishes', async () => {
    const { id_token } = await tokens('id_token_unknown_kid');
    const { kid } = decodeProtectedHeader(id_token);
    expect(typeof kid).toBe('string');
    expect((await jwks()).map((k) => k.kid)).not.toContain(kid);
    expect(await verifies(id_token)).toBe(false);
  });

  it('id_token_wrong_alg: signed ES256 by a published EC key (the tenant signs RS256), which discovery lists', async () => {
    const { id_token } = await tokens('id_token_wrong_alg');
    const { alg, kid } = decodeProtectedHeader(id_token);
    expect(alg).toBe('ES256');
    expect((await jwks()).find((k) => k.kid === kid)).toMatchObject({ kty: 'EC', alg: 'ES256' });
    expect(await verifies(id_token)).toBe(true);
    const discovery = await json(await h.get('/.well-known/openid-configuration'));
    expect(discovery.id_token_signing_alg_values_supported).toEqual(['RS256', 'ES256']);
    expect(decodeProtectedHeader((await tokens('web')).id_token).alg).toBe('RS256');
  });

  it.each<[Fault, (claims: Record<string, unknown>) => void]>([
    ['refresh_id_token_wrong_iss', (c) => expect(c).toMatchObject({ iss: `${ORIGIN}/impostor-of-demo`, sub: 'alice' })],
    ['refresh_id_token_wrong_sub', (c) => expect(c).toMatchObject({ iss: ISSUER, sub: 'alice-impostor' })],
  ])('%s: the refresh response carries a signed ID token naming another issuer or user (the login is untouched)', async (fault, check) => {
    const { id_token: loginIdToken, refresh_token } = await tokens(fault);
    expect(decodeJwt(loginIdToken)).toMatchObject({ iss: ISSUER, sub: 'alice' });
    const refreshed = await json(await h.post('/oauth/token', { grant_type: 'refresh_token', refresh_token: refresh_token ?? '', client_id: fault, client_secret: 'secret' }));
    const idToken = refreshed.id_token as string;
    expect(await verifies(idToken)).toBe(true);
    const claims = decodeJwt(idToken);
    expect(claims).toMatchObject({ aud: fault, at_hash: leftHalfHash(refreshed.access_token as string) });
    check(claims);
    // A well-behaved client's refresh carries no ID token, as the contract says.
    const web = await tokens('web');
    const webRefreshed = await json(await h.post('/oauth/token', { grant_type: 'refresh_token', refresh_token: web.refresh_token ?? '', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' }));
    expect(webRefreshed).toHaveProperty('access_token');
    expect(webRefreshed).not.toHaveProperty('id_token');
  });

  it('jwks_key_rotated: each ID token is signed with a new key, published only from then on', async () => {
    const before = (await jwks()).map((k) => k.kid);
    const first = (await tokens('jwks_key_rotated')).id_token;
    const firstKid = decodeProtectedHeader(first).kid;
    expect(before).not.toContain(firstKid);
    expect((await jwks()).map((k) => k.kid)).toContain(firstKid);
    expect(await verifies(first)).toBe(true);

    const second = (await tokens('jwks_key_rotated')).id_token;
    expect(decodeProtectedHeader(second).kid).not.toBe(firstKid);
    expect(await verifies(second)).toBe(true);
    // The tenant's own key still signs everyone else's tokens.
    expect(decodeProtectedHeader((await tokens('web')).id_token).kid).toBe(before[0]);
  });
});

describe('the redirect back to the client', () => {
  it.each<[Fault, (p: URLSearchParams) => void]>([
    ['redirect_missing_state', (p) => expect(p.has('state')).toBe(false)],
    ['redirect_wrong_state', (p) => expect(p.get('state')).toMatch(/^[\w-]{16,}$/)],
    ['redirect_wrong_iss', (p) => expect(p.get('iss')).toBe(`${ORIGIN}/impostor-of-demo`)],
    ['redirect_missing_iss', (p) => expect(p.has('iss')).toBe(false)],
  ])('%s, on success and on error responses alike', async (fault, check) => {
    const success = await login(h, params(fault));
    expect(success.params.get('code')).toEqual(expect.any(String));
    check(success.params);
    const denied = await login(h, params(fault, { prompt: 'none' }));
    expect(denied.params.get('error')).toBe('login_required');
    check(denied.params);
    if (fault !== 'redirect_wrong_state') expect(success.params.get('state') ?? 'st-1').toBe('st-1');
    else expect(success.params.get('state')).not.toBe('st-1');
    if (!fault.endsWith('_iss')) expect(success.params.get('iss')).toBe(ISSUER);
  });

  it.each(['form_post', 'fragment', 'query'])(
    'authorize_error_login_required: error=login_required with state and iss, delivered by %s, for a valid request',
    async (mode) => {
      const res = await h.fetch(new Request(authorizeUrl({ ...params('authorize_error_login_required', { response_type: mode === 'query' ? 'code' : 'code id_token' }), response_mode: mode })));
      let sent: URLSearchParams;
      if (mode === 'form_post') {
        expect(res.status).toBe(200);
        const page = await res.text();
        expect(page).toContain(`<form method="post" action="${WEB_REDIRECT}">`);
        sent = new URLSearchParams([...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1] ?? '', m[2] ?? '']));
      } else {
        expect(res.status).toBe(302);
        const location = new URL(res.headers.get('location') ?? '');
        expect(`${location.origin}${location.pathname}`).toBe(WEB_REDIRECT);
        sent = mode === 'fragment' ? new URLSearchParams(location.hash.slice(1)) : location.searchParams;
      }
      expect(Object.fromEntries(sent)).toMatchObject({ error: 'login_required', state: 'st-1', iss: ISSUER });
      expect(sent.has('code')).toBe(false);
    },
  );

  it('a well-behaved client gets state and iss', async () => {
    const { params: p } = await login(h, params('web'));
    expect(p.get('state')).toBe('st-1');
    expect(p.get('iss')).toBe(ISSUER);
  });
});

describe('token responses', () => {
  it('token_response_not_json: 200 with an HTML page, at the code exchange, refresh and client credentials', async () => {
    const response = await codeExchange('token_response_not_json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const text = await response.text();
    expect(text).toMatch(/^<!doctype html>/);
    expect(() => JSON.parse(text)).toThrow();
    const cc = await h.post('/oauth/token', { grant_type: 'client_credentials', client_id: 'token_response_not_json', client_secret: 'secret' });
    expect(cc.status).toBe(200);
    expect(cc.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it.each<[Fault, (body: Record<string, unknown>) => void]>([
    ['token_response_missing_access_token', (b) => {
      expect(b).not.toHaveProperty('access_token');
      expect(b).toMatchObject({ token_type: 'Bearer', id_token: expect.any(String) });
    }],
    ['token_response_token_type_lowercase', (b) => expect(b).toMatchObject({ token_type: 'bearer', access_token: expect.any(String) })],
    ['token_response_unknown_token_type', (b) => expect(b).toMatchObject({ token_type: 'mac', access_token: expect.any(String) })],
    ['id_token_missing', (b) => {
      expect(b).not.toHaveProperty('id_token');
      expect(b).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
    }],
  ])('%s at the code exchange', async (fault, check) => {
    const response = await codeExchange(fault);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    check(await json(response));
  });

  it('token_response_missing_access_token applies to refresh responses too', async () => {
    const { params: p } = await login(h, params('token_response_missing_access_token'));
    const first = await json(await exchangeWebCode(h, p.get('code') ?? '', { client_id: 'token_response_missing_access_token', client_secret: 'secret' }));
    const refreshed = await h.post('/oauth/token', {
      grant_type: 'refresh_token', refresh_token: first.refresh_token as string, client_id: 'token_response_missing_access_token', client_secret: 'secret',
    });
    expect(refreshed.status).toBe(200);
    const body = await json(refreshed);
    expect(body).not.toHaveProperty('access_token');
    expect(body.refresh_token).toEqual(expect.any(String));
  });
});

describe('discovery and userinfo', () => {
  it('discovery_issuer_mismatch: the tenant’s discovery document names another issuer; other tenants are untouched', async () => {
    const mismatch = await setup((config) => {
      config.tenants.push({
        id: 'mismatch',
        clients: [{ client_id: 'c', client_secret: 's', redirect_uris: [WEB_REDIRECT], fault: 'discovery_issuer_mismatch' }],
      });
    });
    const doc = await json(await mismatch.fetch(new Request(`${ORIGIN}/mismatch/.well-known/openid-configuration`)));
    expect(doc.issuer).toBe(`${ORIGIN}/impostor-of-mismatch`);
    expect(doc.authorization_endpoint).toBe(`${ORIGIN}/mismatch/oidc/authorize`);
    expect((await json(await mismatch.get('/.well-known/openid-configuration'))).issuer).toBe(ISSUER);
  });

  it('userinfo_wrong_sub: the userinfo of that client’s tokens names another subject', async () => {
    const faulty = await tokens('userinfo_wrong_sub');
    const claims = await json(await h.get('/oidc/userinfo', { authorization: `Bearer ${faulty.access_token}` }));
    expect(claims.sub).toBe('alice-impostor');
    expect(decodeJwt(faulty.id_token).sub).toBe('alice');
    const good = await tokens('web');
    expect((await json(await h.get('/oidc/userinfo', { authorization: `Bearer ${good.access_token}` }))).sub).toBe('alice');
  });
});
