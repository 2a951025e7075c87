import { compactVerify, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { buildAuthorizationRequest } from '../src/index';
import { REQUEST_OBJECT_TYPE, createRequestObject, requestObjectSigner, withRequestObject } from '../src/signed';
import { fromBase64url, fromUtf8 } from '../src/http/encoding';
import { privateJwk } from './support/key-pairs';
import { ISSUER, NOW, testProvider } from './support/id-tokens';

const provider = testProvider({ request_object_signing_alg_values_supported: ['PS256', 'ES256', 'EdDSA', 'RS256'] });

function built(extra: { maxAge?: number } = {}) {
  return buildAuthorizationRequest({ provider, clientId: 'web', redirectUri: 'https://app.example/cb', scope: 'openid profile', ...extra });
}

function payloadOf(jwt: string): Record<string, unknown> {
  return JSON.parse(fromUtf8(fromBase64url(jwt.split('.')[1]!)));
}

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as { code: string; message: string },
  );
}

describe('createRequestObject', () => {
  it.each(['PS256', 'ES256', 'EdDSA', 'RS256'] as const)('signs every parameter with %s, typ oauth-authz-req+jwt, aud the issuer, iss the client', async (alg) => {
    const { publicKey, jwk } = await privateJwk(alg);
    const request = await built({ maxAge: 30 });
    const jwt = await createRequestObject({ provider, request, signer: requestObjectSigner({ key: { ...jwk, kid: 'k1' }, alg, now: () => NOW }) });
    const { payload, protectedHeader } = await compactVerify(jwt, publicKey);
    expect(protectedHeader).toEqual({ alg, typ: REQUEST_OBJECT_TYPE, kid: 'k1' });
    const claims = JSON.parse(new TextDecoder().decode(payload));
    for (const [name, value] of request.url.searchParams) expect(claims[name]).toEqual(name === 'max_age' ? 30 : value);
    expect(claims).toMatchObject({ iss: 'web', aud: ISSUER, client_id: 'web', iat: NOW, nbf: NOW, exp: NOW + 300 });
    expect(claims.jti).toMatch(/^[\w-]{22}$/);
  });

  it('chooses the RSA algorithm the provider lists first when the JWK has none', async () => {
    const { jwk } = await privateJwk('RS256');
    delete (jwk as { alg?: string }).alg;
    const jwt = await createRequestObject({
      provider: { ...provider, request_object_signing_alg_values_supported: ['RS256'] },
      request: await built(),
      signer: requestObjectSigner({ key: jwk }),
    });
    expect(decodeProtectedHeader(jwt).alg).toBe('RS256');
  });

  it('refuses an algorithm the provider does not list', async () => {
    const { jwk } = await privateJwk('ES256');
    const error = await rejection(
      createRequestObject({ provider: { ...provider, request_object_signing_alg_values_supported: ['PS256'] }, request: await built(), signer: requestObjectSigner({ key: jwk }) }),
    );
    expect(error.code).toBe('request_object_alg_not_supported');
  });

  it('refuses a public key when the signer is made', async () => {
    const { jwk } = await privateJwk('ES256');
    const { d: _d, ...publicJwk } = jwk;
    expect(() => requestObjectSigner({ key: publicJwk })).toThrow(expect.objectContaining({ code: 'request_object_key_unsupported' }));
  });

  it('sends alg none only to a provider that lists it', async () => {
    const signer = requestObjectSigner({ alg: 'none' });
    expect((await rejection(createRequestObject({ provider, request: await built(), signer }))).code).toBe('request_object_alg_not_supported');
    const jwt = await createRequestObject({ provider: { ...provider, request_object_signing_alg_values_supported: ['none', 'RS256'] }, request: await built(), signer });
    expect(jwt.endsWith('.')).toBe(true);
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'none', typ: REQUEST_OBJECT_TYPE });
  });

  it('refuses a lifetime over an hour', () => {
    expect(() => requestObjectSigner({ alg: 'none', lifetime: 3601 })).toThrow(expect.objectContaining({ code: 'invalid_options' }));
  });
});

describe('withRequestObject', () => {
  it('by value: the URL carries client_id, response_type, scope and request', async () => {
    const { jwk } = await privateJwk('ES256');
    const request = await built();
    const sent = await withRequestObject({ provider, request, signer: requestObjectSigner({ key: jwk }) });
    expect([...sent.url.searchParams.keys()]).toEqual(['client_id', 'response_type', 'scope', 'request']);
    expect(sent.transaction).toBe(request.transaction);
    expect(payloadOf(sent.url.searchParams.get('request')!).state).toBe(request.transaction.state);
  });

  it('for PAR: only client_id and request stay, to be pushed', async () => {
    const { jwk } = await privateJwk('PS256');
    const sent = await withRequestObject({ provider, request: await built(), signer: requestObjectSigner({ key: jwk }), delivery: 'par' });
    expect([...sent.url.searchParams.keys()]).toEqual(['client_id', 'request']);
  });

  it('by reference: the JWT goes to the store and its https URL into request_uri', async () => {
    const { jwk, publicKey } = await privateJwk('EdDSA');
    let stored = '';
    const sent = await withRequestObject({
      provider,
      request: await built(),
      signer: requestObjectSigner({ key: jwk }),
      delivery: (jwt) => {
        stored = jwt;
        return 'https://app.example/request-objects/abc';
      },
    });
    expect(sent.url.searchParams.get('request_uri')).toBe('https://app.example/request-objects/abc');
    expect(sent.url.searchParams.has('request')).toBe(false);
    await compactVerify(stored, publicKey);
  });

  it('refuses a plain-http request_uri off loopback', async () => {
    const { jwk } = await privateJwk('ES256');
    const error = await rejection(
      withRequestObject({ provider, request: await built(), signer: requestObjectSigner({ key: jwk }), delivery: () => 'http://app.example/ro/1' }),
    );
    expect(error.code).toBe('invalid_options');
  });
});

