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

// The views of the scratch buffers last handed to crypto.verify: an issuer's tokens mostly have
// the same signing-input and signature lengths, so the view is made again only when one changes.
let inputView = scratchInput.subarray(0, 0);
let signatureView = scratchSignature.subarray(0, 0);

function verifyJws(token: string, jwk: PublicJwk, alg: string): boolean {
  const params = Object.hasOwn(ALGORITHMS, alg) ? ALGORITHMS[alg] : undefined;
  if (!params) throw new TypeError('unsupported JWS algorithm');
  const { key, ecdsa } = keyObjectOf(jwk);
  const dot = token.lastIndexOf('.');
  let input: Buffer;
  if (dot <= scratchInput.length) {
    // The signing input is ASCII (base64url and a dot): latin1 is its byte-for-byte encoding.
    const length = scratchInput.write(token, 0, dot, 'latin1');
    if (inputView.length !== length) inputView = scratchInput.subarray(0, length);
    input = inputView;
  } else input = Buffer.from(token.slice(0, dot), 'latin1');
  const encoded = token.length - dot - 1;
  let signature: Buffer;
  if (encoded <= (scratchSignature.length * 4) / 3) {
    const length = scratchSignature.write(token.slice(dot + 1), 'base64url');
    if (signatureView.length !== length) signatureView = scratchSignature.subarray(0, length);
    signature = signatureView;
  } else signature = Buffer.from(token.slice(dot + 1), 'base64url');
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

// Scratch space for the alphabet check of a segment (decoded and thrown away).
const scratchSegment = Buffer.allocUnsafe(16384);
const BASE64URL_SEGMENT = /^[\w-]*$/;

// Exactly COMPACT_JWS (`^[\w-]*\.[\w-]*\.[\w-]*$`) without scanning the token in JavaScript:
// two dots, no `+` or `/`, and each segment decodes to as many bytes as its length implies.
function isCompactJws(token: string): boolean {
  const first = token.indexOf('.');
  const second = first === -1 ? -1 : token.indexOf('.', first + 1);
  if (second === -1 || token.indexOf('.', second + 1) !== -1) return false;
  if (token.includes('+') || token.includes('/')) return false;
  return base64urlOnly(token, 0, first) && base64urlOnly(token, first + 1, second) && base64urlOnly(token, second + 1, token.length);
}

// Node's base64url decoder also takes `+` and `/` (excluded above) and skips or stops at any
// other character, so one outside the alphabet leaves fewer bytes than the length implies,
// except in a segment of length 4k+1 (its last character decodes to nothing): those, and
// segments too long for the scratch space, go to the regular expression.
function base64urlOnly(token: string, start: number, end: number): boolean {
  const length = end - start;
  const expected = (length * 3) >> 2;
  if (length % 4 === 1 || expected > scratchSegment.length) return BASE64URL_SEGMENT.test(token.slice(start, end));
  return scratchSegment.write(token.slice(start, end), 'base64url') === expected;
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
  isCompactJws,
};
