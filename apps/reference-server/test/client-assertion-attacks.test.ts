// private_key_jwt and client_secret_jwt (RFC 7523) at the token and revocation endpoints, over
// real HTTP: the honest assertion passes; every check is attacked once, and a refused assertion
// never gets a token.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, demoConfig, validateConfig } from '../src/index';
import { type DpopServer, json, startDpopServer } from './support/dpop-server';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const HMAC_SECRET = 'hmac-client-secret-of-more-than-32-bytes-0123456789';
const SHORT_SECRET = 'web-secret';

let s: DpopServer;
let key: { privateKey: CryptoKey; publicJwk: JWK };
let uriKey: { privateKey: CryptoKey; publicJwk: JWK };
let otherKey: { privateKey: CryptoKey; publicJwk: JWK };
let jwksHost: Server;
let jwksServed: JWK[] = [];
let jwksFetches = 0;

async function newKey(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid } };
}

beforeAll(async () => {
  key = await newKey('k1');
  uriKey = await newKey('u1');
  otherKey = await newKey('other');
  jwksServed = [uriKey.publicJwk];
  jwksHost = createServer((_req, res) => {
    jwksFetches += 1;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: jwksServed }));
  });
  await new Promise<void>((resolve) => jwksHost.listen(0, '127.0.0.1', resolve));
  const jwksUri = `http://127.0.0.1:${(jwksHost.address() as AddressInfo).port}/jwks`;
  s = await startDpopServer((config) => {
    const clients = config.tenants[0]?.clients ?? [];
    clients.push(
      { client_id: 'batch-key', grant_types: ['client_credentials'], scopes: ['api.read'], jwks: { keys: [key.publicJwk as Record<string, unknown>] } },
      { client_id: 'batch-uri', grant_types: ['client_credentials'], scopes: ['api.read'], jwks_uri: jwksUri, token_endpoint_auth_method: 'private_key_jwt' },
      { client_id: 'other-key', grant_types: ['client_credentials'], scopes: ['api.read'], jwks: { keys: [otherKey.publicJwk as Record<string, unknown>] } },
      { client_id: 'batch-hmac', client_secret: HMAC_SECRET, grant_types: ['client_credentials'], scopes: ['api.read'], token_endpoint_auth_method: 'client_secret_jwt' },
      // Any method it has credentials for, and a secret too short to key HMAC.
      { client_id: 'short-secret', client_secret: SHORT_SECRET, grant_types: ['client_credentials'], scopes: ['api.read'] },
    );
    // The same key client on a tenant that also takes the token endpoint URL as the audience.
    config.tenants.push({
      id: 'legacy',
      development: true,
      client_assertion_audience: 'issuer_or_token_endpoint',
      clients: [{ client_id: 'batch-key', redirect_uris: ['http://127.0.0.1:3000/callback'], grant_types: ['client_credentials', 'authorization_code'], scopes: ['openid', 'api.read'], jwks: { keys: [key.publicJwk as Record<string, unknown>] } }],
    });
  });
});
afterAll(async () => {
  await s?.close();
  await new Promise((resolve) => jwksHost?.close(resolve));
});

interface AssertionOptions {
  clientId?: string;
  signer?: CryptoKey | Uint8Array;
  alg?: string;
  kid?: string;
  claims?: Record<string, unknown>;
}

async function assertion(options: AssertionOptions = {}): Promise<string> {
  const clientId = options.clientId ?? 'batch-key';
  const now = s.now();
  const claims = { iss: clientId, sub: clientId, aud: s.issuer, jti: crypto.randomUUID(), iat: now, exp: now + 60, ...options.claims };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete (claims as Record<string, unknown>)[name];
  const alg = options.alg ?? 'ES256';
  const header: Record<string, unknown> = { alg, ...(options.kid !== undefined ? { kid: options.kid } : {}) };
  return new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(options.signer ?? key.privateKey);
}

function cc(clientAssertion: string, extra: Record<string, string> = {}): Promise<Response> {
  return s.token('/oauth/token', { grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: clientAssertion, ...extra });
}

async function expectRefused(res: Response, description: RegExp): Promise<void> {
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(401);
  expect(body.error).toBe('invalid_client');
  expect(String(body.error_description)).toMatch(description);
  expect(body.access_token).toBeUndefined();
}

