/**
 * The JOSE primitives on `node:crypto`: a `KeyObject` built once per JWK of the issuer's key
 * set (the JWK objects of core's JWKS cache, so a refetched set builds new ones), one-shot
 * `crypto.verify` on the signing input, `Buffer` base64url decoding. They give exactly the
 * answers of core's WebCrypto ones (a test runs both over the same tokens), only faster.
 */

import { type KeyObject, constants, createHash, createPublicKey, verify } from 'node:crypto';
import type { JosePrimitives, PublicJwk } from '@oidc-rp/core/api';

// Per JWK: its KeyObject, and the ECDSA form of it (JWS signatures are r || s, not DER).
const keyObjects = new WeakMap<PublicJwk, { key: KeyObject; ecdsa: { key: KeyObject; dsaEncoding: 'ieee-p1363' } }>();
const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

function keyObjectOf(jwk: PublicJwk): { key: KeyObject; ecdsa: { key: KeyObject; dsaEncoding: 'ieee-p1363' } } {
  let entry = keyObjects.get(jwk);
  if (!entry) {
    // Key material only: `alg`, `use` and `key_ops` were checked when the key was selected.
    const { kty, crv, n, e, x, y } = jwk;
    const key = createPublicKey({ key: { kty, crv, n, e, x, y } as import('node:crypto').JsonWebKey, format: 'jwk' });
    const bits = key.asymmetricKeyDetails?.modulusLength;
    if (bits !== undefined && bits < 2048) throw new TypeError('RSA keys need 2048 bits or more');
    entry = { key, ecdsa: { key, dsaEncoding: 'ieee-p1363' } };
    keyObjects.set(jwk, entry);
  }
  return entry;
}

// Scratch space for the signing input and the signature: crypto.verify is synchronous and copies
// nothing it keeps, so one buffer each serves every call (a token too long for them gets its own).
const scratchInput = Buffer.allocUnsafe(8192);
const scratchSignature = Buffer.allocUnsafe(1024);

// How node:crypto verifies each JWS algorithm: the digest and the key form (looked up once per call).
type Form = 'plain' | 'ecdsa' | 'pss';
const ALGORITHMS: Record<string, { hash: string | null; form: Form; saltLength?: number }> = {
  RS256: { hash: 'sha256', form: 'plain' },
  RS384: { hash: 'sha384', form: 'plain' },
  RS512: { hash: 'sha512', form: 'plain' },
  PS256: { hash: 'sha256', form: 'pss', saltLength: 32 },
  PS384: { hash: 'sha384', form: 'pss', saltLength: 48 },
  PS512: { hash: 'sha512', form: 'pss', saltLength: 64 },
  ES256: { hash: 'sha256', form: 'ecdsa' },
  ES384: { hash: 'sha384', form: 'ecdsa' },
  ES512: { hash: 'sha512', form: 'ecdsa' },
  EdDSA: { hash: null, form: 'plain' },
  Ed25519: { hash: null, form: 'plain' },
};

function verifyJws(token: string, jwk: PublicJwk, alg: string): boolean {
  const params = Object.hasOwn(ALGORITHMS, alg) ? ALGORITHMS[alg] : undefined;
  if (!params) throw new TypeError('unsupported JWS algorithm');
  const { key, ecdsa } = keyObjectOf(jwk);
  const dot = token.lastIndexOf('.');
  // The signing input is ASCII (base64url and a dot): latin1 is its byte-for-byte encoding.
  const input = dot <= scratchInput.length ? scratchInput.subarray(0, scratchInput.write(token, 0, dot, 'latin1')) : Buffer.from(token.slice(0, dot), 'latin1');
  const encoded = token.length - dot - 1;
  const signature =
    encoded <= (scratchSignature.length * 4) / 3
      ? scratchSignature.subarray(0, scratchSignature.write(token.slice(dot + 1), 'base64url'))
      : Buffer.from(token.slice(dot + 1), 'base64url');
  switch (params.form) {
    case 'plain':
      return verify(params.hash, input, key, signature);
    case 'ecdsa':
      return verify(params.hash, input, ecdsa, signature);
    case 'pss':
      return verify(params.hash, input, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: params.saltLength }, signature);
  }
}

// Scratch space for a decoded JWS segment (header or claims), read into a string at once.
const scratchJson = Buffer.allocUnsafe(16384);

function decodeJson(segment: string): Record<string, unknown> | undefined {
  // A length no base64 string can have.
  if (segment.length % 4 === 1) return undefined;
  const expected = (segment.length * 3) >> 2;
  const scratch = expected <= scratchJson.length;
  const bytes = scratch ? scratchJson : Buffer.from(segment, 'base64url');
  const length = scratch ? scratchJson.write(segment, 'base64url') : bytes.length;
  // Buffer skips characters outside the alphabet: then fewer bytes come out than the length implies.
  if (length !== expected) return undefined;
  let text = bytes.toString('utf8', 0, length);
  try {
    // Buffer replaces bad UTF-8 with U+FFFD; the strict decoder then decides, as WebCrypto's path does.
    if (text.includes('\uFFFD')) text = fatalUtf8.decode(bytes.subarray(0, length));
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `node:crypto` primitives that `@oidc-rp/node/api`'s verifiers use; pass them to a core
 * verifier, or to `dpopProofs` checks of your own.
 *
 * @example
 * ```ts
 * import { jwtAccessTokenVerifier } from '@oidc-rp/core/api';
 * import { nodePrimitives } from '@oidc-rp/node/api';
 *
 * const verify = jwtAccessTokenVerifier({ issuer, jwksUri, audience, primitives: nodePrimitives });
 * ```
 */
export const nodePrimitives: JosePrimitives = {
  verify: verifyJws,
  sha256: (text) => createHash('sha256').update(text).digest('base64url'),
  decodeJson,
};
