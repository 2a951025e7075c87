import { CompactSign, SignJWT, exportJWK, exportSPKI } from 'jose';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { base64url, randomBase64url, utf8 } from '../src/http/encoding';
import { OidcError, type OidcErrorCode } from '../src/errors';
import { type IdTokenValidationOptions, validateIdToken } from '../src/client/id-token';
import { clearJwksCache } from '../src/jose/jwks';
import { tokenHash } from '../src/jose/token-hashes';
import {
  CLIENT_ID,
  ISSUER,
  NOW,
  type TestKey,
  base64urlJson,
  createTestKey,
  serveJwks,
  signIdToken,
  testProvider,
  validClaims,
} from './support/id-tokens';

const server = setupServer();
const NONCE = randomBase64url(32);
const ACCESS_TOKEN = randomBase64url(32);
const CODE = randomBase64url(32);

let rsa: TestKey;
let ec: TestKey;
let jwks: { fetches: () => number };

beforeAll(async () => {
  server.listen({ onUnhandledRequest: 'error' });
  rsa = await createTestKey('RS256');
  ec = await createTestKey('ES256');
});
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW * 1000);
  jwks = serveJwks(server, () => [rsa.jwk, ec.jwk]);
});
afterEach(() => {
  server.resetHandlers();
  clearJwksCache();
  vi.useRealTimers();
});
afterAll(() => server.close());

function validate(idToken: string, options: Partial<IdTokenValidationOptions> = {}) {
  return validateIdToken(idToken, { provider: testProvider(), clientId: CLIENT_ID, ...options });
}

/**
 * Asserts the validation fails with `code`, and that the message leaks neither the token
 * (nor any of its segments) nor the nonce, code, access token or any of `secrets`.
 */
