import { decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app';
import type { TenantEntry } from '../src/request/context';
import { demoConfig, MemoryStore, validateConfig } from '../src/index';
import { RotatingNonces } from '../src/crypto/rotating-nonces';
import { KeySet } from '../src/keys/keys';
import { demoTenant, exchangeWebCode, ISSUER, login, setup, verifyJwt, webCode, webParams } from './helpers';

describe('GET /.well-known/openid-configuration', () => {
  it('publishes the endpoints, the per-grant token endpoints and the oidc-rp extensions', async () => {
    const h = await setup();
    const res = await h.get('/.well-known/openid-configuration');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/oidc/authorize`,
      token_endpoint: `${ISSUER}/oidc/token`,
      token_endpoint_by_grant: { authorization_code: `${ISSUER}/oidc/token`, refresh_token: `${ISSUER}/oauth/token`, client_credentials: `${ISSUER}/oauth/token` },
      pkce_replaces_client_secret: true,
      jwks_uri: `${ISSUER}/oidc/jwks`,
      userinfo_endpoint: `${ISSUER}/oidc/userinfo`,
      revocation_endpoint: `${ISSUER}/oauth/revoke`,
      end_session_endpoint: `${ISSUER}/oidc/logout`,
      authorization_response_iss_parameter_supported: true,
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'client_secret_jwt', 'private_key_jwt', 'none'],
      id_token_signing_alg_values_supported: ['RS256'],
      subject_types_supported: ['public'],
      response_modes_supported: ['query', 'fragment', 'form_post', 'jwt', 'query.jwt', 'fragment.jwt', 'form_post.jwt'],
      authorization_signing_alg_values_supported: ['RS256'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', 'implicit'],
    });
    expect(doc.response_types_supported).toEqual(['code', 'code id_token', 'code token', 'code token id_token', 'token', 'id_token token', 'id_token']);
    expect(doc.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'offline_access', 'api.read', 'api.write']));
    expect(doc.claims_supported).toEqual(expect.arrayContaining(['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'sid', 'name', 'email', 'email_verified']));
  });

  it('the issuer follows the request origin (in-process and on a port alike)', async () => {
    const h = await setup();
    const res = await h.fetch(new Request('http://127.0.0.1:4000/demo/.well-known/openid-configuration'));
    expect(((await res.json()) as { issuer: string }).issuer).toBe('http://127.0.0.1:4000/demo');
  });

  it('unknown tenants get 404 in the JSON error shape', async () => {
    const h = await setup();
    const res = await h.fetch(new Request('http://localhost/nope/.well-known/openid-configuration'));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('GET /oidc/jwks and signing keys', () => {
  it('publishes RS256 public keys with kid, use and alg, and no private parts', async () => {
    const h = await setup();
    const { keys } = (await (await h.get('/oidc/jwks')).json()) as { keys: Record<string, unknown>[] };
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(typeof keys[0]?.kid).toBe('string');
    for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(keys[0]).not.toHaveProperty(secret);
  });

  it('signs with ES256 when the tenant says so', async () => {
    const h = await setup((config) => {
      demoTenant(config).signing_alg = 'ES256';
    });
    const { keys } = (await (await h.get('/oidc/jwks')).json()) as { keys: Record<string, unknown>[] };
    expect(keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    const body = (await (await exchangeWebCode(h, await webCode(h))).json()) as { id_token: string };
    expect(decodeProtectedHeader(body.id_token)).toMatchObject({ alg: 'ES256', kid: keys[0]?.kid });
    await verifyJwt(h, body.id_token);
    const doc = (await (await h.get('/.well-known/openid-configuration')).json()) as Record<string, unknown>;
    expect(doc.id_token_signing_alg_values_supported).toEqual(['ES256']);
  });

  it('rotation keeps the previous key published until its tokens have expired', async () => {
    const h = await setup();
    const { params } = await login(h, webParams({ response_type: 'code id_token' }));
    const oldToken = params.get('id_token') ?? '';
    const oldKid = decodeProtectedHeader(oldToken).kid;
    const { kid: newKid } = await h.server.rotateSigningKey('demo');
    expect(newKid).not.toBe(oldKid);
    const kids = async () => ((await (await h.get('/oidc/jwks')).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
    expect(await kids()).toEqual([newKid, oldKid]);
    await verifyJwt(h, oldToken);
    const fresh = (await (await exchangeWebCode(h, await webCode(h))).json()) as { id_token: string };
    expect(decodeProtectedHeader(fresh.id_token).kid).toBe(newKid);
    h.clock.advance(3600);
    expect(await kids()).toEqual([newKid]);
    await expect(h.server.rotateSigningKey('nope')).rejects.toThrow(/no tenant/);
  });
});

describe('access token formats', () => {
  it('opaque by default: random, not a JWT', async () => {
    const h = await setup();
    const body = (await (await exchangeWebCode(h, await webCode(h))).json()) as { access_token: string };
    expect(body.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('RFC 9068 JWTs with access_token_format "jwt", still revocable', async () => {
    const h = await setup((config) => {
      demoTenant(config).access_token_format = 'jwt';
    });
    const body = (await (await exchangeWebCode(h, await webCode(h, { scope: 'openid api.read' }))).json()) as { access_token: string };
    expect(decodeProtectedHeader(body.access_token).typ).toBe('at+jwt');
    const claims = await verifyJwt(h, body.access_token, { typ: 'at+jwt' });
    const now = Math.floor(h.clock.ms / 1000);
    expect(claims).toMatchObject({ iss: ISSUER, sub: 'alice', aud: ISSUER, client_id: 'web', scope: 'openid api.read', iat: now, exp: now + 3600 });
    expect(typeof claims.jti).toBe('string');
    expect((await h.get('/oidc/userinfo', { authorization: `Bearer ${body.access_token}` })).status).toBe(200);
    await h.post('/oauth/revoke', { token: body.access_token, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
    expect((await h.get('/oidc/userinfo', { authorization: `Bearer ${body.access_token}` })).status).toBe(401);
    const cc = (await (await h.post('/oauth/token', { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret' })).json()) as { access_token: string };
    expect(await verifyJwt(h, cc.access_token)).toMatchObject({ sub: 'service', client_id: 'service', scope: 'api.read api.write' });
  });
});

describe('signing keys still being generated', () => {
  it('discovery and opaque client-credentials tokens answer at once; the JWKS waits for the keys', async () => {
    const [tenant] = validateConfig(demoConfig());
    if (!tenant) throw new Error('demo config has no tenant');
    const ready = await KeySet.create('RS256', Date.now);
    let release: (keys: KeySet) => void = () => undefined;
    const pending = new Promise<KeySet>((resolve) => (release = resolve));
    const entry: TenantEntry = { tenant, store: new MemoryStore(), keys: () => pending, rotateKey: async () => ready.current };
    const app = createApp({ tenants: new Map([['demo', entry]]), now: Date.now, logger: { info: () => undefined, error: () => undefined }, origin: { trustedHosts: new Set(), trustProxy: false }, dpopNonces: new RotatingNonces(Buffer.alloc(32, 1), Date.now) });

    let jwksAnswered = false;
    const jwks = Promise.resolve(app.fetch(new Request(`${ISSUER}/oidc/jwks`))).then((res) => {
      jwksAnswered = true;
      return res;
    });
    const discovery = await app.fetch(new Request(`${ISSUER}/.well-known/openid-configuration`));
    expect(discovery.status).toBe(200);
    const token = await app.fetch(
      new Request(`${ISSUER}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=service&client_secret=service-secret',
      }),
    );
    expect(token.status).toBe(200);
    expect(jwksAnswered).toBe(false);

    release(ready);
    const published = (await (await jwks).json()) as { keys: { kid: string }[] };
    expect(published.keys.map((k) => k.kid)).toEqual([ready.current.kid]);
  });
});
