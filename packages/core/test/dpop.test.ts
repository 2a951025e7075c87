import { createHash } from 'node:crypto';
import { EmbeddedJWK, calculateJwkThumbprint, decodeProtectedHeader, jwtVerify } from 'jose';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  type DpopAlgorithm,
  TokenEndpointError,
  buildAuthorizationRequest,
  clientCredentials,
  createDpopProof,
  dpop,
  exchangeCode,
  fetchUserInfo,
  generateDpopKeyPair,
  none,
  clientSecretBasic,
  protectedResourceRequest,
  refreshTokens,
  revokeToken,
} from '../src/index';
import { dpopForGeneratedKey } from '../src/internal';
import { ISSUER, NOW, now, provider } from './support/acme-provider';
import { ecdsaKeyPair, rsa1024KeyPair } from './support/key-pairs';
import { useMswServer } from './support/msw-server';

const { server, requests } = useMswServer();

const TOKEN = `${ISSUER}/oauth/token`;
const CODE_TOKEN = `${ISSUER}/oidc/token`;
const USERINFO = `${ISSUER}/oidc/userinfo`;
const API = 'https://api.example.com/orders';
const service = { provider, client: { clientId: 'service' }, clientAuth: clientSecretBasic('s3cret') };

async function failure(promise: Promise<unknown>) {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as TokenEndpointError,
  );
}

/** The verified proof of the `index`th request msw saw (signature checked against its own jwk). */
async function proofOf(index: number) {
  const proof = requests[index]!.headers.get('dpop');
  expect(proof).toBeTypeOf('string');
  const { payload, protectedHeader } = await jwtVerify(proof!, EmbeddedJWK, { typ: 'dpop+jwt' });
  return { payload, header: protectedHeader };
}

const dpopToken = { access_token: 'bound-at', token_type: 'DPoP', expires_in: 300, refresh_token: 'bound-rt' };

describe('dpop(): the handle', () => {
  it('makes a non-extractable ES256 key by default, with the public JWK and its RFC 7638 thumbprint', async () => {
    const handle = await dpop();
    expect(handle.alg).toBe('ES256');
    expect(handle.keyPair.privateKey.extractable).toBe(false);
    await expect(crypto.subtle.exportKey('jwk', handle.keyPair.privateKey)).rejects.toThrow();
    expect(Object.keys(handle.publicJwk)).toEqual(['crv', 'kty', 'x', 'y']);
    expect(handle.publicJwk).not.toHaveProperty('d');
    expect(handle.jkt).toBe(await calculateJwkThumbprint(handle.publicJwk, 'sha256'));
  });

  it.each(['ES256', 'ES384', 'PS256', 'RS256', 'EdDSA'] as DpopAlgorithm[])('signs verifiable %s proofs', async (alg) => {
    const handle = await dpop({ keyPair: await generateDpopKeyPair(alg), now });
    expect(handle.alg).toBe(alg);
    const proof = await createDpopProof(handle, { htm: 'GET', htu: API });
    const { protectedHeader } = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: [alg], currentDate: new Date(NOW * 1000) });
    expect(protectedHeader.alg).toBe(alg);
    expect(protectedHeader.jwk).toEqual(handle.publicJwk);
    expect(JSON.stringify(protectedHeader.jwk)).not.toMatch(/"(d|p|q|dp|dq|qi)"/);
  });

  it.each(['ES256', 'ES384', 'PS256', 'RS256', 'EdDSA'] as DpopAlgorithm[])(
    'dpopForGeneratedKey makes the same handle as dpop for a generated %s key, and its proofs verify',
    async (alg) => {
      const keyPair = await generateDpopKeyPair(alg);
      const checked = await dpop({ keyPair, now });
      const handle = await dpopForGeneratedKey({ keyPair, alg, now });
      expect(handle).toMatchObject({ alg, keyPair, jkt: checked.jkt, publicJwk: checked.publicJwk });
      const proof = await createDpopProof(handle, { htm: 'GET', htu: API });
      const { protectedHeader, payload } = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: [alg], currentDate: new Date(NOW * 1000) });
      expect(protectedHeader.jwk).toEqual(checked.publicJwk);
      expect(payload.iat).toBe(NOW);
    },
  );

  it('dpopForGeneratedKey refuses an unknown alg and a key pair it cannot read (dpop_key_unsupported)', async () => {
    const keyPair = await generateDpopKeyPair();
    await expect(dpopForGeneratedKey({ keyPair, alg: 'none' as DpopAlgorithm })).rejects.toMatchObject({ code: 'dpop_key_unsupported' });
    const garbage = { privateKey: 'not a key', publicKey: 42 } as unknown as CryptoKeyPair;
    await expect(dpopForGeneratedKey({ keyPair: garbage })).rejects.toMatchObject({ code: 'dpop_key_unsupported' });
  });

  it('refuses a key DPoP cannot use, and an alg that does not match the key, with dpop_key_unsupported', async () => {
    const p521 = await ecdsaKeyPair('P-521');
    const rsa1024 = await rsa1024KeyPair();
    const hmac = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const es256 = await generateDpopKeyPair();
    const sealedPublic = await crypto.subtle.importKey('jwk', await crypto.subtle.exportKey('jwk', es256.publicKey), { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
    for (const options of [
      { keyPair: { privateKey: es256.privateKey, publicKey: sealedPublic } },
      { keyPair: p521 },
      { keyPair: rsa1024 },
      { keyPair: { privateKey: hmac, publicKey: hmac } as CryptoKeyPair },
      { keyPair: { privateKey: es256.publicKey, publicKey: es256.privateKey } },
      { keyPair: es256, alg: 'ES384' as const },
      { alg: 'none' as DpopAlgorithm },
    ]) {
      await expect(dpop(options)).rejects.toMatchObject({ code: 'dpop_key_unsupported' });
    }
  });

  it('keeps the last nonce of at most 100 origins, and ignores a value that is not a nonce', async () => {
    const handle = await dpop();
    for (let i = 0; i <= 100; i += 1) handle.rememberNonce(`https://rs${i}.example.com`, `n${i}`);
    expect(handle.nonceFor('https://rs0.example.com')).toBeUndefined();
    expect(handle.nonceFor('https://rs1.example.com')).toBe('n1');
    expect(handle.nonceFor('https://rs100.example.com')).toBe('n100');
    handle.rememberNonce('https://rs1.example.com', 'has "quotes"');
    handle.rememberNonce('https://rs1.example.com', '');
    expect(handle.nonceFor('https://rs1.example.com')).toBe('n1');
  });
});