async function expectRejection(
  idToken: string,
  options: Partial<IdTokenValidationOptions>,
  code: OidcErrorCode,
  secrets: string[] = [],
): Promise<OidcError> {
  const error: unknown = await validate(idToken, options).then(
    () => expect.fail(`expected the ID token to be rejected with ${code}`),
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(OidcError);
  const { message } = error as OidcError;
  expect((error as OidcError).code, message).toBe(code);
  const forbidden = [String(idToken), ...String(idToken).split('.'), NONCE, CODE, ACCESS_TOKEN, ...secrets];
  for (const value of forbidden.filter((text) => text.length >= 8)) expect(message).not.toContain(value);
  return error as OidcError;
}

describe('valid ID tokens', () => {
  it('accepts an RS256 token and resolves its claims', async () => {
    const token = await signIdToken(rsa, validClaims({ nonce: NONCE, name: 'Ada' }));
    const claims = await validate(token, { nonce: NONCE });
    expect(claims).toMatchObject({ iss: ISSUER, sub: 'user-42', aud: CLIENT_ID, nonce: NONCE, name: 'Ada' });
  });

  it('accepts an ES256 token', async () => {
    const claims = await validate(await signIdToken(ec));
    expect(claims.sub).toBe('user-42');
  });

  it('accepts PS256 and EdDSA tokens when the caller allows those algorithms', async () => {
    const ps = await createTestKey('PS256');
    const ed = await createTestKey('EdDSA');
    jwks = serveJwks(server, () => [ps.jwk, ed.jwk]);
    const algorithms = ['PS256', 'EdDSA'];
    await expect(validate(await signIdToken(ps), { algorithms })).resolves.toMatchObject({ sub: 'user-42' });
    await expect(validate(await signIdToken(ed), { algorithms })).resolves.toMatchObject({ sub: 'user-42' });
  });

  it('accepts several audiences when azp is the client', async () => {
    const token = await signIdToken(rsa, validClaims({ aud: [CLIENT_ID, 'api'], azp: CLIENT_ID }));
    await expect(validate(token)).resolves.toMatchObject({ azp: CLIENT_ID });
  });

  it('accepts a front-channel token whose at_hash and c_hash match', async () => {
    const token = await signIdToken(
      rsa,
      validClaims({ at_hash: await tokenHash(ACCESS_TOKEN, 'RS256'), c_hash: await tokenHash(CODE, 'RS256') }),
    );
    await expect(validate(token, { accessToken: ACCESS_TOKEN, code: CODE, frontChannel: true })).resolves.toBeDefined();
  });

  it('accepts a back-channel token without at_hash', async () => {
    await expect(validate(await signIdToken(rsa), { accessToken: ACCESS_TOKEN })).resolves.toBeDefined();
  });
});

describe('token hashes', () => {
  // OIDC Core 1.0, Appendix A.4 and A.3 (RS256).
  it('matches the at_hash and c_hash examples of the specification', async () => {
    expect(await tokenHash('jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y', 'RS256')).toBe('77QmUPtjPfzWtF2AnpK9RQ');
    expect(await tokenHash('Qcb0Orv1zh30vL1MPRsbm-diHiMwcLyZvn1arpZv-Jxf_11jnpEX3Tgfvk', 'RS256')).toBe(
      'LDktKdoQak3Pk0cnXxCltA',
    );
  });

  it('takes the left half of SHA-384 / SHA-512 for *384 / *512 and EdDSA', async () => {
    const leftHalf = async (hash: string) => {
      const digest = new Uint8Array(await crypto.subtle.digest(hash, utf8(ACCESS_TOKEN)));
      return btoa(String.fromCharCode(...digest.subarray(0, digest.length / 2)))
        .replace(/\+/g, '-')
        .replace(/\//g, '_')
        .replace(/=+$/, '');
    };
    expect(await tokenHash(ACCESS_TOKEN, 'ES384')).toBe(await leftHalf('SHA-384'));
    expect(await tokenHash(ACCESS_TOKEN, 'PS512')).toBe(await leftHalf('SHA-512'));
    expect(await tokenHash(ACCESS_TOKEN, 'EdDSA')).toBe(await leftHalf('SHA-512'));
    expect((await tokenHash(ACCESS_TOKEN, 'RS384')).length).toBe(32);
  });
});

describe('malformed tokens', () => {
  const header = base64urlJson({ alg: 'RS256', kid: 'key-1' });
  const payload = base64urlJson(validClaims());

  it.each([
    ['two parts', `${header}.${payload}`],
    ['four parts', `${header}.${payload}.c2ln.c2ln`],
    ['characters outside base64url', `${header}.${payload.slice(0, -2)}*!.c2ln`],
    ['padding', `${header}.${payload}=.c2ln`],
    ['a segment length no base64 has', `${header}.AAAAA.c2ln`],
    ['a payload that is not JSON', `${header}.${base64url(utf8('not json'))}.c2ln`],
    ['a payload that is not UTF-8', `${header}.${base64url(new Uint8Array([0xff, 0xfe, 0x7b]))}.c2ln`],
    ['a payload that is an array', `${header}.${base64urlJson([validClaims()])}.c2ln`],
    ['a payload that is a number', `${header}.${base64urlJson(42)}.c2ln`],
    ['a header that is not JSON', `bm90IGpzb24.${payload}.c2ln`],
    ['an empty string', ''],
  ])('rejects %s before fetching any key', async (_, token) => {
    await expectRejection(token, {}, 'id_token_malformed');
    expect(jwks.fetches()).toBe(0);
  });

  it('rejects a value that is not a string', async () => {
    await expectRejection(42 as unknown as string, {}, 'id_token_malformed');
  });

  it('rejects a header without alg or with a non-string kid', async () => {
    await expectRejection(`${base64urlJson({ kid: 'k' })}.${payload}.c2ln`, {}, 'id_token_malformed');
    await expectRejection(`${base64urlJson({ alg: 'RS256', kid: 7 })}.${payload}.c2ln`, {}, 'id_token_malformed');
  });

  it('rejects a correctly signed payload that is not JSON', async () => {
    const token = await new CompactSign(utf8('not json'))
      .setProtectedHeader({ alg: 'RS256', kid: rsa.kid })
      .sign(rsa.privateKey);
    await expectRejection(token, {}, 'id_token_malformed');
  });

  it('rejects a token without exp or with a non-numeric time claim', async () => {
    await expectRejection(await signIdToken(rsa, validClaims({ exp: undefined })), {}, 'id_token_malformed');
    await expectRejection(await signIdToken(rsa, validClaims({ nbf: 'soon' })), {}, 'id_token_malformed');
  });
});

describe('algorithms', () => {
  const unsigned = (claims: Record<string, unknown>) =>
    `${base64urlJson({ alg: 'none', kid: rsa.kid })}.${base64urlJson(claims)}.`;

  it('rejects alg "none" before any key lookup', async () => {
    await expectRejection(unsigned(validClaims()), {}, 'id_token_alg_not_allowed');
    await expectRejection(
      unsigned(validClaims()),
      { provider: testProvider({ id_token_signing_alg_values_supported: ['none', 'RS256'] }) },
      'id_token_alg_not_allowed',
    );
    expect(jwks.fetches()).toBe(0);
  });

  it('rejects HS256 signed with the RSA public key (PEM or JWK bytes) as the HMAC secret', async () => {
    const secrets = [utf8(await exportSPKI(rsa.publicKey)), utf8(JSON.stringify(rsa.jwk))];
    const hmacProvider = testProvider({ id_token_signing_alg_values_supported: ['RS256', 'HS256'] });
    for (const secret of secrets) {
      const token = await new SignJWT(validClaims()).setProtectedHeader({ alg: 'HS256', kid: rsa.kid }).sign(secret);
      await expectRejection(token, {}, 'id_token_alg_not_allowed');
      await expectRejection(token, { provider: hmacProvider }, 'id_token_alg_not_allowed');
    }
    expect(jwks.fetches()).toBe(0);
  });

  it('refuses an algorithms option that allows HMAC or none', async () => {
    const token = await signIdToken(rsa);
    await expectRejection(token, { algorithms: ['RS256', 'HS256'] }, 'invalid_options');
    await expectRejection(token, { algorithms: ['none'] }, 'invalid_options');
    await expectRejection(token, { algorithms: [] }, 'invalid_options');
  });

  it('rejects an asymmetric algorithm the provider does not list', async () => {
    const es384 = await createTestKey('ES384');
    jwks = serveJwks(server, () => [es384.jwk]);
    await expectRejection(await signIdToken(es384), {}, 'id_token_alg_not_allowed');
  });

  it('defaults to RS256 only when the provider lists no algorithms', async () => {
    const provider = testProvider({ id_token_signing_alg_values_supported: undefined });
    await expect(validate(await signIdToken(rsa), { provider })).resolves.toBeDefined();
    await expectRejection(await signIdToken(ec), { provider }, 'id_token_alg_not_allowed');
  });
});

describe('signature', () => {
  // Signs by hand with WebCrypto: jose refuses both of these on the signing side.
  async function signRaw(privateKey: CryptoKey, header: Record<string, unknown>): Promise<string> {
    const input = `${base64urlJson(header)}.${base64urlJson(validClaims())}`;
    const signature = await crypto.subtle.sign('RSASSA-PKCS1-v1_5', privateKey, utf8(input));
    return `${input}.${base64url(new Uint8Array(signature))}`;
  }

  it('rejects a token whose header marks an extension critical', async () => {
    const token = await signRaw(rsa.privateKey, { alg: 'RS256', kid: rsa.kid, crit: ['exp-ext'], 'exp-ext': true });
    await expectRejection(token, {}, 'id_token_malformed');
  });

  it('rejects a signature made with an RSA key shorter than 2048 bits', async () => {
    const { privateKey, publicKey } = (await crypto.subtle.generateKey(
      { name: 'RSASSA-PKCS1-v1_5', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
      true,
      ['sign', 'verify'],
    )) as CryptoKeyPair;
    const weakJwk = { ...(await exportJWK(publicKey)), kid: 'weak', alg: 'RS256', use: 'sig' };
    jwks = serveJwks(server, () => [weakJwk]);
    await expectRejection(await signRaw(privateKey, { alg: 'RS256', kid: 'weak' }), {}, 'id_token_signature_invalid');
  });

  it('rejects a token signed by another key under the provider key id', async () => {
    const impostor = await createTestKey('RS256');
    const token = await signIdToken(impostor, validClaims(), { kid: rsa.kid });
    await expectRejection(token, {}, 'id_token_signature_invalid');
  });

  it('rejects a token whose payload was altered after signing', async () => {
    const [header, , signature] = (await signIdToken(rsa)).split('.');
    const forged = `${header}.${base64urlJson(validClaims({ sub: 'admin' }))}.${signature}`;
    await expectRejection(forged, {}, 'id_token_signature_invalid');
  });

  it('rejects a token with an empty signature', async () => {
    const [header, payload] = (await signIdToken(rsa)).split('.');
    await expectRejection(`${header}.${payload}.`, {}, 'id_token_signature_invalid');
  });

  it('rejects an unknown kid after one JWKS refetch', async () => {
    const token = await signIdToken(rsa, validClaims(), { kid: 'forged' });
    const error = await expectRejection(token, {}, 'id_token_unknown_kid');
    expect(error.message).toContain('"forged"');
    expect(jwks.fetches()).toBe(2); // the first fetch, then exactly one refetch
  });

  it('fails with a clear error when the provider has no jwks_uri', async () => {
    await expectRejection(
      await signIdToken(rsa),
      { provider: testProvider({ jwks_uri: undefined }) },
      'invalid_provider_metadata',
    );
  });
});

describe('claims', () => {
  it('rejects a token from another issuer, naming both', async () => {
    const error = await expectRejection(
      await signIdToken(rsa, validClaims({ iss: 'https://evil.test' })),
      {},
      'id_token_iss_mismatch',
    );
    expect(error.message).toContain('"https://evil.test"');
    expect(error.message).toContain(`"${ISSUER}"`);
  });

  it('rejects an audience without the client', async () => {
    await expectRejection(await signIdToken(rsa, validClaims({ aud: 'other-client' })), {}, 'id_token_aud_mismatch');
    await expectRejection(
      await signIdToken(rsa, validClaims({ aud: ['a', 'b'], azp: CLIENT_ID })),
      {},
      'id_token_aud_mismatch',
    );
    await expectRejection(await signIdToken(rsa, validClaims({ aud: undefined })), {}, 'id_token_aud_mismatch');
  });

  it('rejects several audiences without azp', async () => {
    await expectRejection(await signIdToken(rsa, validClaims({ aud: [CLIENT_ID, 'api'] })), {}, 'id_token_azp_missing');
  });

  it('rejects an azp that is not the client', async () => {
    await expectRejection(
      await signIdToken(rsa, validClaims({ aud: [CLIENT_ID, 'api'], azp: 'api' })),
      {},
      'id_token_azp_mismatch',
    );
    await expectRejection(await signIdToken(rsa, validClaims({ azp: 'api' })), {}, 'id_token_azp_mismatch');
  });

  it('rejects an expired token, and accepts one expired within the clock tolerance', async () => {
    await expectRejection(await signIdToken(rsa, validClaims({ exp: NOW - 61 })), {}, 'id_token_expired');
    await expect(validate(await signIdToken(rsa, validClaims({ exp: NOW - 59 })))).resolves.toBeDefined();
    await expectRejection(
      await signIdToken(rsa, validClaims({ exp: NOW - 59 })),
      { clockTolerance: 30 },
      'id_token_expired',
    );
    await expectRejection(await signIdToken(rsa, validClaims({ exp: NOW })), { clockTolerance: 0 }, 'id_token_expired');
  });

  it('expires a token as time passes', async () => {
    const token = await signIdToken(rsa, validClaims({ exp: NOW + 100 }));
    await expect(validate(token)).resolves.toBeDefined();
    vi.setSystemTime((NOW + 161) * 1000);
    await expectRejection(token, {}, 'id_token_expired');
  });

  it('rejects iat in the future beyond the tolerance, and a missing iat', async () => {
    await expectRejection(await signIdToken(rsa, validClaims({ iat: NOW + 61 })), {}, 'id_token_iat_future');
    await expect(validate(await signIdToken(rsa, validClaims({ iat: NOW + 59 })))).resolves.toBeDefined();
    await expectRejection(await signIdToken(rsa, validClaims({ iat: undefined })), {}, 'id_token_iat_missing');
  });

  it('rejects nbf in the future beyond the tolerance', async () => {
    await expectRejection(await signIdToken(rsa, validClaims({ nbf: NOW + 120 })), {}, 'id_token_nbf_future');
    await expect(validate(await signIdToken(rsa, validClaims({ nbf: NOW + 30 })))).resolves.toBeDefined();
  });

  it('rejects a missing or empty sub', async () => {
    await expectRejection(await signIdToken(rsa, validClaims({ sub: undefined })), {}, 'id_token_sub_missing');
    await expectRejection(await signIdToken(rsa, validClaims({ sub: '' })), {}, 'id_token_sub_missing');
  });

  it('rejects a missing nonce when one was sent', async () => {
    await expectRejection(await signIdToken(rsa), { nonce: NONCE }, 'id_token_nonce_missing');
  });

  it('rejects a nonce that is not the one sent, without echoing either', async () => {
    const otherNonce = randomBase64url(32);
    await expectRejection(
      await signIdToken(rsa, validClaims({ nonce: otherNonce })),
      { nonce: NONCE },
      'id_token_nonce_mismatch',
      [otherNonce],
    );
  });

  it('requires auth_time when maxAge is given, and rejects one older than maxAge', async () => {
    await expectRejection(await signIdToken(rsa), { maxAge: 300 }, 'id_token_auth_time_missing');
    const old = await signIdToken(rsa, validClaims({ auth_time: NOW - 300 - 61 }));
    await expectRejection(old, { maxAge: 300 }, 'id_token_auth_time_too_old');
    await expect(validate(old)).resolves.toBeDefined(); // no maxAge asked: no limit
    const recent = await signIdToken(rsa, validClaims({ auth_time: NOW - 300 - 59 }));
    await expect(validate(recent, { maxAge: 300 })).resolves.toMatchObject({ auth_time: NOW - 359 });
  });

  it('rejects an at_hash that does not match the access token', async () => {
    const wrong = await tokenHash('another-access-token', 'RS256');
    const token = await signIdToken(rsa, validClaims({ at_hash: wrong }));
    const right = await tokenHash(ACCESS_TOKEN, 'RS256');
    await expectRejection(token, { accessToken: ACCESS_TOKEN }, 'id_token_at_hash_mismatch', [wrong, right]);
  });

  it('rejects a c_hash that does not match the code', async () => {
    const wrong = await tokenHash('another-code', 'RS256');
    const token = await signIdToken(rsa, validClaims({ c_hash: wrong }));
    const right = await tokenHash(CODE, 'RS256');
    await expectRejection(token, { code: CODE, frontChannel: true }, 'id_token_c_hash_mismatch', [wrong, right]);
  });

  it('rejects a hash computed with the wrong hash size', async () => {
    const sha512Half = await tokenHash(ACCESS_TOKEN, 'RS512');
    await expectRejection(
      await signIdToken(rsa, validClaims({ at_hash: sha512Half })),
      { accessToken: ACCESS_TOKEN },
      'id_token_at_hash_mismatch',
    );
  });

  it('requires at_hash and c_hash on a front-channel token that came with an access token and a code', async () => {
    const cHash = await tokenHash(CODE, 'RS256');
    const atHash = await tokenHash(ACCESS_TOKEN, 'RS256');
    const frontChannel = { accessToken: ACCESS_TOKEN, code: CODE, frontChannel: true };
    await expectRejection(
      await signIdToken(rsa, validClaims({ c_hash: cHash })),
      frontChannel,
      'id_token_at_hash_missing',
    );
    await expectRejection(
      await signIdToken(rsa, validClaims({ at_hash: atHash })),
      frontChannel,
      'id_token_c_hash_missing',
    );
  });

  it('refuses invalid numeric options instead of skipping checks', async () => {
    const token = await signIdToken(rsa, validClaims({ exp: NOW - 3600 }));
    await expectRejection(token, { clockTolerance: Number.NaN }, 'invalid_options');
    await expectRejection(token, { clockTolerance: -1 }, 'invalid_options');
    await expectRejection(token, { maxAge: Number.NaN }, 'invalid_options');
  });
});

describe('key selection', () => {
  it('does not use a JWKS key whose alg conflicts with the token header', async () => {
    const conflicting = await createTestKey('RS256');
    jwks = serveJwks(server, () => [{ ...conflicting.jwk, alg: 'RS512' }]);
    await expectRejection(await signIdToken(conflicting), {}, 'id_token_unknown_kid');
  });

  it('does not use an encryption key or a key of another type under the same kid', async () => {
    const enc = await createTestKey('RS256', { use: 'enc' });
    jwks = serveJwks(server, () => [enc.jwk, { ...ec.jwk, kid: rsa.kid }]);
    await expectRejection(await signIdToken(enc), {}, 'id_token_unknown_kid');
    await expectRejection(await signIdToken(rsa), {}, 'id_token_unknown_kid');
  });

  it('uses the only fitting key for a token without kid, and refuses to guess among several', async () => {
    const single = await createTestKey('RS256');
    const { kid: _, ...withoutKid } = single.jwk;
    jwks = serveJwks(server, () => [withoutKid, ec.jwk]);
    await expect(validate(await signIdToken(single, validClaims(), { kid: undefined }))).resolves.toBeDefined();

    server.resetHandlers();
    clearJwksCache();
    jwks = serveJwks(server, () => [single.jwk, rsa.jwk]);
    await expectRejection(await signIdToken(single, validClaims(), { kid: undefined }), {}, 'id_token_unknown_kid');
  });

  it('picks the key by kid among several keys of the same type', async () => {
    const second = await createTestKey('RS256');
    const jwk = { ...(await exportJWK(second.publicKey)), kid: second.kid };
    jwks = serveJwks(server, () => [rsa.jwk, jwk]);
    await expect(validate(await signIdToken(second))).resolves.toBeDefined();
    await expect(validate(await signIdToken(rsa))).resolves.toBeDefined();
  });
});
