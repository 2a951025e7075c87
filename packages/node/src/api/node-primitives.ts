/**
 * The JOSE primitives on `node:crypto`: a `KeyObject` built once per JWK of the issuer's key
 * set (the JWK objects of core's JWKS cache, so a refetched set builds new ones), one-shot
 * `crypto.verify` on the signing input, `Buffer` base64url decoding. They give exactly the
 * answers of core's WebCrypto ones (a test runs both over the same tokens), only faster.
 */

import { type KeyObject, constants, createHash, createPublicKey, verify } from 'node:crypto';
import type { JosePrimitives, PublicJwk } from '@oidc-rp/core/api';

const keyObjects = new WeakMap<PublicJwk, KeyObject>();
const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

function keyObjectOf(jwk: PublicJwk): KeyObject {
  let key = keyObjects.get(jwk);
  if (!key) {
    // Key material only: `alg`, `use` and `key_ops` were checked when the key was selected.
    const { kty, crv, n, e, x, y } = jwk;
    key = createPublicKey({ key: { kty, crv, n, e, x, y } as import('node:crypto').JsonWebKey, format: 'jwk' });
    const bits = key.asymmetricKeyDetails?.modulusLength;
    if (bits !== undefined && bits < 2048) throw new TypeError('RSA keys need 2048 bits or more');
    keyObjects.set(jwk, key);
  }
  return key;
}

function verifyJws(token: string, jwk: PublicJwk, alg: string): boolean {
  const key = keyObjectOf(jwk);
  const dot = token.lastIndexOf('.');
  // The signing input is ASCII (base64url and a dot): latin1 is its byte-for-byte encoding.
  const input = Buffer.from(token.slice(0, dot), 'latin1');
  const signature = Buffer.from(token.slice(dot + 1), 'base64url');
  if (alg === 'EdDSA' || alg === 'Ed25519') return verify(null, input, key, signature);
  const hash = `sha${alg.slice(2)}`;
  switch (alg.slice(0, 2)) {
    case 'RS':
      return verify(hash, input, key, signature);
    case 'PS':
      return verify(hash, input, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: Number(alg.slice(2)) / 8 }, signature);
    case 'ES':
      return verify(hash, input, { key, dsaEncoding: 'ieee-p1363' }, signature);
    default:
      throw new TypeError('unsupported JWS algorithm');
  }
}

function decodeJson(segment: string): Record<string, unknown> | undefined {
  // A length no base64 string can have.
  if (segment.length % 4 === 1) return undefined;
  const bytes = Buffer.from(segment, 'base64url');
  // Buffer skips characters outside the alphabet: then fewer bytes come out than the length implies.
  if (bytes.length !== (segment.length * 3) >> 2) return undefined;
  let text = bytes.toString('utf8');
  try {
    // Buffer replaces bad UTF-8 with U+FFFD; the strict decoder then decides, as WebCrypto's path does.
    if (text.includes('\uFFFD')) text = fatalUtf8.decode(bytes);
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
