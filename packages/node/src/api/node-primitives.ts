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

// A scratch buffer for decoded base64url and the segment it holds. Each segment of a token is
// decoded once per verification: `isCompactJws` (the first check) decodes the claims and the
// signature into the buffers `decodeJson` and `verifyJws` read, which decode again only when
// handed another segment (the note is updated with every write, so it always tells the truth).
// The signature's note also names the token it came from and where its signature starts, so
// `verifyJws`, handed that same token, finds both with one comparison (of two references when
// it is the same string, as on the verifier's path) instead of slicing and comparing again.
interface Decoded {
  buffer: Buffer;
  segment: string | undefined;
  length: number;
  token: string | undefined;
  dot: number;
}
const decoded = (size: number): Decoded => ({ buffer: Buffer.allocUnsafe(size), segment: undefined, length: 0, token: undefined, dot: -1 });
const scratchHeader = decoded(16384);
const scratchJson = decoded(16384);
const scratchSignature = decoded(1024);

// Buffer's own per-encoding methods, the ones `write` and `toString` call once they have looked
// the encoding up by name: called directly on the hot path. Where a Node lacks them, the
// documented calls they stand for.
interface EncodingMethods {
  base64urlWrite(text: string, offset: number, length: number): number;
  latin1Write(text: string, offset: number, length: number): number;
  utf8Slice(start: number, end: number): string;
}
const direct = (['base64urlWrite', 'latin1Write', 'utf8Slice'] as const).every((name) => typeof (Buffer.prototype as Partial<EncodingMethods>)[name] === 'function');
const writeBase64url: (buffer: Buffer, text: string) => number = direct
  ? (buffer, text) => (buffer as Buffer & EncodingMethods).base64urlWrite(text, 0, buffer.length)
  : (buffer, text) => buffer.write(text, 'base64url');
const writeLatin1: (buffer: Buffer, text: string, length: number) => number = direct
  ? (buffer, text, length) => (buffer as Buffer & EncodingMethods).latin1Write(text, 0, length)
  : (buffer, text, length) => buffer.write(text, 0, length, 'latin1');
const utf8Text: (buffer: Buffer, length: number) => string = direct
  ? (buffer, length) => (buffer as Buffer & EncodingMethods).utf8Slice(0, length)
  : (buffer, length) => buffer.toString('utf8', 0, length);

// Decodes `segment` (it must fit) into `scratch`; its byte count.
function decodeInto(scratch: Decoded, segment: string): number {
  scratch.length = writeBase64url(scratch.buffer, segment);
  scratch.segment = segment;
  scratch.token = undefined;
  return scratch.length;
}

// The byte count of `segment` decoded in `scratch`: decoded now unless `scratch` holds it.
function decodedLength(scratch: Decoded, segment: string): number {
  return segment === scratch.segment ? scratch.length : decodeInto(scratch, segment);
}

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
let signatureView = scratchSignature.buffer.subarray(0, 0);

function verifyJws(token: string, jwk: PublicJwk, alg: string): boolean {
  const params = Object.hasOwn(ALGORITHMS, alg) ? ALGORITHMS[alg] : undefined;
  if (!params) throw new TypeError('unsupported JWS algorithm');
  const { key, ecdsa } = keyObjectOf(jwk);
  // `isCompactJws` decoded this token's signature: where it starts and its bytes are known.
  const checked = token === scratchSignature.token;
  const dot = checked ? scratchSignature.dot : secondDot(token);
  let input: Buffer;
  if (dot <= scratchInput.length) {
    // The signing input is ASCII (base64url and a dot): latin1 is its byte-for-byte encoding.
    const length = writeLatin1(scratchInput, token, dot);
    if (inputView.length !== length) inputView = scratchInput.subarray(0, length);
    input = inputView;
  } else input = Buffer.from(token.slice(0, dot), 'latin1');
  const encoded = token.length - dot - 1;
  let signature: Buffer;
  if (checked || encoded <= (scratchSignature.buffer.length * 4) / 3) {
    const length = checked ? scratchSignature.length : decodeInto(scratchSignature, token.slice(dot + 1));
    if (signatureView.length !== length) signatureView = scratchSignature.buffer.subarray(0, length);
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

// The dot before the signature of a compact JWS, found forwards: indexOf is a fast builtin,
// lastIndexOf a slow runtime call. A token of more or fewer than three segments is refused.
function secondDot(token: string): number {
  const dot = token.indexOf('.', token.indexOf('.') + 1);
  if (dot === -1 || token.indexOf('.', dot + 1) !== -1) throw new TypeError('not a compact JWS');
  return dot;
}

function decodeJson(segment: string): Record<string, unknown> | undefined {
  // A length no base64 string can have.
  if (segment.length % 4 === 1) return undefined;
  const expected = (segment.length * 3) >> 2;
  const scratch = expected <= scratchJson.buffer.length;
  const bytes = scratch ? scratchJson.buffer : Buffer.from(segment, 'base64url');
  const length = scratch ? decodedLength(scratchJson, segment) : bytes.length;
  // Buffer skips characters outside the alphabet: then fewer bytes come out than the length implies.
  if (length !== expected) return undefined;
  let text = scratch ? utf8Text(bytes, length) : bytes.toString('utf8');
  try {
    // Buffer replaces bad UTF-8 with U+FFFD; the strict decoder then decides, as WebCrypto's path does.
    if (text.includes('\uFFFD')) text = fatalUtf8.decode(bytes.subarray(0, length));
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const BASE64URL_SEGMENT = /^[\w-]*$/;

// Exactly COMPACT_JWS (`^[\w-]*\.[\w-]*\.[\w-]*$`) without scanning the token in JavaScript:
// two dots, no `+` or `/`, and each segment decodes to as many bytes as its length implies.
function isCompactJws(token: string): boolean {
  const first = token.indexOf('.');
  const second = first === -1 ? -1 : token.indexOf('.', first + 1);
  if (second === -1 || token.indexOf('.', second + 1) !== -1) return false;
  if (token.includes('+') || token.includes('/')) return false;
  if (!base64urlOnly(scratchHeader, token.slice(0, first), decodedLength) || !base64urlOnly(scratchJson, token.slice(first + 1, second))) return false;
  const signature = token.slice(second + 1);
  if (!base64urlOnly(scratchSignature, signature)) return false;
  // Decoded into the scratch (not too long for it, not of length 4k+1): noted for `verifyJws`.
  if (scratchSignature.segment === signature) {
    scratchSignature.token = token;
    scratchSignature.dot = second;
  }
  return true;
}

// Node's base64url decoder also takes `+` and `/` (excluded above) and skips or stops at any
// other character, so one outside the alphabet leaves fewer bytes than the length implies,
// except in a segment of length 4k+1 (its last character decodes to nothing): those, and
// segments too long for the scratch buffer, go to the regular expression. `decode` is
// `decodeInto`, or `decodedLength` for the header: an issuer's tokens share it (one per key), so
// the one last checked is decoded again only when another one comes.
function base64urlOnly(scratch: Decoded, segment: string, decode: (scratch: Decoded, segment: string) => number = decodeInto): boolean {
  const expected = (segment.length * 3) >> 2;
  if (segment.length % 4 === 1 || expected > scratch.buffer.length) return BASE64URL_SEGMENT.test(segment);
  return decode(scratch, segment) === expected;
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
