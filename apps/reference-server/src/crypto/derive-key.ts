/**
 * The keys the server derives from its configured key encryption secret: HKDF-SHA256 with a
 * fixed, non-zero salt naming this server and an `info` naming the purpose, so each purpose
 * (the signing-key document, the grant records, DPoP server nonces) has a key of its own and no key of one opens
 * the other.
 */
import { nodeCrypto } from './node-crypto';

/** The HKDF salt: fixed and public; it separates these keys from any other use of the same secret. */
export const HKDF_SALT = 'oidc-rp reference-server';

/**
 * A 256-bit key for `purpose`.
 *
 * @example
 * const key = deriveKey(secret, 'grant records');
 */
export function deriveKey(secret: string, purpose: 'signing-key document' | 'grant records' | 'dpop nonces'): Buffer {
  return Buffer.from(nodeCrypto().hkdfSync('sha256', secret, HKDF_SALT, purpose, 32));
}
