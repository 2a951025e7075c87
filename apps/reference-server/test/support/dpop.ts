// DPoP proofs (RFC 9449) made the way a client makes them, with jose directly: the server must
// not lean on any SDK code to be tested. Options bend one field at a time for the attack tests.
import { createHash, randomUUID } from 'node:crypto';
import { base64url, calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

export interface DpopKey {
  alg: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
  /** RFC 7638 thumbprint: what `cnf.jkt` and `dpop_jkt` carry. */
  jkt: string;
}

export async function dpopKey(alg = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  return { alg, privateKey, publicJwk, jkt: await calculateJwkThumbprint(publicJwk) };
}

export interface ProofOptions {
  htm?: string;
  htu: string;
  /** Epoch seconds; default: `now`. */
  iat?: number;
  now?: number;
  jti?: string;
  accessToken?: string;
  nonce?: string;
  typ?: string;
  /** Replaces the header's `jwk` (e.g. with the private key). */
  jwk?: JWK;
}

export function ath(accessToken: string): string {
  return createHash('sha256').update(accessToken).digest('base64url');
}

export async function makeProof(key: DpopKey, o: ProofOptions): Promise<string> {
  const now = o.now ?? Math.floor(Date.now() / 1000);
  return new SignJWT({
    htm: o.htm ?? 'POST',
    htu: o.htu,
    jti: o.jti ?? randomUUID(),
    ...(o.accessToken !== undefined ? { ath: ath(o.accessToken) } : {}),
    ...(o.nonce !== undefined ? { nonce: o.nonce } : {}),
  })
    .setProtectedHeader({ alg: key.alg, typ: o.typ ?? 'dpop+jwt', jwk: o.jwk ?? key.publicJwk })
    .setIssuedAt(o.iat ?? now)
    .sign(key.privateKey);
}

/** A proof whose header says `alg` but that no asymmetric key signed: `none`, or HMAC with `secret`. */
export async function unsignedOrHmacProof(key: DpopKey, alg: 'none' | 'HS256', htu: string, now: number): Promise<string> {
  const header = { alg, typ: 'dpop+jwt', jwk: key.publicJwk };
  const payload = { htm: 'POST', htu, iat: now, jti: randomUUID() };
  if (alg === 'HS256') {
    return new SignJWT(payload).setProtectedHeader(header).sign(new TextEncoder().encode('a-shared-secret-of-32-characters'));
  }
  const encode = (value: object) => base64url.encode(JSON.stringify(value));
  // A signature segment is present, so the refusal is the algorithm's, not the format's.
  return `${encode(header)}.${encode(payload)}.${base64url.encode('x')}`;
}
