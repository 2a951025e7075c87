/**
 * The node:crypto verifier's shortcuts refuse what the plain path refuses. The primitives keep
 * what `isCompactJws` decoded (the last header segment, the claims, the signature and the token
 * it came from) for the checks after it, so these tests mutate valid tokens at random (a
 * character changed, added or removed, segments of two tokens swapped) and verify them
 * interleaved with valid ones, over a real JWKS on 127.0.0.1: the node verifier must give
 * core's WebCrypto answer (the same error code) for every one, and a signature must never be
 * checked against another token's decoded bytes.
 */
import { clearJwksCache } from '@oidc-rp/core';
import { type AccessTokenVerifier, jwtAccessTokenVerifier as coreVerifier } from '@oidc-rp/core/api';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { jwtAccessTokenVerifier as nodeVerifier, nodePrimitives } from '../../src/api/index';
import { AUDIENCE } from '../support/access-token-cases';
import { type TestKey, startIssuer } from '../support/api-harness';

const issuer = await startIssuer(AUDIENCE);
afterAll(() => {
  clearJwksCache();
  return issuer.close();
});

const options = { issuer: issuer.issuer, jwksUri: issuer.jwksUri, audience: AUDIENCE };
const rsa = issuer.keys[0] as TestKey;
const ec = issuer.keys[1] as TestKey;

// Two tokens per key: same header, different claims and signatures.
const valid = [issuer.token({}, {}, rsa), issuer.token({ sub: 'bob' }, {}, rsa), issuer.token({}, {}, ec), issuer.token({ scope: 'x' }, {}, ec)];

const answer = (verify: AccessTokenVerifier, token: string) =>
  verify({ method: 'GET', url: `${AUDIENCE}/orders`, authorization: `Bearer ${token}`, dpop: null }).then(
    () => 'ok',
    (error: { code?: string }) => error.code ?? 'no code',
  );

// Characters of every kind the shape checks tell apart: the alphabet, the dot, the other
// alphabet, padding, the scheme separators, other ASCII, Latin-1 and beyond.
const stray = fc.constantFrom('A', 'z', '0', '-', '_', '.', '+', '/', '=', ' ', ',', '\t', '!', '~', 'é', 'Ā', '😀');

const mutation = fc.oneof(
  fc.record({ from: fc.nat(3), at: fc.nat(2000), char: stray, kind: fc.constantFrom('replace', 'insert', 'delete') }),
  fc.record({ from: fc.nat(3), other: fc.nat(3), segment: fc.nat(2), kind: fc.constant('swap') }),
);

function mutate(m: { from: number; kind: string; at?: number; char?: string; other?: number; segment?: number }): string {
  const token = valid[m.from] as string;
  if (m.kind === 'swap') {
    const parts = token.split('.');
    parts[m.segment as number] = (valid[m.other as number] as string).split('.')[m.segment as number] as string;
    return parts.join('.');
  }
  const at = (m.at as number) % token.length;
  if (m.kind === 'delete') return token.slice(0, at) + token.slice(at + 1);
  return token.slice(0, at) + (m.char as string) + token.slice(at + (m.kind === 'replace' ? 1 : 0));
}

describe('the node verifier with its memoised decoding', () => {
  it('answers a mutated token, between valid ones, exactly as the WebCrypto path does', async () => {
    const core = coreVerifier(options);
    const node = nodeVerifier(options);
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(mutation, fc.nat(3)), { minLength: 1, maxLength: 6 }), async (steps) => {
        for (const [m, before] of steps) {
          const token = mutate(m);
          // A valid token first: its segments are what the scratch buffers hold when the mutated one comes.
          expect(await answer(node, valid[before] as string)).toBe('ok');
          const [fromCore, fromNode] = [await answer(core, token), await answer(node, token)];
          expect({ token, answer: fromNode }).toEqual({ token, answer: fromCore });
          if (fromNode !== 'ok') refused++;
        }
      }),
      { numRuns: 150 },
    );
    expect(refused).toBeGreaterThan(100);
  });

  it('never checks a signature against the bytes decoded from another token', async () => {
    const isCompactJws = nodePrimitives.isCompactJws as (token: string) => boolean;
    const [a, b] = valid as [string, string];
    const jwk = { ...rsa.publicJwk, kid: rsa.kid, alg: 'RS256' };
    // `a`'s signing input with `b`'s signature: a forgery whatever the scratch holds.
    const forged = `${a.slice(0, a.lastIndexOf('.'))}${b.slice(b.lastIndexOf('.'))}`;
    for (const checked of [a, b, forged]) {
      expect(isCompactJws(checked)).toBe(true);
      expect([nodePrimitives.verify(forged, jwk, 'RS256'), nodePrimitives.verify(a, jwk, 'RS256'), nodePrimitives.verify(b, jwk, 'RS256')]).toEqual([false, true, true]);
    }
    // The same token as another string (not the object `isCompactJws` saw) reads the same.
    expect(isCompactJws(a)).toBe(true);
    expect(nodePrimitives.verify(`${a.slice(0, 10)}${a.slice(10)}`, jwk, 'RS256')).toBe(true);
    // Not three segments: refused before any decoding.
    for (const token of [`${a}.${a.slice(a.lastIndexOf('.') + 1)}`, a.slice(0, a.lastIndexOf('.')), a.replaceAll('.', '')]) {
      expect(() => nodePrimitives.verify(token, jwk, 'RS256')).toThrow(TypeError);
    }
  });
});
