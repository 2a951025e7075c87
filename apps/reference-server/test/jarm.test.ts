// JARM on the server side: each response mode delivers one signed `response` JWT (iss, aud,
// short exp, the parameters), errors too; a client registered with
// authorization_signed_response_alg always gets one; each JARM fault breaks exactly what it names.
import { compactVerify, createLocalJWKSet, decodeJwt, decodeProtectedHeader, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, JARM_FAULTS, validateConfig, type ServerConfig } from '../src/index';
import { completeLogin, CookieJar } from '../src/testing';
import { authorizeUrl, demoTenant, ISSUER, login, setup, WEB_REDIRECT, type Harness } from './helpers';

function clients(config: ServerConfig): void {
  const tenant = demoTenant(config);
  tenant.registration = { access: 'open', scopes: ['openid'] };
  const client = (client_id: string, extra: Record<string, unknown> = {}) => ({
    client_id,
    client_secret: 'secret',
    redirect_uris: [WEB_REDIRECT],
    response_types: ['code', 'code id_token'] as ('code' | 'code id_token')[],
    scopes: ['openid', 'profile'],
    skip_consent: true,
    ...extra,
  });
  tenant.clients?.push(client('jarm-web'), client('always-jarm', { authorization_signed_response_alg: 'RS256' }));
  for (const fault of JARM_FAULTS) tenant.clients?.push(client(fault, { fault }));
}

let h: Harness;
beforeAll(async () => {
  h = await setup(clients);
});

const params = (clientId: string, extra: Record<string, string> = {}) => ({
  response_type: 'code',
  client_id: clientId,
  redirect_uri: WEB_REDIRECT,
  scope: 'openid profile',
  state: 'st-jarm',
  nonce: 'n-jarm',
  ...extra,
});

async function jwks(): Promise<JWK[]> {
  return ((await (await h.get('/oidc/jwks')).json()) as { keys: JWK[] }).keys;
}

async function verified(jwt: string): Promise<Record<string, unknown>> {
  const { payload } = await compactVerify(jwt, createLocalJWKSet({ keys: await jwks() }));
  return JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
}

const now = () => Math.floor(h.clock.ms / 1000);

describe('JARM response modes', () => {
  it('discovery lists the JARM modes and the signing algorithm (JARM 4)', async () => {
    const doc = (await (await h.get('/.well-known/openid-configuration')).json()) as Record<string, unknown>;
    expect(doc.response_modes_supported).toEqual(['query', 'fragment', 'form_post', 'jwt', 'query.jwt', 'fragment.jwt', 'form_post.jwt']);
    expect(doc.authorization_signing_alg_values_supported).toEqual(['RS256']);
  });

  it.each(['jwt', 'query.jwt'])('response_mode=%s for code: one signed `response` in the query, nothing else', async (mode) => {
    const { query, fragment } = await login(h, params('jarm-web', { response_mode: mode }));
    expect([...query.keys()]).toEqual(['response']);
    expect(fragment.toString()).toBe('');
    const jwt = query.get('response') ?? '';
    expect(decodeProtectedHeader(jwt)).toMatchObject({ alg: 'RS256', kid: expect.any(String) });
    const claims = await verified(jwt);
    expect(claims).toMatchObject({ iss: ISSUER, aud: 'jarm-web', state: 'st-jarm', code: expect.any(String) });
    expect(claims.exp).toBe(now() + 60);
  });

  it('fragment.jwt (and jwt for a hybrid type) put the response in the fragment, the ID token inside it', async () => {
    for (const mode of ['fragment.jwt', 'jwt']) {
      const { query, fragment } = await login(h, params('jarm-web', { response_type: 'code id_token', response_mode: mode }));
      expect(query.toString()).toBe('');
      expect([...fragment.keys()]).toEqual(['response']);
      const claims = await verified(fragment.get('response') ?? '');
      expect(claims).toMatchObject({ iss: ISSUER, aud: 'jarm-web', state: 'st-jarm', code: expect.any(String), id_token: expect.any(String) });
    }
  });

  it('form_post.jwt posts one `response` field', async () => {
    const result = await completeLogin(authorizeUrl(params('jarm-web', { response_mode: 'form_post.jwt' })), { fetch: h.fetch });
    if (result.type !== 'form_post') throw new Error(`expected a form_post, got ${result.type}`);
    expect(result.action).toBe(WEB_REDIRECT);
    expect([...result.body.keys()]).toEqual(['response']);
    expect(await verified(result.body.get('response') ?? '')).toMatchObject({ iss: ISSUER, aud: 'jarm-web', code: expect.any(String) });
  });

  it('errors go out as JARM too: prompt=none without a session', async () => {
    const res = await h.get(authorizeUrl(params('jarm-web', { response_mode: 'query.jwt', prompt: 'none' })).toString());
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location') ?? '');
    expect([...location.searchParams.keys()]).toEqual(['response']);
    const claims = await verified(location.searchParams.get('response') ?? '');
    expect(claims).toMatchObject({ iss: ISSUER, aud: 'jarm-web', state: 'st-jarm', error: 'login_required' });
    expect(claims.code).toBeUndefined();
  });

  it('query.jwt for a response type with tokens is refused, as JARM in the fragment', async () => {
    const res = await h.get(authorizeUrl(params('jarm-web', { response_type: 'code id_token', response_mode: 'query.jwt' })).toString());
    const location = new URL(res.headers.get('location') ?? '');
    expect(location.search).toBe('');
    const claims = await verified(new URLSearchParams(location.hash.slice(1)).get('response') ?? '');
    expect(claims).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('query.jwt') });
  });

  it.each(['.jwt', 'jwt.jwt', 'query.jwt.jwt', 'JWT', 'query.JWT', 'x'.repeat(5000)])('a malformed response_mode %#: an invalid_request redirect, never a 5xx', async (mode) => {
    const res = await h.get(authorizeUrl(params('jarm-web', { response_mode: mode })).toString());
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location') ?? '');
    const response = location.searchParams.get('response');
    const error = response ? (await verified(response)).error : location.searchParams.get('error');
    expect(error).toBe('invalid_request');
  });

  it('a client registered with authorization_signed_response_alg always gets JARM, in the mode it asks', async () => {
    const { query } = await login(h, params('always-jarm'));
    expect([...query.keys()]).toEqual(['response']);
    expect(await verified(query.get('response') ?? '')).toMatchObject({ aud: 'always-jarm', code: expect.any(String) });
  });

  it('a plain client asking for no JARM mode is unchanged', async () => {
    const { query } = await login(h, params('jarm-web'));
    expect(query.get('code')).toBeTruthy();
    expect(query.get('iss')).toBe(ISSUER);
    expect(query.has('response')).toBe(false);
  });
});

