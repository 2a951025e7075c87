/**
 * PKCE (RFC 7636, S256 only) and the other one-time random values of a login: `state`
 * (CSRF protection) and `nonce` (binds the ID token to this login). All of them come from
 * the platform CSPRNG (`crypto.getRandomValues`), 32 bytes = 256 bits, base64url.
 */

import { DEV } from '../dev';
import { invalidOptions } from '../options';
import { base64url, digest, randomBase64url } from '../http/encoding';

/** 32 random bytes (256 bits), base64url: 43 characters. The three values below are all this. */
function randomValue(): string {
  return randomBase64url(32);
}

// RFC 7636 4.1: 43-128 characters of the unreserved set.
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * A fresh PKCE code verifier: 43 characters, base64url of 32 random bytes.
 * Keep it with the login transaction; send it only to the token endpoint.
 *
 * @example
 * ```ts
 * const verifier = createCodeVerifier();
 * const challenge = await codeChallengeS256(verifier);
 * ```
 */
export const createCodeVerifier: () => string = randomValue;

/**
 * The S256 code challenge of a verifier: base64url(SHA-256(ASCII(verifier))).
 * Rejects with `invalid_options` for a verifier outside 43-128 unreserved characters.
 *
 * @example
 * ```ts
 * // RFC 7636 Appendix B
 * await codeChallengeS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk');
 * // → 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
 * ```
 */
export async function codeChallengeS256(verifier: string): Promise<string> {
  if (typeof verifier !== 'string' || !VERIFIER.test(verifier)) {
    throw invalidOptions(DEV && 'A code verifier must be 43-128 of A-Za-z0-9-._~: use createCodeVerifier().');
  }
  return base64url(await digest('SHA-256', verifier));
}

/**
 * A fresh `state` value for an authorization request (256 bits, base64url).
 *
 * @example
 * ```ts
 * const state = createState(); // e.g. 'q3W0...' (43 characters)
 * ```
 */
export const createState: () => string = randomValue;

/**
 * A fresh `nonce` for an authorization request that asks for an ID token (256 bits, base64url).
 *
 * @example
 * ```ts
 * const nonce = createNonce();
 * ```
 */
export const createNonce: () => string = randomValue;
