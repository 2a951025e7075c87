/**
 * JWS signature verification (RFC 7515, RFC 7518 section 3) for the asymmetric algorithms an
 * ID token may use, on WebCrypto alone: it imports a JWK directly (`importKey('jwk')`), so no
 * JOSE key-import tables (which serve encryption keys too) reach a browser bundle. The key's
 * type and curve were matched to the algorithm when it was selected (jwks.ts); WebCrypto
 * refuses key material that does not fit. Each JWK is imported once per algorithm and
 * concurrent callers share that import, and the token is decoded once (by the caller).
 * Internal: the ID-token validator decides which key and algorithm.
 */

import type { JWK } from 'jose';
import { fromBase64url, utf8 } from '../http/encoding';

type Params = RsaHashedImportParams & RsaPssParams & EcKeyImportParams & EcdsaParams;

/**
 * WebCrypto import and verify parameters for a JWS `alg` and the key's curve; undefined for
 * anything but RS*, PS*, ES*, EdDSA, Ed25519. Also DPoP's key generation and signing
 * parameters (dpop.ts), so the two share one table.
 */
export function paramsFor(alg: string, crv: string | undefined): Partial<Params> | undefined {
  if (alg === 'EdDSA' || alg === 'Ed25519') return { name: 'Ed25519' };
  const bits = Number(alg.slice(2));
  if (bits !== 256 && bits !== 384 && bits !== 512) return undefined;
  const hash = `SHA-${bits}`;
  const family = alg.slice(0, 2);
  if (family === 'RS') return { name: 'RSASSA-PKCS1-v1_5', hash };
  if (family === 'PS') return { name: 'RSA-PSS', hash, saltLength: bits / 8 };
  return family === 'ES' ? { name: 'ECDSA', hash, namedCurve: crv as string } : undefined;
}

// Keyed by the JWK objects of the cached key set: a refetched set brings new objects.
const imported = new WeakMap<JWK, Record<string, Promise<CryptoKey>>>();

// `alg` is one paramsFor knows, so it is safe as a property name.
function importKey(jwk: JWK, alg: string, params: Partial<Params>): Promise<CryptoKey> {
  const byAlg = imported.get(jwk) ?? {};
  imported.set(jwk, byAlg);
  // Key material only: `alg`, `use` and `key_ops` were checked when the key was selected.
  const { kty, crv, n, e, x, y } = jwk;
  byAlg[alg] ??= crypto.subtle
    .importKey('jwk', { kty, crv, n, e, x, y } as JsonWebKey, params as Params, false, ['verify'])
    .then((cryptoKey) => {
      const { modulusLength } = cryptoKey.algorithm as Partial<RsaHashedKeyAlgorithm>;
      if (modulusLength !== undefined && modulusLength < 2048) throw new TypeError(`${alg} needs an RSA key of 2048 bits or more`);
      return cryptoKey;
    });
  return byAlg[alg];
}

/**
 * Whether the signature of the compact JWS `token` (three base64url segments, already checked)
 * verifies with `jwk` under `alg`. Rejects when the key cannot be used for `alg`.
 */
export async function verifyCompactJws(token: string, jwk: JWK, alg: string): Promise<boolean> {
  const params = paramsFor(alg, jwk.crv);
  if (!params) throw new TypeError(`unsupported JWS algorithm ${alg}`);
  const key = await importKey(jwk, alg, params);
  const dot = token.lastIndexOf('.');
  return crypto.subtle.verify(params as Params, key, fromBase64url(token.slice(dot + 1)), utf8(token.slice(0, dot)));
}