describe('createDpopProof', () => {
  it('has typ, alg, jwk and the RFC 9449 claims: htu without query and fragment, iat from the clock, a fresh jti each time', async () => {
    const handle = await dpop({ now });
    const proofs = await Promise.all([1, 2].map(() => createDpopProof(handle, { htm: 'POST', htu: `${API}?page=2#top` })));
    const [first, second] = await Promise.all(proofs.map((p) => jwtVerify(p, EmbeddedJWK, { currentDate: new Date(NOW * 1000) })));
    expect(decodeProtectedHeader(proofs[0]!)).toEqual({ alg: 'ES256', typ: 'dpop+jwt', jwk: handle.publicJwk });
    expect(first!.payload).toEqual({ jti: expect.any(String), htm: 'POST', htu: API, iat: NOW });
    expect(first!.payload.jti).toMatch(/^[\w-]{22,}$/); // >= 128 bits
    expect(second!.payload.jti).not.toBe(first!.payload.jti);
  });

  it('carries ath, the base64url SHA-256 of the access token (RFC 9449 7.1 example), and the nonce', async () => {
    const handle = await dpop();
    const accessToken = 'Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU';
    const proof = await createDpopProof(handle, { htm: 'GET', htu: API, accessToken, nonce: 'eyJ7S_zG.eyJH0-Z.HX4w-7v' });
    const { payload } = await jwtVerify(proof, EmbeddedJWK);
    expect(payload.ath).toBe('fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo');
    expect(payload.ath).toBe(createHash('sha256').update(accessToken).digest('base64url'));
    expect(payload.nonce).toBe('eyJ7S_zG.eyJH0-Z.HX4w-7v');
  });

  it("uses the nonce the handle holds for the URL's origin only", async () => {
    const handle = await dpop();
    handle.rememberNonce('https://api.example.com', 'api-nonce');
    const claims = async (htu: string) => (await jwtVerify(await createDpopProof(handle, { htm: 'GET', htu }), EmbeddedJWK)).payload;
    expect((await claims(API)).nonce).toBe('api-nonce');
    expect((await claims('https://other.example.com/x')).nonce).toBeUndefined();
    expect((await claims('http://api.example.com/x')).nonce).toBeUndefined();
  });

  it('refuses a relative htu with invalid_options', async () => {
    await expect(createDpopProof(await dpop(), { htm: 'GET', htu: '/orders' })).rejects.toMatchObject({ code: 'invalid_options' });
  });
});

