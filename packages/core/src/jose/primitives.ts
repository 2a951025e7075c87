/**
 * The three primitives a token verifier needs from its platform: verify a compact JWS with a
 * JWK, hash a token, decode a base64url JSON segment. Core runs on WebCrypto; a platform with
 * faster ones (`@oidc-rp/node/api` on `node:crypto`) passes its own, and every check above them
 * stays the same code, so both paths give the same answer for every input.
 */

import type { JWK } from 'jose';
import { base64url, digest } from '../http/encoding';
import { verifyCompactJws } from './jws';
import { decodeJsonSegment } from './jwt';

/**
 * A key of an issuer's key set (RFC 7517) as verifiers read it. (Declared here rather than
 * taken from jose, whose ESM-only types a CommonJS project could not load.)
 */
export interface PublicJwk {
  kty?: string;
  crv?: string;
  n?: string;
  e?: string;
  x?: string;
  y?: string;
  kid?: string;
  alg?: string;
  use?: string;
  key_ops?: string[];
  [member: string]: unknown;
}

/**
 * What a verifier asks of the platform. Implementations must be exact: `verify` true only for
 * a valid signature, `decodeJson` undefined for anything but base64url of a UTF-8 JSON object.
 *
 * @example
 * ```ts
 * const verifier = jwtAccessTokenVerifier({ issuer, jwksUri, audience, primitives: webCryptoPrimitives });
 * ```
 */
export interface JosePrimitives {
  /**
   * Whether the signature of the compact JWS `token` (three base64url segments, already
   * checked) verifies with `jwk` under `alg`. May throw or reject when the key does not fit.
   * `jwk`'s type and curve were already matched to `alg`.
   */
  verify(token: string, jwk: PublicJwk, alg: string): boolean | Promise<boolean>;
  /** The base64url SHA-256 of `text`'s UTF-8 bytes (`ath`, JWK thumbprints). */
  sha256(text: string): string | Promise<string>;
  /** A segment of base64url characters (callers check the alphabet) as a JSON object, or undefined (bad length, bad UTF-8, not JSON, not an object). */
  decodeJson(segment: string): Record<string, unknown> | undefined;
  /**
   * Optional: exactly `/^[\w-]*\.[\w-]*\.[\w-]*$/.test(token)` (three segments of base64url
   * characters), for a platform that answers it faster than the regular expression does.
   */
  isCompactJws?(token: string): boolean;
}

/**
 * The WebCrypto primitives: what every runtime has (Node, browsers, Workers, Deno, Bun).
 *
 * @example
 * ```ts
 * const hash = await webCryptoPrimitives.sha256('token');
 * ```
 */
export const webCryptoPrimitives: JosePrimitives = {
  verify: (token, jwk, alg) => verifyCompactJws(token, jwk as JWK, alg),
  sha256: async (text) => base64url(await digest('SHA-256', text)),
  decodeJson: decodeJsonSegment,
};
