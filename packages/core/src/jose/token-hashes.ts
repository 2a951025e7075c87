/**
 * `at_hash` and `c_hash` (OIDC Core 3.1.3.6 and 3.3.2.11): they bind an ID token to the
 * access token and code delivered next to it, so neither can be swapped for another.
 */

import { base64url, digest } from '../http/encoding';

/**
 * The hash of the ID token's signing algorithm: SHA-256/384/512 by the algorithm's size,
 * SHA-512 for EdDSA over Ed25519 (OIDC Core errata).
 */
function hashFor(alg: string): string {
  if (alg === 'EdDSA' || alg === 'Ed25519') return 'SHA-512';
  return `SHA-${alg.slice(-3)}`;
}

/**
 * `at_hash` / `c_hash` of `value` for an ID token signed with `alg`: base64url of the
 * left-most half of the hash of the value's ASCII bytes.
 */
export async function tokenHash(value: string, alg: string): Promise<string> {
  const hash = await digest(hashFor(alg), value);
  return base64url(hash.subarray(0, hash.length / 2));
}
