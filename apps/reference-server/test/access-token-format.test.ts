// Access tokens per client over real HTTP: opaque or RFC 9068 JWT (`access_token_format` on a
// client, else its tenant), every claim RFC 9068 asks for checked against the signature the
// JWKS verifies, the RFC 8707 resource as `aud`, `cnf.jkt` when DPoP-bound, and the format
// switched at runtime.
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_LIFETIMES, demoConfig, validateConfig, type ServerConfig } from '../src/index';
import { dpopKey, type DpopKey } from './support/dpop';
import { type DpopServer, json, spaExchange, startDpopServer, webExchange } from './support/dpop-server';

const RESOURCE = 'https://api.example/orders';
const CC = { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret' };

/** Sets `access_token_format` on the demo tenant's clients named in `formats`. */
function perClient(formats: Record<string, 'opaque' | 'jwt'>, tenantFormat?: 'opaque' | 'jwt') {
  return (config: ServerConfig) => {
    const demo = config.tenants[0];
    if (!demo) throw new Error('demo config without a tenant');
    if (tenantFormat) demo.access_token_format = tenantFormat;
    for (const client of demo.clients ?? []) {
      const format = formats[client.client_id];
      if (format) client.access_token_format = format;
      client.resources = [RESOURCE]; // RFC 8707: the one API these clients may ask tokens for
    }
  };
}

const isJwt = (token: string) => token.split('.').length === 3;

let s: DpopServer;
let key: DpopKey;
beforeAll(async () => {
  // Tenant default (opaque); `web` and `service` JWT; `spa` inherits opaque.
  s = await startDpopServer(perClient({ web: 'jwt', service: 'jwt' }));
  key = await dpopKey();
});
afterAll(async () => {
  await s?.close();
});

/** Verifies a JWT access token with the tenant's published keys and `typ: at+jwt`; its claims. */
async function verifiedClaims(token: string): Promise<JWTPayload> {
  const jwks = (await json(await fetch(`${s.listening.origin}/demo/oidc/jwks`))) as { keys: [] };
  const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), {
    typ: 'at+jwt',
    issuer: s.issuer,
    currentDate: new Date(s.clock.ms),
  });
  return payload;
}