describe('private_key_jwt', () => {
  it('a valid assertion gets a token, with the key from jwks or from jwks_uri, and revokes', async () => {
    const res = await cc(await assertion({ kid: 'k1' }));
    expect(res.status).toBe(200);
    const { access_token } = await json(res);
    expect(typeof access_token).toBe('string');
    expect((await cc(await assertion({ clientId: 'batch-uri', signer: uriKey.privateKey }))).status).toBe(200);
    // client_id may repeat the client.
    expect((await cc(await assertion(), { client_id: 'batch-key' })).status).toBe(200);
    const revoked = await s.token('/oauth/revoke', { token: String(access_token), client_assertion_type: JWT_BEARER, client_assertion: await assertion() });
    expect(revoked.status).toBe(200);
  });

  it('refuses a replayed assertion (its jti is spent), and a refused one does not spend its jti', async () => {
    const jti = crypto.randomUUID();
    const wrongAud = await assertion({ claims: { jti, aud: 'https://elsewhere.example' } });
    await expectRefused(await cc(wrongAud), /aud/);
    const once = await assertion({ claims: { jti } });
    expect((await cc(once)).status).toBe(200);
    await expectRefused(await cc(once), /used before/);
  });

  it('refuses another audience', async () => {
    await expectRefused(await cc(await assertion({ claims: { aud: 'https://another-server.example/token' } })), /aud must be the issuer/);
    await expectRefused(await cc(await assertion({ claims: { aud: undefined } })), /aud/);
  });

  it('refuses an expired assertion, one without exp, and one valid too far ahead', async () => {
    await expectRefused(await cc(await assertion({ claims: { exp: s.now() - 120 } })), /expired/);
    await expectRefused(await cc(await assertion({ claims: { exp: undefined } })), /numeric exp/);
    await expectRefused(await cc(await assertion({ claims: { exp: s.now() + 3600 } })), /at most 300 seconds/);
    // An assertion made before the clock moved past its exp (the server clock decides).
    const made = await assertion();
    s.clock.advance(180);
    await expectRefused(await cc(made), /expired/);
  });

  it("refuses an assertion signed by a key not registered for the client (another client's key), and a forged one", async () => {
    await expectRefused(await cc(await assertion({ signer: otherKey.privateKey, kid: 'k1' })), /signature/);
    await expectRefused(await cc(await assertion({ signer: otherKey.privateKey })), /signature/);
    const good = await assertion();
    const [h, p, sig] = good.split('.');
    const claims = JSON.parse(Buffer.from(p ?? '', 'base64url').toString()) as Record<string, unknown>;
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'other-key', iss: 'other-key' })).toString('base64url')}.${sig}`;
    await expectRefused(await cc(forged), /signature/);
  });

  it('refuses iss or sub other than the client, and a client_id naming another client', async () => {
    await expectRefused(await cc(await assertion({ claims: { iss: 'someone' } })), /iss and sub/);
    await expectRefused(await cc(await assertion(), { client_id: 'service' }), /client_id differs/);
  });

  it('refuses alg none, and HS256 keyed with the registered public key (key confusion)', async () => {
    const now = s.now();
    const claims = { iss: 'batch-key', sub: 'batch-key', aud: s.issuer, jti: crypto.randomUUID(), exp: now + 60 };
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
    await expectRefused(await cc(unsigned), /signed with one of/);
    const publicKeyAsSecret = new TextEncoder().encode(JSON.stringify(key.publicJwk));
    await expectRefused(await cc(await assertion({ alg: 'HS256', signer: publicKeyAsSecret })), /needs a client with a client_secret/);
  });

  it('refuses a secret beside an assertion, and a wrong assertion type', async () => {
    const res = await cc(await assertion(), { client_secret: 'x' });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe('invalid_request');
    await expectRefused(await cc(await assertion(), { client_assertion_type: 'urn:example:saml' }), /client_assertion_type/);
  });

  it('a keyed client must authenticate: its client_id alone, or a secret, is refused', async () => {
    await expectRefused(await s.token('/oauth/token', { grant_type: 'client_credentials', client_id: 'batch-key' }), /private_key_jwt/);
    await expectRefused(await s.token('/oauth/token', { grant_type: 'client_credentials', client_id: 'batch-key', client_secret: 'guess' }), /no client secret/);
  });

  it('fetches jwks_uri again for an unknown kid (a rotation), at most every 30 s', async () => {
    const rotated = await newKey('u2');
    jwksServed = [uriKey.publicJwk, rotated.publicJwk];
    s.clock.advance(31);
    const before = jwksFetches;
    expect((await cc(await assertion({ clientId: 'batch-uri', signer: rotated.privateKey, kid: 'u2' }))).status).toBe(200);
    expect(jwksFetches).toBe(before + 1);
    // A kid nobody published: one refetch at most within 30 s, then refused.
    const stranger = await newKey('x9');
    await expectRefused(await cc(await assertion({ clientId: 'batch-uri', signer: stranger.privateKey, kid: 'x9' })), /signature/);
    await expectRefused(await cc(await assertion({ clientId: 'batch-uri', signer: stranger.privateKey, kid: 'x9' })), /signature/);
    expect(jwksFetches).toBe(before + 1);
  });
});

describe('client_secret_jwt', () => {
  const secret = new TextEncoder().encode(HMAC_SECRET);

  it('an HMAC assertion with the client secret gets a token; the wrong secret, or the plain secret, is refused', async () => {
    expect((await cc(await assertion({ clientId: 'batch-hmac', alg: 'HS256', signer: secret }))).status).toBe(200);
    const wrong = new TextEncoder().encode(`${HMAC_SECRET}-wrong`);
    await expectRefused(await cc(await assertion({ clientId: 'batch-hmac', alg: 'HS256', signer: wrong })), /signature/);
    // Registered for client_secret_jwt: the secret itself is not accepted.
    await expectRefused(await s.token('/oauth/token', { grant_type: 'client_credentials', client_id: 'batch-hmac', client_secret: HMAC_SECRET }), /registered for client_secret_jwt/);
  });

  it('a client registered for client_secret_jwt cannot use private_key_jwt', async () => {
    await expectRefused(await cc(await assertion({ clientId: 'batch-hmac', signer: otherKey.privateKey })), /registered for client_secret_jwt/);
  });
});

describe('L4: the audience of a client assertion', () => {
  const legacy = () => `${s.listening.origin}/legacy`;
  const post = (url: string, form: Record<string, string>) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
  const asClient = async (aud: unknown) => ({ client_assertion_type: JWT_BEARER, client_assertion: await assertion({ claims: { aud } }) });
  const pushForm = { response_type: 'code', redirect_uri: 'http://127.0.0.1:3000/callback', scope: 'openid', state: 'st', nonce: 'n' };

  it('by default only the issuer, as a string (RFC 7523bis, FAPI 2.0): endpoint URLs and arrays are refused', async () => {
    const issuer = s.issuer;
    expect((await cc(await assertion({ claims: { aud: issuer } }))).status).toBe(200);
    await expectRefused(await cc(await assertion({ claims: { aud: `${issuer}/oauth/token` } })), /aud must be the issuer .*, as a string/);
    await expectRefused(await cc(await assertion({ claims: { aud: `${issuer}/oidc/token` } })), /aud must be the issuer/);
    await expectRefused(await cc(await assertion({ claims: { aud: [issuer] } })), /as a string/);
    await expectRefused(await cc(await assertion({ claims: { aud: [issuer, 'https://another-server.example'] } })), /as a string/);
    // Made for another endpoint and sent there.
    const revoked = await s.token('/oauth/revoke', { token: 'x', ...(await asClient(`${issuer}/oauth/revoke`)) });
    await expectRefused(revoked, /aud must be the issuer/);
    await expectRefused(await s.token('/oauth/introspect', { token: 'x', ...(await asClient(`${issuer}/oauth/introspect`)) }), /aud must be the issuer/);
  });

  it('"issuer_or_token_endpoint" also takes a token endpoint URL, alone or in an array, and the PAR URL at PAR (RFC 7523 3, RFC 9126 2)', async () => {
    const issuer = `${legacy()}`;
    const tokenUrl = `${legacy()}/oauth/token`;
    const cc2 = async (aud: unknown) => post(tokenUrl, { grant_type: 'client_credentials', ...(await asClient(aud)) });
    for (const aud of [issuer, tokenUrl, `${legacy()}/oidc/token`, [issuer, tokenUrl], ['https://another-server.example', tokenUrl]]) {
      expect((await cc2(aud)).status, JSON.stringify(aud)).toBe(200);
    }
    const pushed = await post(`${legacy()}/oauth/par`, { ...pushForm, client_id: 'batch-key', ...(await asClient(`${legacy()}/oauth/par`)) });
    expect(pushed.status).toBe(201);
    // Never another endpoint's URL, nor the PAR URL at the token endpoint, nor another server.
    await expectRefused(await cc2(`${legacy()}/oauth/par`), /aud must be the issuer .* or the token endpoint URL/);
    await expectRefused(await cc2(`${legacy()}/oauth/revoke`), /or the token endpoint URL/);
    await expectRefused(await post(`${legacy()}/oauth/revoke`, { token: 'x', ...(await asClient(`${legacy()}/oauth/revoke`)) }), /or the token endpoint URL/);
    await expectRefused(await cc2(['https://another-server.example']), /or the token endpoint URL/);
    await expectRefused(await cc2(`${s.issuer}/oauth/token`), /or the token endpoint URL/);
  });

  it('a standard-profile tenant takes the token endpoint URL by default; the setting is refused when misspelt', () => {
    const config = demoConfig();
    const tenant = config.tenants[0] as NonNullable<(typeof config.tenants)[number]>;
    expect(validateConfig(config)[0]?.client_assertion_audience).toBe('issuer');
    tenant.profile = 'standard';
    expect(validateConfig(config)[0]?.client_assertion_audience).toBe('issuer_or_token_endpoint');
    tenant.client_assertion_audience = 'issuer';
    expect(validateConfig(config)[0]?.client_assertion_audience).toBe('issuer');
    Object.assign(tenant, { client_assertion_audience: 'token_endpoint' });
    expect(() => validateConfig(config)).toThrow(/tenants\[0\]\.client_assertion_audience/);
  });
});

describe('L3: client_secret_jwt needs a secret as long as the hash (RFC 7518 3.2)', () => {
  const encode = (text: string) => new TextEncoder().encode(text);

  it('an assertion keyed with a secret shorter than 32 bytes gets no token (it could be guessed offline from the assertion)', async () => {
    const res = await cc(await assertion({ clientId: 'short-secret', alg: 'HS256', signer: encode(SHORT_SECRET) }));
    await expectRefused(res, /client_secret is too short for HS256: RFC 7518 3\.2 needs at least 32 bytes/);
    const body = JSON.stringify(await (await cc(await assertion({ clientId: 'short-secret', alg: 'HS256', signer: encode(SHORT_SECRET) }))).json());
    expect(body).not.toMatch(/10 bytes|web-secret/);
    // The same client's secret itself still works where it is not an HMAC key.
    expect((await s.token('/oauth/token', { grant_type: 'client_credentials', client_id: 'short-secret', client_secret: SHORT_SECRET })).status).toBe(200);
  });

  it('a 51-byte secret keys HS256 and HS384, not HS512', async () => {
    for (const alg of ['HS256', 'HS384']) expect((await cc(await assertion({ clientId: 'batch-hmac', alg, signer: encode(HMAC_SECRET) }))).status).toBe(200);
    await expectRefused(await cc(await assertion({ clientId: 'batch-hmac', alg: 'HS512', signer: encode(HMAC_SECRET) })), /too short for HS512: RFC 7518 3\.2 needs at least 64 bytes/);
  });

  it("the demo web client's secret keys HS256", async () => {
    const web = demoConfig().tenants[0]?.clients?.find((c) => c.client_id === 'web');
    const secret = String(web?.client_secret);
    expect(Buffer.byteLength(secret)).toBeGreaterThanOrEqual(32);
    expect((await s.token('/oauth/token', { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret' })).status).toBe(200);
    const res = await s.token('/oauth/token', {
      grant_type: 'refresh_token', refresh_token: 'unknown', client_assertion_type: JWT_BEARER,
      client_assertion: await assertion({ clientId: 'web', alg: 'HS256', signer: encode(secret) }),
    });
    // Authenticated: the refusal is about the refresh token, not the client.
    expect((await json(res)).error).toBe('invalid_grant');
  });

  it('a client registered for client_secret_jwt with a short secret is refused at config time, naming the key', () => {
    const config = demoConfig();
    config.tenants[0]?.clients?.push({ client_id: 'hmac', client_secret: 'thirty-one-bytes-of-a-secret-31', grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_jwt' });
    expect(() => validateConfig(config)).toThrow(ConfigError);
    expect(() => validateConfig(config)).toThrow(/invalid config at tenants\[0\]\.clients\[3\]\.client_secret: is 31 bytes; HS256 needs at least 32 .* for "client_secret_jwt": register a random secret of 32 bytes or more/);
  });
});

describe('discovery', () => {
  it('announces both methods and their algorithms, never none or HMAC for keys', async () => {
    const doc = await json(await fetch(`${s.listening.origin}/demo/.well-known/openid-configuration`));
    expect(doc.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['private_key_jwt', 'client_secret_jwt', 'client_secret_basic']));
    expect(doc.revocation_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['private_key_jwt', 'client_secret_jwt']));
    expect(doc.token_endpoint_auth_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256', 'PS256', 'EdDSA', 'HS256']));
    expect(doc.token_endpoint_auth_signing_alg_values_supported).not.toContain('none');
  });
});
