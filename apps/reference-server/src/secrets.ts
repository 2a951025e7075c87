/**
 * Random values, hashing and comparison for everything secret the server hands out or
 * checks: codes, tokens, session ids, CSRF tokens and client secrets.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * A fresh unguessable value: base64url of `bytes` CSPRNG bytes (256 bits by default).
 *
 * @example
 * const code = randomToken(); // 43 characters
 */
export function randomToken(bytes = 32): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('base64url');
}

/**
 * The key under which a secret value is stored: its SHA-256, so a dump of the store
 * never contains usable codes or tokens.
 *
 * @example
 * await store.saveCode(storageKey(code), record, 60);
 */
export function storageKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}

/**
 * Compares two strings in time independent of where they differ (client secrets, CSRF
 * tokens, PKCE challenges, passwords). Both sides are hashed first so their lengths leak nothing.
 *
 * @example
 * if (!safeEqual(presented, client.client_secret)) throw invalidClient();
 */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

/**
 * The PKCE S256 transform (RFC 7636 4.2): base64url(SHA-256(ASCII(verifier))).
 *
 * @example
 * safeEqual(s256(codeVerifier), storedChallenge);
 */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/**
 * OIDC Core `at_hash` / `c_hash`: the left half of the SHA-256 of the ASCII value, base64url.
 * Both supported algorithms (RS256, ES256) use SHA-256.
 *
 * @example
 * claims.c_hash = leftHalfHash(code);
 */
export function leftHalfHash(value: string): string {
  const digest = createHash('sha256').update(value, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}