describe('the token endpoint with a DPoP handle', () => {
  it('sends a proof for POST on the endpoint, no ath, and returns a DPoP token', async () => {
    const handle = await dpop({ now });
    server.use(http.post(TOKEN, () => HttpResponse.json(dpopToken)));
    const tokens = await clientCredentials({ ...service, dpop: handle });
    expect(tokens).toMatchObject({ accessToken: 'bound-at', tokenType: 'DPoP' });
    const { payload, header } = await proofOf(0);
    expect(header.jwk).toEqual(handle.publicJwk);
    expect(payload).toMatchObject({ htm: 'POST', htu: TOKEN, iat: NOW });
    expect(payload).not.toHaveProperty('ath');
    expect(requests[0]!.headers.get('authorization')).toMatch(/^Basic /); // client auth unchanged
  });

  it('retries exactly once on use_dpop_nonce, with the nonce and a new jti, and keeps the nonce for the next call', async () => {
    const handle = await dpop();
    let calls = 0;
    server.use(
      http.post(TOKEN, ({ request }) => {
        calls += 1;
        const proof = request.headers.get('dpop')!;
        const nonce = JSON.parse(atob(proof.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))).nonce;
        if (nonce !== 'n-1') return HttpResponse.json({ error: 'use_dpop_nonce' }, { status: 400, headers: { 'DPoP-Nonce': 'n-1' } });
        return HttpResponse.json(dpopToken, { headers: { 'DPoP-Nonce': 'n-2' } });
      }),
    );
    await clientCredentials({ ...service, dpop: handle });
    expect(calls).toBe(2);
    const [first, second] = [await proofOf(0), await proofOf(1)];
    expect(first.payload.nonce).toBeUndefined();
    expect(second.payload.nonce).toBe('n-1');
    expect(second.payload.jti).not.toBe(first.payload.jti);
    expect(handle.nonceFor('https://login.example.com')).toBe('n-2'); // from the success too
  });

  it('returns a second use_dpop_nonce as the error instead of looping', async () => {
    let nonce = 0;
    server.use(
      http.post(TOKEN, () => HttpResponse.json({ error: 'use_dpop_nonce' }, { status: 400, headers: { 'DPoP-Nonce': `n-${++nonce}` } })),
    );
    const error = await failure(clientCredentials({ ...service, dpop: await dpop() }));
    expect(error).toBeInstanceOf(TokenEndpointError);
    expect(error).toMatchObject({ code: 'token_endpoint_error', error: 'use_dpop_nonce', status: 400 });
    expect(requests).toHaveLength(2);
  });

  it('does not retry a use_dpop_nonce without a DPoP-Nonce, nor another 400', async () => {
    server.use(http.post(TOKEN, () => HttpResponse.json({ error: 'use_dpop_nonce' }, { status: 400 })));
    expect(await failure(clientCredentials({ ...service, dpop: await dpop() }))).toMatchObject({ error: 'use_dpop_nonce' });
    expect(requests).toHaveLength(1);
    server.use(http.post(TOKEN, () => HttpResponse.json({ error: 'invalid_dpop_proof' }, { status: 400, headers: { 'DPoP-Nonce': 'n' } })));
    expect(await failure(clientCredentials({ ...service, dpop: await dpop() }))).toMatchObject({ error: 'invalid_dpop_proof' });
    expect(requests).toHaveLength(2);
  });

  it('refuses a Bearer token answered to a DPoP request (a downgrade) with dpop_token_type_mismatch, never echoing the token', async () => {
    server.use(http.post(TOKEN, () => HttpResponse.json({ ...dpopToken, token_type: 'Bearer' })));
    const error = await failure(clientCredentials({ ...service, dpop: await dpop() }));
    expect(error.code).toBe('dpop_token_type_mismatch');
    expect(error.message).toMatch(/DPoP/);
    expect(error.message).not.toContain('bound-at');
    // ...and without a handle, a DPoP token is not taken for a Bearer one.
    server.use(http.post(TOKEN, () => HttpResponse.json(dpopToken)));
    expect((await failure(clientCredentials(service))).code).toBe('token_response_invalid');
  });

  it('refresh and code exchange send a proof from the same key, so the binding is kept', async () => {
    const handle = await dpop();
    server.use(http.post(TOKEN, () => HttpResponse.json(dpopToken)), http.post(CODE_TOKEN, () => HttpResponse.json(dpopToken)));
    const client = { clientId: 'spa' };
    await exchangeCode({ provider, client, clientAuth: none(), code: 'c', redirectUri: 'https://app.example.com/cb', dpop: handle });
    const refreshed = await refreshTokens({ provider, client, clientAuth: none(), refreshToken: 'bound-rt', dpop: handle });
    expect(refreshed.tokenType).toBe('DPoP');
    expect((await proofOf(0)).payload.htu).toBe(CODE_TOKEN);
    expect((await proofOf(1)).payload.htu).toBe(TOKEN);
    for (const i of [0, 1]) expect(await calculateJwkThumbprint((await proofOf(i)).header.jwk!)).toBe(handle.jkt);
  });

  it('revocation sends a proof when given the handle', async () => {
    const withRevocation = { ...provider, revocation_endpoint: `${ISSUER}/oauth/revoke` };
    server.use(http.post(`${ISSUER}/oauth/revoke`, () => new HttpResponse(null, { status: 200 })));
    await revokeToken({ provider: withRevocation, client: { clientId: 'spa' }, clientAuth: none(), token: 'bound-rt', dpop: await dpop() });
    expect((await proofOf(0)).payload).toMatchObject({ htm: 'POST', htu: `${ISSUER}/oauth/revoke` });
  });

  it('binds the code with dpop_jkt through extra', async () => {
    const handle = await dpop();
    const { url } = await buildAuthorizationRequest({
      provider,
      clientId: 'spa',
      redirectUri: 'https://app.example.com/cb',
      scope: 'openid',
      extra: { dpop_jkt: handle.jkt },
    });
    expect(url.searchParams.get('dpop_jkt')).toBe(handle.jkt);
  });
});