async function webTokens(extra: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Record<string, string>> {
  const res = await s.token('/oidc/token', webExchange(await s.webCode(extra)), headers);
  expect(res.status).toBe(200);
  return (await json(res)) as Record<string, string>;
}

describe('access_token_format per client', () => {
  it('a client set to jwt gets JWTs, a client of the same tenant without the key gets its opaque default; userinfo takes both', async () => {
    const web = await webTokens();
    expect(isJwt(web.access_token ?? '')).toBe(true);

    const { code, verifier } = await s.spaCode();
    const spa = (await json(await s.token('/oidc/token', spaExchange(code, verifier)))) as Record<string, string>;
    expect(spa.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 random bits, nothing to decode

    for (const token of [web.access_token, spa.access_token]) {
      const res = await s.userinfo({ authorization: `Bearer ${token}` });
      expect(res.status).toBe(200);
      expect(await json(res)).toMatchObject({ sub: 'alice' });
    }
  });

  it('a JWT access token follows RFC 9068: typ at+jwt, the JWKS key, and exactly the claims it names', async () => {
    const tokens = await webTokens({ resource: RESOURCE });
    const token = tokens.access_token ?? '';
    const header = decodeProtectedHeader(token);
    expect(header).toEqual({ alg: 'RS256', kid: expect.any(String), typ: 'at+jwt' });

    const claims = await verifiedClaims(token);
    const now = s.now();
    expect(claims).toEqual({
      iss: s.issuer,
      sub: 'alice',
      aud: RESOURCE, // RFC 8707: the resource the grant names
      exp: now + DEFAULT_LIFETIMES.access_token,
      iat: now,
      jti: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      client_id: 'web',
      scope: 'openid profile offline_access',
      auth_time: expect.any(Number),
      // The user's claims the profile scope releases (RFC 9068 2.2.3.1).
      name: 'Alice Liddell',
    });
    expect(claims.auth_time).toBeLessThanOrEqual(now);
    // An ID token's claims never reach it.
    for (const name of ['nonce', 'at_hash', 'azp', 'sid', 'cnf']) expect(claims).not.toHaveProperty(name);

    // Each token its own jti; the ID token of the same response is not an access token.
    const again = await verifiedClaims((await webTokens({ resource: RESOURCE })).access_token ?? '');
    expect(again.jti).not.toBe(claims.jti);
    expect(decodeProtectedHeader(tokens.id_token ?? '').typ).toBe('JWT');
  });

  it('refresh keeps the format and the resource', async () => {
    const first = await webTokens({ resource: RESOURCE });
    const res = await s.token('/oauth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token ?? '', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
    expect(res.status).toBe(200);
    const claims = await verifiedClaims(((await json(res)) as Record<string, string>).access_token ?? '');
    expect(claims).toMatchObject({ aud: RESOURCE, client_id: 'web', sub: 'alice' });
  });

  it('client credentials: sub and client_id are the client, aud the resource, no auth_time', async () => {
    const res = await s.token('/oauth/token', { ...CC, scope: 'api.read', resource: RESOURCE });
    expect(res.status).toBe(200);
    const claims = await verifiedClaims(((await json(res)) as Record<string, string>).access_token ?? '');
    expect(claims).toEqual({
      iss: s.issuer, sub: 'service', aud: RESOURCE, client_id: 'service', scope: 'api.read',
      exp: s.now() + DEFAULT_LIFETIMES.access_token, iat: s.now(), jti: expect.any(String),
    });
  });

  it('a DPoP-bound JWT access token carries cnf.jkt of the proof key (RFC 9449 6.1)', async () => {
    const tokens = await webTokens({}, { dpop: await s.proof(key, '/oidc/token') });
    expect(tokens.token_type).toBe('DPoP');
    expect((await verifiedClaims(tokens.access_token ?? '')).cnf).toEqual({ jkt: key.jkt });
  });

  it('a JWT that is revoked is refused by the server although its signature and exp are good', async () => {
    const token = (await webTokens()).access_token ?? '';
    await verifiedClaims(token);
    const revoked = await s.token('/oauth/revoke', { token, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
    expect(revoked.status).toBe(200);
    expect((await s.userinfo({ authorization: `Bearer ${token}` })).status).toBe(401);
  });

  it('switched at runtime (control.clients.update): the next tokens change format; removing the key falls back to the tenant', async () => {
    await s.server.control.clients.update('spa', { access_token_format: 'jwt' });
    try {
      const { code, verifier } = await s.spaCode();
      const jwt = (await json(await s.token('/oidc/token', spaExchange(code, verifier)))) as Record<string, string>;
      expect(await verifiedClaims(jwt.access_token ?? '')).toMatchObject({ client_id: 'spa', aud: s.issuer });
    } finally {
      await s.server.control.clients.update('spa', { access_token_format: null });
    }
    const { code, verifier } = await s.spaCode();
    const opaque = (await json(await s.token('/oidc/token', spaExchange(code, verifier)))) as Record<string, string>;
    expect(isJwt(opaque.access_token ?? '')).toBe(false);
  });
});

describe('a JWT tenant with an opaque client', () => {
  it("the client's own setting wins over the tenant's", async () => {
    const mixed = await startDpopServer(perClient({ service: 'opaque' }, 'jwt'));
    try {
      const opaque = (await json(await mixed.token('/oauth/token', { ...CC, scope: 'api.read' }))) as Record<string, string>;
      expect(isJwt(opaque.access_token ?? '')).toBe(false);
      const res = await mixed.token('/oidc/token', webExchange(await mixed.webCode()));
      expect(isJwt(((await json(res)) as Record<string, string>).access_token ?? '')).toBe(true);
    } finally {
      await mixed.close();
    }
  });
});

describe('config', () => {
  it.each([['JWT'], [5], ['at+jwt']])('refuses access_token_format %j on a client, naming the field', (value) => {
    const config = demoConfig() as unknown as { tenants: { clients: Record<string, unknown>[] }[] };
    const client = config.tenants[0]?.clients[1];
    if (!client) throw new Error('demo config without clients');
    client.access_token_format = value;
    expect(() => validateConfig(config)).toThrow(ConfigError);
    expect(() => validateConfig(config)).toThrow(/invalid config at tenants\[0\]\.clients\[1\]\.access_token_format: must be one of "opaque", "jwt"/);
  });
});
