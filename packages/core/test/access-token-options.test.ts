/**
 * The parts of the API-side verifiers that need no server: option checks (a verifier never
 * accepts `none` or HMAC, nor an unbounded tolerance), the Authorization header reader, the
 * in-memory replay cache (bounded, forgetting only expired or oldest entries) and stateless
 * DPoP nonces (accepted for the current and the previous period only). The checks over real
 * HTTP are in packages/node/test/access-token-*.test.ts, run against both verifier paths.
 */
import { describe, expect, it } from 'vitest';
import { dpopNonces, dpopProofs, jwtAccessTokenVerifier, memoryDpopReplayCache, readAccessToken } from '../src/api/index';

const base = { issuer: 'https://id.example', jwksUri: 'https://id.example/jwks', audience: 'https://api.example' };
const request = (authorization: string | null) => ({ method: 'GET', url: 'https://api.example/x', authorization, dpop: null });

describe('jwtAccessTokenVerifier options', () => {
  it.each([
    [{ algorithms: ['HS256'] }],
    [{ algorithms: ['none'] }],
    [{ algorithms: [] }],
    [{ clockTolerance: 301 }],
    [{ clockTolerance: -1 }],
    [{ maxTokenLength: Number.POSITIVE_INFINITY }],
    [{ audience: '' }],
    [{ issuer: undefined as unknown as string }],
  ])('refuses %j with invalid_options', (override) => {
    expect(() => jwtAccessTokenVerifier({ ...base, ...override })).toThrow(expect.objectContaining({ code: 'invalid_options' }));
  });

  it('refuses HMAC and none among DPoP proof algorithms, and unbounded windows', () => {
    for (const options of [{ algorithms: ['HS256'] }, { algorithms: ['none'] }, { maxAge: 3600 }, { clockTolerance: 120 }]) {
      expect(() => dpopProofs(options)).toThrow(expect.objectContaining({ code: 'invalid_options' }));
    }
  });
});

describe('readAccessToken', () => {
  it.each([
    ['Bearer abc.def.ghi', 'Bearer', 'abc.def.ghi'],
    ['bearer abc', 'Bearer', 'abc'],
    ['DPoP abc', 'DPoP', 'abc'],
    ['  Bearer   abc  ', 'Bearer', 'abc'],
  ])('reads %j', (header, scheme, token) => {
    expect(readAccessToken(request(header))).toEqual({ scheme, token });
  });

  it.each([
    [null, 'access_token_missing', 'invalid_token'],
    ['', 'access_token_missing', 'invalid_token'],
    ['Basic YWxpY2U6c2VjcmV0', 'access_token_missing', 'invalid_token'],
    ['Bearer', 'authorization_header_invalid', 'invalid_request'],
    ['Bearer a b', 'authorization_header_invalid', 'invalid_request'],
    ['Bearer a, DPoP b', 'authorization_header_invalid', 'invalid_request'],
    ['Basic x, Bearer y', 'authorization_header_invalid', 'invalid_request'],
    [`Bearer ${'a'.repeat(9000)}`, 'access_token_malformed', 'invalid_token'],
  ])('refuses %j: %s', (header, code, challenge) => {
    expect(() => readAccessToken(request(header))).toThrow(expect.objectContaining({ code, challenge, name: 'AccessTokenError' }));
  });
});

describe('memoryDpopReplayCache', () => {
  it('refuses a jti until its proof would have expired anyway', () => {
    let now = 1000;
    const cache = memoryDpopReplayCache({ now: () => now });
    expect(cache.remember('a', 1065)).toBe(true);
    expect(cache.remember('a', 1065)).toBe(false);
    now = 1066;
    expect(cache.remember('a', 1131)).toBe(true);
  });

  it('stays within maxEntries, forgetting the oldest first', () => {
    const cache = memoryDpopReplayCache({ maxEntries: 3, now: () => 0 });
    for (const jti of ['a', 'b', 'c', 'd']) expect(cache.remember(jti, 100)).toBe(true);
    expect(cache.remember('d', 100)).toBe(false);
    expect(cache.remember('c', 100)).toBe(false);
    expect(cache.remember('a', 100)).toBe(true); // forgotten: the bound is documented
  });
});

describe('dpopNonces', () => {
  it('accepts the current and the previous period’s nonce, not older ones, across instances sharing the secret', async () => {
    let now = 10_000;
    const secret = 'a-secret-every-instance-shares-0123456789';
    const one = dpopNonces({ secret, period: 300, now: () => now });
    const other = dpopNonces({ secret, period: 300, now: () => now });
    const stranger = dpopNonces({ secret: 'another-secret-of-enough-length-0123456789', period: 300, now: () => now });
    const nonce = await one.current();
    expect(nonce).toMatch(/^[\w-]{43}$/);
    expect(await other.accepts(nonce)).toBe(true);
    expect(await stranger.accepts(nonce)).toBe(false);
    now += 300;
    expect(await one.accepts(nonce)).toBe(true);
    expect(await one.current()).not.toBe(nonce);
    now += 300;
    expect(await one.accepts(nonce)).toBe(false);
  });

  it('refuses a short secret', () => {
    expect(() => dpopNonces({ secret: 'short' })).toThrow(expect.objectContaining({ code: 'invalid_options' }));
  });
});
