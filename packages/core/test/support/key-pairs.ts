/**
 * Key pairs for the tests of what signs with a client's key (client assertions, DPoP proofs):
 * keys of a chosen shape, made with WebCrypto or jose the same way in every test.
 */
import { type JWK, exportJWK, generateKeyPair } from 'jose';

/** An ECDSA key pair on `namedCurve`; non-extractable unless asked. */
export async function ecdsaKeyPair(namedCurve: 'P-256' | 'P-384' | 'P-521', extractable = false): Promise<CryptoKeyPair> {
  return (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve }, extractable, ['sign', 'verify'])) as CryptoKeyPair;
}

/** An RSA key pair of 1024 bits: too short for any signer here, which must refuse it. */
export async function rsa1024KeyPair(extractable = false): Promise<CryptoKeyPair> {
  return (await crypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    extractable,
    ['sign', 'verify'],
  )) as CryptoKeyPair;
}

/** A key pair for `alg` with its private key as a JWK (as a client keeps it in its configuration). */
export async function privateJwk(alg: 'ES256' | 'RS256' | 'PS256' | 'EdDSA'): Promise<{ publicKey: CryptoKey; jwk: JWK & JsonWebKey }> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  return { publicKey, jwk: (await exportJWK(privateKey)) as JWK & JsonWebKey };
}
