import { HttpResponse, http } from 'msw';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  type ClientAuth,
  type ProviderMetadata,
  clientCredentials,
  clientSecretJwt,
  privateKeyJwt,
  revokeToken,
} from '../src/index';
import { ISSUER, NOW, now, provider } from './support/acme-provider';
import { ecdsaKeyPair, privateJwk, rsa1024KeyPair } from './support/key-pairs';
import { useMswServer } from './support/msw-server';

const { server, requests } = useMswServer();

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

// The form a method writes, as the token endpoint would receive it.
async function formOf(clientAuth: ClientAuth, metadata: ProviderMetadata = provider): Promise<URLSearchParams> {
  const body = new URLSearchParams({ grant_type: 'client_credentials' });
  await clientAuth({ clientId: 'batch', provider: metadata, body, headers: new Headers() });
  return body;
}

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as { code: string; message: string },
  );
}

describe('privateKeyJwt', () => {
  it('signs an assertion the registered public key verifies: iss = sub = client, aud = issuer, short exp, random jti', async () => {
    const { publicKey, jwk } = await privateJwk('ES256');
    const body = await formOf(privateKeyJwt({ ...jwk, kid: 'k1' }, { now }));
    expect(body.get('client_assertion_type')).toBe(ASSERTION_TYPE);
    expect(body.get('client_id')).toBe('batch');
    expect(body.has('client_secret')).toBe(false);
    const { payload, protectedHeader } = await jwtVerify(body.get('client_assertion')!, publicKey, {
      currentDate: new Date(NOW * 1000),
      algorithms: ['ES256'],
    });
    expect(protectedHeader).toEqual({ alg: 'ES256', kid: 'k1', typ: 'JWT' });
    expect(payload).toMatchObject({ iss: 'batch', sub: 'batch', aud: ISSUER, iat: NOW, exp: NOW + 60 });
    expect(payload.jti).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('makes a new assertion (a new jti) for every request', async () => {
    const { jwk } = await privateJwk('EdDSA');
    const clientAuth = privateKeyJwt(jwk);
    const first = (await formOf(clientAuth)).get('client_assertion')!;
    const second = (await formOf(clientAuth)).get('client_assertion')!;
    const jti = (jwt: string) => JSON.parse(atob(jwt.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))).jti;
    expect(jti(first)).not.toBe(jti(second));
    expect(decodeProtectedHeader(first).alg).toBe('EdDSA');
  });

  it("takes an RSA key's algorithm from the provider's list, PS256 when it lists none, and the JWK's own alg first", async () => {
    const { publicKey, jwk } = await privateJwk('RS256');
    const listsRs256 = { ...provider, token_endpoint_auth_signing_alg_values_supported: ['ES256', 'RS256'] };
    const rs = (await formOf(privateKeyJwt(jwk), listsRs256)).get('client_assertion')!;
    expect(decodeProtectedHeader(rs).alg).toBe('RS256');
    await jwtVerify(rs, publicKey, { algorithms: ['RS256'] });
    expect(decodeProtectedHeader((await formOf(privateKeyJwt(jwk))).get('client_assertion')!).alg).toBe('PS256');
    expect(decodeProtectedHeader((await formOf(privateKeyJwt({ ...jwk, alg: 'RS512' }), listsRs256)).get('client_assertion')!).alg).toBe('RS512');
  });

  it('signs with a non-extractable CryptoKey, its algorithm read from the key', async () => {
    const pair = await ecdsaKeyPair('P-384');
    const assertion = (await formOf(privateKeyJwt(pair.privateKey, { kid: 'hsm-1' }))).get('client_assertion')!;
    const { protectedHeader } = await jwtVerify(assertion, pair.publicKey, { algorithms: ['ES384'] });
    expect(protectedHeader).toMatchObject({ alg: 'ES384', kid: 'hsm-1' });
  });

  it('refuses a public JWK, a symmetric one, a public CryptoKey and bad options when created', async () => {
    const { jwk } = await privateJwk('ES256');
    const { d: _d, ...publicJwk } = jwk;
    expect(() => privateKeyJwt(publicJwk)).toThrow(expect.objectContaining({ code: 'client_assertion_key_unsupported' }));
    expect(() => privateKeyJwt({ kty: 'oct', k: 'c2VjcmV0', d: 'x' } as JsonWebKey)).toThrow(
      expect.objectContaining({ code: 'client_assertion_key_unsupported' }),
    );
    const pair = await ecdsaKeyPair('P-256', true);
    expect(() => privateKeyJwt(pair.publicKey)).toThrow(expect.objectContaining({ code: 'client_assertion_key_unsupported' }));
    expect(() => privateKeyJwt(jwk, { lifetime: 3600 })).toThrow(expect.objectContaining({ code: 'invalid_options' }));
    expect(() => privateKeyJwt(jwk, { kid: '' })).toThrow(expect.objectContaining({ code: 'invalid_options' }));
  });

  it('refuses, before any request, an alg that does not fit the key and an RSA key under 2048 bits', async () => {
    const { jwk } = await privateJwk('ES256');
    expect((await rejection(formOf(privateKeyJwt(jwk, { alg: 'ES384' })))).code).toBe('client_assertion_key_unsupported');
    expect((await rejection(formOf(privateKeyJwt(jwk, { alg: 'HS256' as 'ES256' })))).code).toBe('client_assertion_key_unsupported');
    const rsa1024 = await rsa1024KeyPair(true);
    const small = await crypto.subtle.exportKey('jwk', rsa1024.privateKey);
    const error = await rejection(formOf(privateKeyJwt({ ...small, alg: undefined })));
    expect(error.code).toBe('client_assertion_key_unsupported');
    expect(error.message).not.toContain(small.d!);
    const pair = await ecdsaKeyPair('P-256');
    expect((await rejection(formOf(privateKeyJwt(pair.privateKey, { alg: 'PS256' })))).code).toBe('client_assertion_key_unsupported');
  });

  it('authenticates a token request and a revocation over HTTP, and nothing is sent when signing fails', async () => {
    const { publicKey, jwk } = await privateJwk('ES256');
    server.use(
      http.post(`${ISSUER}/oauth/token`, () => HttpResponse.json({ access_token: 'at', token_type: 'Bearer', expires_in: 60 })),
      http.post(`${ISSUER}/oauth/revoke`, () => new HttpResponse(null, { status: 200 })),
    );
    const clientAuth = privateKeyJwt(jwk);
    await clientCredentials({ provider, client: { clientId: 'batch' }, clientAuth });
    await revokeToken({ provider, client: { clientId: 'batch' }, clientAuth, token: 'at' });
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      const form = new URLSearchParams(await request.text());
      expect(request.headers.has('authorization')).toBe(false);
      const { payload } = await jwtVerify(form.get('client_assertion')!, publicKey, { audience: ISSUER, issuer: 'batch', subject: 'batch' });
      expect(payload.exp! - payload.iat!).toBe(60);
    }
    await rejection(clientCredentials({ provider, client: { clientId: 'batch' }, clientAuth: privateKeyJwt(jwk, { alg: 'ES512' }) }));
    expect(requests).toHaveLength(2);
  });
});

