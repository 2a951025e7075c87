/**
 * Sealing: a JSON payload encrypted and authenticated into a compact JWE (`dir` + A256GCM)
 * with a key derived from a configured secret by HKDF. The `purpose` separates the keys of
 * different uses of one secret (login transactions, sessions, session store entries), so a
 * value sealed for one use can never be opened as another. Shared by every sealed cookie.
 */

import { EncryptJWT, type JWTPayload, jwtDecrypt } from 'jose';
import { OidcError } from '@oidc-rp/core';
import { deriveAesKey } from './key-derivation';
import { MIN_COOKIE_SECRET_LENGTH } from './options';

/** The outcome of opening a sealed value. Internal. */
export type Opened = { ok: true; payload: JWTPayload } | { ok: false; reason: 'expired' | 'invalid'; cause?: unknown };

const COMPACT_JWE = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]*){4}$/;
const keys = new Map<string, Promise<Uint8Array>>();

/** The derived key for a secret and purpose, derived once per process. */
function keyFor(secret: string, purpose: string): Promise<Uint8Array> {
  const id = `${purpose}\u0000${secret}`;
  let key = keys.get(id);
  if (!key) {
    key = deriveAesKey(secret, new TextEncoder().encode(purpose));
    // A handful of secrets and purposes per process: the map stays tiny.
    keys.set(id, key);
  }
  return key;
}

/** Seals `payload` with the first secret; it opens until `expiresAt` (epoch seconds). */
export async function seal(payload: JWTPayload, secrets: string[], purpose: string, expiresAt: number, now = nowSeconds()): Promise<string> {
  return new EncryptJWT(payload)
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
    .setIssuedAt(now)
    .setExpirationTime(Math.floor(expiresAt))
    .encrypt(await keyFor(secrets[0] as string, purpose));
}

/** Opens a value made by {@link seal} with any of the secrets (rotation). Never throws. */
export async function open(sealed: string, secrets: string[], purpose: string, maxLength = 8192): Promise<Opened> {
  if (typeof sealed !== 'string' || sealed.length > maxLength || !COMPACT_JWE.test(sealed)) return { ok: false, reason: 'invalid' };
  for (const secret of secrets) {
    try {
      const { payload } = await jwtDecrypt(sealed, await keyFor(secret, purpose), {
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

/** The secrets of an option value, each checked for length; `what` names the option in the error. */
export function secretsOf(secret: string | string[] | undefined, what = 'The cookie secret'): string[] {
  const secrets = Array.isArray(secret) ? secret : secret === undefined ? [] : [secret];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s.length < MIN_COOKIE_SECRET_LENGTH)) {
    throw new OidcError(
      'invalid_options',
      `${what} must be at least ${MIN_COOKIE_SECRET_LENGTH} characters of random data (e.g. \`openssl rand -base64 32\`), ` +
        'the same on every instance.',
    );
  }
  return secrets;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
