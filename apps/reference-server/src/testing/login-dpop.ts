/**
 * DPoP (RFC 9449) for `loginAs` and for the tests that call an API with its tokens: the key pair
 * a login binds its tokens to, and proofs signed with it. Made with jose and WebCrypto, never
 * with the SDK: the server must be testable without it.
 */
import { calculateJwkThumbprint, exportJWK, SignJWT } from 'jose';
import { randomToken, s256 } from '../crypto/secrets';

/** The DPoP side of a login: the key its tokens are bound to, and the server nonce last handed out. */
export interface LoginAsDpop {
  /** The key pair the proofs were signed with: sign the proofs of your API calls with its private key. */
  keyPair: CryptoKeyPair;
  /** RFC 7638 thumbprint of the public key: the access token's `cnf.jkt`, the `dpop_jkt` sent. */
  jkt: string;
  /** The last `DPoP-Nonce` the server sent during the login (tenants with `dpop_nonce`), if any. */
  nonce?: string;
}

/** What a proof is for; see {@link dpopProof}. */
export interface DpopProofOptions {
  /** The request's method, e.g. `GET`. */
  method: string;
  /** The request's URL (query and fragment are dropped, as RFC 9449 says). */
  url: string | URL;
  /** The access token sent with the request: its hash goes in `ath`. */
  accessToken?: string;
  /** The server nonce (`DPoP-Nonce` header) to carry. */
  nonce?: string;
  /** `iat` in epoch seconds. Default: now (pass the server's time if a test moved its clock). */
  now?: number;
}

/** The JWS algorithm of a key pair the server accepts for proofs. */
function algorithmOf(key: CryptoKey): string {
  const algorithm = key.algorithm as { name: string; namedCurve?: string; hash?: { name: string } };
  const bits = (algorithm.hash?.name ?? 'SHA-256').slice(4);
  if (algorithm.name === 'ECDSA') return { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' }[algorithm.namedCurve ?? ''] ?? 'ES256';
  if (algorithm.name === 'RSA-PSS') return `PS${bits}`;
  if (algorithm.name === 'RSASSA-PKCS1-v1_5') return `RS${bits}`;
  if (algorithm.name === 'Ed25519') return 'EdDSA';
  throw new Error(`loginAs: a DPoP key must be ECDSA, RSA-PSS, RSASSA-PKCS1-v1_5 or Ed25519, not ${algorithm.name}`);
}

/**
 * A fresh ES256 key pair (private key not extractable), or the caller's.
 *
 * @example
 * const dpop = await loginDpopKey(options.dpop);
 */
export async function loginDpopKey(given: CryptoKeyPair | true): Promise<{ keyPair: CryptoKeyPair; jkt: string }> {
  const keyPair = given === true ? await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']) : given;
  if (keyPair.privateKey?.type !== 'private' || keyPair.publicKey?.type !== 'public') {
    throw new Error('loginAs: dpop must be true or a CryptoKeyPair (privateKey and publicKey)');
  }
  algorithmOf(keyPair.privateKey);
  return { keyPair, jkt: await calculateJwkThumbprint(await exportJWK(keyPair.publicKey), 'sha256') };
}

/**
 * A DPoP proof (RFC 9449 4) for one request, signed with `keyPair`; make a new one per request.
 *
 * @example
 * const { tokens, dpop } = await op.loginAs('alice', { dpop: true });
 * const url = `${op.issuer}/oidc/userinfo`;
 * const proof = await dpopProof(dpop!.keyPair, { method: 'GET', url, accessToken: tokens.access_token, nonce: dpop!.nonce });
 * await fetch(url, { headers: { authorization: `DPoP ${tokens.access_token}`, dpop: proof } });
 */
export async function dpopProof(keyPair: CryptoKeyPair, options: DpopProofOptions): Promise<string> {
  const url = new URL(options.url);
  const { kty, crv, x, y, n, e } = await exportJWK(keyPair.publicKey);
  const jwk = Object.fromEntries(Object.entries({ kty, crv, x, y, n, e }).filter(([, v]) => v !== undefined));
  return new SignJWT({
    htm: options.method.toUpperCase(),
    htu: `${url.origin}${url.pathname}`,
    jti: randomToken(16),
    ...(options.accessToken !== undefined ? { ath: s256(options.accessToken) } : {}),
    ...(options.nonce !== undefined ? { nonce: options.nonce } : {}),
  })
    .setProtectedHeader({ alg: algorithmOf(keyPair.privateKey), typ: 'dpop+jwt', jwk })
    .setIssuedAt(options.now ?? Math.floor(Date.now() / 1000))
    .sign(keyPair.privateKey);
}
