/**
 * What the signature-verification benchmarks (ID tokens, access tokens) share: the issuer's
 * signing key, `crypto.verify` of the signature alone as the limit candidate, the check that
 * every candidate accepts the valid token and refuses a tampered one (so none skips the
 * signature), and the interleaved rounds with each candidate's ratios to the limit and to a
 * reference library.
 */

import { createPublicKey, verify as cryptoVerify } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import { interleave, pairedRatio } from './interleave.mjs';

/**
 * @typedef {{ name: string, verify: (token: string) => () => unknown }} VerifyCandidate
 *   verify(token) prepares one call; the call rejects (or returns false) for a token it refuses.
 */

/** A signing key for `alg` and its public JWK as an issuer publishes it (kid `<alg>-1`). */
export async function signingKey(alg) {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: `${alg}-1`, alg, use: 'sig' };
  return { privateKey, jwk };
}

/** The signing input and the signature of a compact JWS, as `crypto.verify` takes them. */
export function splitJws(token) {
  const dot = token.lastIndexOf('.');
  return [Buffer.from(token.slice(0, dot)), Buffer.from(token.slice(dot + 1), 'base64url')];
}

/**
 * `crypto.verify` on the precomputed signing input with a ready key object: the limit every
 * verifier is measured against (no parsing, no key lookup, no claim checks).
 * @returns {VerifyCandidate}
 */
export function cryptoVerifyLimit(jwk, alg) {
  const keyObject = createPublicKey({ key: jwk, format: 'jwk' });
  const key = alg.startsWith('ES') ? { key: keyObject, dsaEncoding: 'ieee-p1363' } : keyObject;
  return {
    name: 'crypto.verify (limit)',
    verify: (token) => {
      const [input, signature] = splitJws(token);
      return () => cryptoVerify('sha256', input, key, signature);
    },
  };
}

/** The token with one byte of its signature flipped: every candidate must refuse it. */
export function tamper(token) {
  const dot = token.lastIndexOf('.');
  const signature = Buffer.from(token.slice(dot + 1), 'base64url');
  signature[signature.length >> 1] ^= 0x01;
  return `${token.slice(0, dot)}.${signature.toString('base64url')}`;
}

async function accepts(call) {
  try {
    return (await call()) !== false;
  } catch {
    return false;
  }
}

/**
 * Throws unless every candidate accepts `valid` and refuses its tampered copy, and each token of
 * `refused` (`[what, token]`) for every candidate but the limit. `before(candidate)` runs first
 * (to attribute the candidate's JWKS requests).
 * @param {VerifyCandidate[]} list
 * @param {{ what: string, valid: string, refused?: [string, string][], before?: (c: VerifyCandidate) => void }} options
 */
export async function checkCandidates(list, { what, valid, refused = [], before }) {
  const bad = tamper(valid);
  for (const candidate of list) {
    before?.(candidate);
    if (!(await accepts(candidate.verify(valid)))) throw new Error(`${candidate.name} refused a valid ${what}`);
    if (await accepts(candidate.verify(bad))) throw new Error(`${candidate.name} accepted a ${what} with a bad signature`);
    if (candidate.name.startsWith('crypto')) continue;
    for (const [which, token] of refused) {
      if (await accepts(candidate.verify(token))) throw new Error(`${candidate.name} accepted a ${what} ${which}`);
    }
  }
}

/**
 * The interleaved rounds of every candidate verifying `token`; each result with `vsLimit` (its
 * paired ratio to the first candidate, the limit) and `[as]` (to the candidate named `reference`),
 * by wall-clock time, and `vsLimitCpu`, `[as + 'Cpu']` the same by CPU time.
 * @param {VerifyCandidate[]} list
 * @param {{ rounds?: number, sliceMs?: number }} options
 */
export async function verifyRounds(list, token, options, { reference, as }) {
  const results = await interleave(
    list.map((candidate) => ({ name: candidate.name, fn: candidate.verify(token) })),
    options,
  );
  const limit = results[0];
  const base = results.find((r) => r.name === reference);
  return results.map((r) => ({
    ...r,
    vsLimit: pairedRatio(r, limit),
    [as]: pairedRatio(r, base),
    vsLimitCpu: pairedRatio(r, limit, 'cpuRounds'),
    [`${as}Cpu`]: pairedRatio(r, base, 'cpuRounds'),
  }));
}

/** The sentence under each table of such a run. */
export const roundsNote = (rounds, sliceMs) =>
  `ops/s: median of ${rounds} interleaved rounds of ${sliceMs} ms per candidate; ratios: median of the per-round ratios.`;