describe('userinfo and protected resources with a DPoP-bound token', () => {
  it('userinfo sends Authorization: DPoP and a proof with ath, never Bearer, and retries once on a nonce challenge', async () => {
    const handle = await dpop();
    server.use(
      http.get(USERINFO, ({ request }) =>
        request.headers.get('dpop')!.length > 0 && requests.length === 1
          ? new HttpResponse(null, { status: 401, headers: { 'WWW-Authenticate': 'DPoP error="use_dpop_nonce", algs="ES256"', 'DPoP-Nonce': 'u-1' } })
          : HttpResponse.json({ sub: 'alice' }),
      ),
    );
    expect(await fetchUserInfo({ provider, accessToken: 'bound-at', expectedSubject: 'alice', dpop: handle })).toEqual({ sub: 'alice' });
    expect(requests).toHaveLength(2);
    for (const request of requests) expect(request.headers.get('authorization')).toBe('DPoP bound-at');
    const { payload } = await proofOf(1);
    expect(payload).toMatchObject({ htm: 'GET', htu: USERINFO, nonce: 'u-1', ath: createHash('sha256').update('bound-at').digest('base64url') });
  });

  it('protectedResourceRequest retries once, then returns a second challenge as the response', async () => {
    let nonce = 0;
    server.use(
      http.post(API, () => new HttpResponse(null, { status: 401, headers: { 'WWW-Authenticate': 'Bearer realm="api", DPoP algs="ES256", error="use_dpop_nonce"', 'DPoP-Nonce': `r-${++nonce}` } })),
    );
    const response = await protectedResourceRequest(await dpop(), 'bound-at', API, { method: 'post', body: '{"n":1}' });
    expect(response.status).toBe(401);
    expect(requests).toHaveLength(2);
    expect(await requests[1]!.text()).toBe('{"n":1}');
    expect((await proofOf(1)).payload).toMatchObject({ htm: 'POST', htu: API, nonce: 'r-1' });
  });

  it('does not retry a 401 that is no nonce challenge, and refuses a caller-set Authorization (no Bearer mixed in)', async () => {
    server.use(http.get(API, () => new HttpResponse(null, { status: 401, headers: { 'WWW-Authenticate': 'DPoP error="invalid_token"', 'DPoP-Nonce': 'x' } })));
    const handle = await dpop();
    expect((await protectedResourceRequest(handle, 'bound-at', `${API}?q=1`)).status).toBe(401);
    expect(requests).toHaveLength(1);
    expect((await proofOf(0)).payload.htu).toBe(API);
    await expect(protectedResourceRequest(handle, 'bound-at', API, { headers: { Authorization: 'Bearer bound-at' } })).rejects.toMatchObject({
      code: 'invalid_options',
    });
    expect(requests).toHaveLength(1);
  });
});