describe('authorization_signed_response_alg', () => {
  const config = (alg: unknown, signing_alg = 'RS256') => ({
    tenants: [{ id: 't', signing_alg, clients: [{ client_id: 'c', client_secret: 's', redirect_uris: ['https://a.example/cb'], authorization_signed_response_alg: alg }] }],
  });

  it("must be the tenant's signing algorithm, and never none", () => {
    expect(validateConfig(config('ES256', 'ES256'))[0]?.clients.get('c')?.authorization_signed_response_alg).toBe('ES256');
    expect(() => validateConfig(config('ES256'))).toThrow(ConfigError);
    expect(() => validateConfig(config('ES256'))).toThrow(/authorization_signed_response_alg: must be the tenant's signing_alg, "RS256"/);
    expect(() => validateConfig(config('none'))).toThrow(ConfigError);
  });

  it('registration (RFC 7591) takes it, echoes it, and refuses another algorithm with 400 invalid_client_metadata', async () => {
    const register = (metadata: Record<string, unknown>) =>
      h.fetch(new Request(`${ISSUER}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) }));
    const base = { redirect_uris: [WEB_REDIRECT], token_endpoint_auth_method: 'none', scope: 'openid' };
    const ok = await register({ ...base, authorization_signed_response_alg: 'RS256' });
    const client = (await ok.json()) as Record<string, unknown>;
    expect(ok.status, JSON.stringify(client)).toBe(201);
    expect(client.authorization_signed_response_alg).toBe('RS256');
    for (const alg of ['none', 'ES256', 'HS256', 7]) {
      const refused = await register({ ...base, authorization_signed_response_alg: alg });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toBe('invalid_client_metadata');
    }
  });
});

describe('JARM faults', () => {
  async function response(fault: string): Promise<string> {
    const { query } = await login(h, params(fault, { response_mode: 'query.jwt' }), { cookies: new CookieJar() });
    return query.get('response') ?? '';
  }

  it.each<[string, (claims: Record<string, unknown>) => void]>([
    ['jarm_missing_iss', (c) => expect(c.iss).toBeUndefined()],
    ['jarm_wrong_iss', (c) => expect(c.iss).toBe('http://localhost/impostor-of-demo')],
    ['jarm_missing_aud', (c) => expect(c.aud).toBeUndefined()],
    ['jarm_wrong_aud', (c) => expect(c.aud).toBe('another-client')],
    ['jarm_missing_exp', (c) => expect(c.exp).toBeUndefined()],
    ['jarm_expired', (c) => expect(c.exp).toBe(now() - 3600)],
  ])('%s: signed, with that one claim changed', async (fault, check) => {
    const claims = await verified(await response(fault));
    check(claims);
    expect(claims.code).toEqual(expect.any(String));
    expect(claims.state).toBe('st-jarm');
  });

  it('jarm_bad_signature: the claims are intact, the signature fails', async () => {
    const jwt = await response('jarm_bad_signature');
    expect(decodeJwt(jwt)).toMatchObject({ iss: ISSUER, aud: 'jarm_bad_signature' });
    await expect(verified(jwt)).rejects.toThrow();
  });

  it('jarm_alg_none: an unsecured JWT', async () => {
    const jwt = await response('jarm_alg_none');
    expect(decodeProtectedHeader(jwt).alg).toBe('none');
    expect(jwt.endsWith('.')).toBe(true);
    expect(decodeJwt(jwt)).toMatchObject({ iss: ISSUER, aud: 'jarm_alg_none' });
  });

  it('jarm_plain_response: the plain parameters, no JWT (a downgrade)', async () => {
    const { query } = await login(h, params('jarm_plain_response', { response_mode: 'jwt' }));
    expect(query.has('response')).toBe(false);
    expect(query.get('code')).toBeTruthy();
    expect(query.get('iss')).toBe(ISSUER);
  });
});
