/**
 * Random values, hashing and comparison for everything secret the server hands out or
 * checks: codes, tokens, session ids, CSRF tokens and client secrets.
 */
import { nodeCrypto } from './node-crypto';

/**
 * A fresh unguessable value: base64url of `bytes` CSPRNG bytes (256 bits by default).
 *
 * @example
 * const code = randomToken(); // 43 characters
 */
export function randomToken(bytes = 32): string {
  return takeRandom(bytes).toString('base64url');
}

// CSPRNG output fetched in blocks: one getRandomValues call per 128 tokens instead of one each.
// Every byte is handed out once; the block is refilled when the next request does not fit.
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

function takeRandom(bytes: number): Buffer {
  if (bytes > POOL_BYTES) return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes)));
  if (poolOffset + bytes > POOL_BYTES) {
    crypto.getRandomValues(pool);
    poolOffset = 0;
  }
  const out = pool.subarray(poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return out;
}

// One-shot hashing skips the Hash object (Node >= 20.12; the package needs >= 20.19).
const sha256Buffer = (text: string): Buffer => nodeCrypto().hash('sha256', text, 'buffer');
const sha256Base64url = (text: string): string => nodeCrypto().hash('sha256', text, 'base64url');

/**
 * The key under which a secret value is stored: its SHA-256, so a dump of the store
 * never contains usable codes or tokens.
 *
 * @example
 * await store.saveCode(storageKey(code), record, 60);
 */
export function storageKey(secret: string): string {
  return sha256Base64url(secret);
}

/**
 * Compares two strings in time independent of where they differ (client secrets, CSRF
 * tokens, PKCE challenges, passwords). Both sides are hashed first so their lengths leak nothing.
 *
 * @example
 * if (!safeEqual(presented, client.client_secret)) throw invalidClient('the client secret is wrong', usedBasic, tenant.id);
 */
export function safeEqual(a: string, b: string): boolean {
  return nodeCrypto().timingSafeEqual(sha256Buffer(a), sha256Buffer(b)) && a.length === b.length;
}

/**
 * The PKCE S256 transform (RFC 7636 4.2): base64url(SHA-256(ASCII(verifier))).
 *
 * @example
 * safeEqual(s256(codeVerifier), storedChallenge);
 */
export function s256(verifier: string): string {
  return nodeCrypto().createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/**
 * OIDC Core `at_hash` / `c_hash`: the left half of the SHA-256 of the ASCII value, base64url.
 * Both supported algorithms (RS256, ES256) use SHA-256.
 *
 * @example
 * claims.c_hash = leftHalfHash(code);
 */
export function leftHalfHash(value: string): string {
  const digest = nodeCrypto().createHash('sha256').update(value, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}