describe('clientSecretJwt', () => {
  const secret = 'a-client-secret-of-at-least-32-bytes-for-hs256';

  it('signs an HS256 assertion with the secret and never sends the secret', async () => {
    const body = await formOf(clientSecretJwt(secret, { now, lifetime: 30 }));
    expect(body.has('client_secret')).toBe(false);
    expect(body.toString()).not.toContain(secret);
    const { payload, protectedHeader } = await jwtVerify(body.get('client_assertion')!, new TextEncoder().encode(secret), {
      currentDate: new Date(NOW * 1000),
      algorithms: ['HS256'],
    });
    expect(protectedHeader.alg).toBe('HS256');
    expect(payload).toMatchObject({ iss: 'batch', sub: 'batch', aud: ISSUER, iat: NOW, exp: NOW + 30 });
  });

  it("uses the provider's HMAC algorithm, and refuses a secret shorter than the hash", async () => {
    const long = secret.repeat(2);
    const listed = { ...provider, token_endpoint_auth_signing_alg_values_supported: ['RS256', 'HS512'] };
    expect(decodeProtectedHeader((await formOf(clientSecretJwt(long), listed)).get('client_assertion')!).alg).toBe('HS512');
    const error = await rejection(formOf(clientSecretJwt(secret), listed));
    expect(error.code).toBe('invalid_options');
    expect(error.message).not.toContain(secret);
    // Too short for any HMAC algorithm, or for the one asked for: refused when made, before any request.
    expect(() => clientSecretJwt('short-secret')).toThrow(expect.objectContaining({ code: 'invalid_options', message: expect.stringMatching(/at least 32 bytes/) }));
    expect(() => clientSecretJwt(secret, { alg: 'HS512' })).toThrow(expect.objectContaining({ code: 'invalid_options', message: expect.stringMatching(/HS512.*64 bytes/) }));
    expect(() => clientSecretJwt(secret, { alg: 'RS256' as 'HS256' })).toThrow(expect.objectContaining({ code: 'invalid_options' }));
    expect(() => clientSecretJwt('')).toThrow(expect.objectContaining({ code: 'invalid_options' }));
  });
});
