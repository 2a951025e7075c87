import { describe, expect, it } from 'vitest';
import { OidcError, codeChallengeS256, createCodeVerifier, createNonce, createState } from '../src/index';
import { fromBase64url } from '../src/http/encoding';

const BASE64URL_43 = /^[A-Za-z0-9_-]{43}$/;

describe('PKCE S256', () => {
  it('matches the RFC 7636 Appendix B example', async () => {
    await expect(codeChallengeS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).resolves.toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('creates 43-character verifiers of the unreserved set that encode 32 bytes', () => {
    const verifier = createCodeVerifier();
    expect(verifier).toMatch(BASE64URL_43);
    expect(fromBase64url(verifier)).toHaveLength(32);
  });

  it('accepts verifiers of 43 and 128 unreserved characters, including "." and "~"', async () => {
    await expect(codeChallengeS256(`${'a'.repeat(42)}~`)).resolves.toMatch(BASE64URL_43);
    await expect(codeChallengeS256(`${'A.-_~9'.repeat(21)}xy`)).resolves.toMatch(BASE64URL_43);
  });

  it.each([
    ['42 characters', 'a'.repeat(42)],
    ['129 characters', 'a'.repeat(129)],
    ['a space', `${'a'.repeat(42)} `],
    ['a "+"', `${'a'.repeat(42)}+`],
    ['a "/"', `${'a'.repeat(42)}/`],
    ['a non-ASCII letter', `${'a'.repeat(42)}é`],
    ['the empty string', ''],
  ])('rejects a verifier with %s as invalid_options', async (_, verifier) => {
    const error = await codeChallengeS256(verifier).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OidcError);
    expect(error).toMatchObject({ code: 'invalid_options' });
  });
});

describe('state and nonce', () => {
  it.each([
    ['createState', createState],
    ['createNonce', createNonce],
    ['createCodeVerifier', createCodeVerifier],
  ])('%s returns 256 bits of base64url, different every call', (_, create) => {
    const values = Array.from({ length: 200 }, create);
    for (const value of values) {
      expect(value).toMatch(BASE64URL_43);
      expect(fromBase64url(value)).toHaveLength(32);
    }
    expect(new Set(values).size).toBe(values.length);
  });

  it('draws from crypto.getRandomValues', () => {
    const original = crypto.getRandomValues.bind(crypto);
    let calls = 0;
    const spy = (array: Uint8Array<ArrayBuffer>) => {
      calls++;
      return original(array);
    };
    Object.defineProperty(crypto, 'getRandomValues', { value: spy, configurable: true, writable: true });
    try {
      createState();
      createNonce();
      createCodeVerifier();
    } finally {
      Object.defineProperty(crypto, 'getRandomValues', { value: original, configurable: true, writable: true });
    }
    expect(calls).toBe(3);
  });
});
