/**
 * Sealing: a JSON payload encrypted and authenticated into a compact JWE (`dir` + A256GCM)
 * with a key derived from a configured secret by HKDF (`key-derivation.ts`). The `purpose`
 * separates the keys of different uses of one secret (login transactions, sessions, session
 * store entries), so a value sealed for one use can never be opened as another. Shared by
 * every sealed cookie.
 */

import { EncryptJWT, type JWTPayload, jwtDecrypt } from 'jose';
import { type KeyPurpose, deriveKey } from './key-derivation';

/** The outcome of opening a sealed value. Internal. */
export type Opened = { ok: true; payload: JWTPayload } | { ok: false; reason: 'expired' | 'invalid'; cause?: unknown };

const COMPACT_JWE = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]*){4}$/;
/** Seals `payload` with the first secret; it opens until `expiresAt` (epoch seconds). */
export async function seal(payload: JWTPayload, secrets: string[], purpose: KeyPurpose, expiresAt: number, now = nowSeconds()): Promise<string> {
  return new EncryptJWT(payload)
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
    .setIssuedAt(now)
    .setExpirationTime(Math.floor(expiresAt))
    .encrypt(await deriveKey(secrets[0] as string, purpose));
}

/** Opens a value made by {@link seal} with any of the secrets (rotation). Never throws. */
export async function open(sealed: string, secrets: string[], purpose: KeyPurpose, maxLength = 8192): Promise<Opened> {
  if (typeof sealed !== 'string' || sealed.length > maxLength || !COMPACT_JWE.test(sealed)) return { ok: false, reason: 'invalid' };
  for (const secret of secrets) {
    try {
      const { payload } = await jwtDecrypt(sealed, await deriveKey(secret, purpose), {
        keyManagementAlgorithms: ['dir'],
        contentEncryptionAlgorithms: ['A256GCM'],
        requiredClaims: ['exp', 'iat'],
        currentDate: new Date(),
      });
      return { ok: true, payload };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      // Wrong key or changed bytes: the next secret (rotation) may still open it.
      if (code === 'ERR_JWE_DECRYPTION_FAILED') continue;
      if (code === 'ERR_JWT_EXPIRED') return { ok: false, reason: 'expired' };
      return { ok: false, reason: 'invalid', cause: error };
    }
  }
  return { ok: false, reason: 'invalid' };
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
