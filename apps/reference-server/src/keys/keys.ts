/**
 * Signing keys of one tenant. Each key has a `kid` (its RFC 7638 thumbprint); rotation keeps
 * the previous keys published until every token they signed has expired.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, type CryptoKey } from 'jose';
import type { SigningAlg } from '../config/model';

/** One signing key: the private half signs, the public JWK is published. */
export interface SigningKey {
  kid: string;
  alg: SigningAlg;
  /**
   * The private half. A function: a fixed development key is imported on its first signature,
   * since publishing the JWKS needs only `publicJwk` (and WebCrypto need not load for it).
   */
  privateKey(): Promise<CryptoKey>;
  publicJwk: JWK;
}

/**
 * `privateKey` of a {@link SigningKey} whose private half is already imported.
 *
 * @example
 * const key: SigningKey = { kid, alg, privateKey: heldKey(cryptoKey), publicJwk };
 */
export function heldKey(key: CryptoKey): () => Promise<CryptoKey> {
  const held = Promise.resolve(key);
  return () => held;
}

/** A replaced key, still published until every token it signed has expired. */
export interface RetiredKey {
  key: SigningKey;
  /** Epoch ms after which no token signed by this key is still valid. */
  unpublishAt: number;
}

/**
 * Creates a key pair for `alg` with its public JWK and `kid`.
 *
 * @example
 * const key = await createSigningKey('ES256');
 */
export async function createSigningKey(alg: SigningAlg): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { kid, alg, privateKey: heldKey(privateKey), publicJwk: { ...jwk, kid, alg, use: 'sig' } };
}

/**
 * The current key plus retired keys that may still verify live tokens.
 *
 * @example
 * const keys = await KeySet.create('RS256', Date.now);
 * const { keys: published } = keys.jwks();
 */
export class KeySet {
  private retired: RetiredKey[] = [];

  private constructor(
    private currentKey: SigningKey,
    private readonly now: () => number,
  ) {}

  /**
   * A key set with one fresh key.
   *
   * @example
   * const keys = await KeySet.create('RS256', () => Date.now());
   */
  static async create(alg: SigningAlg, now: () => number): Promise<KeySet> {
    return new KeySet(await createSigningKey(alg), now);
  }

  /**
   * A key set from keys loaded elsewhere (the shared store): `retired` keys stay published
   * until their `unpublishAt`.
   *
   * @example
   * const keys = KeySet.fromKeys(current, [{ key: previous, unpublishAt }], Date.now);
   */
  static fromKeys(current: SigningKey, retired: readonly RetiredKey[], now: () => number): KeySet {
    const keys = new KeySet(current, now);
    keys.retired = [...retired];
    return keys;
  }

  /** The key new tokens are signed with. */
  get current(): SigningKey {
    return this.currentKey;
  }

  /**
   * Replaces the signing key. The old one stays published for `keepSeconds` (the longest
   * lifetime of a token it signed).
   *
   * @example
   * await keys.rotate(3600);
   */
  async rotate(keepSeconds: number): Promise<SigningKey> {
    const next = await createSigningKey(this.currentKey.alg);
    this.retired.push({ key: this.currentKey, unpublishAt: this.now() + keepSeconds * 1000 });
    this.currentKey = next;
    return next;
  }

  /**
   * Keys that verify tokens right now: the current one and retired ones not yet expired.
   *
   * @example
   * const key = keys.verificationKeys().find((k) => k.kid === header.kid);
   */
  verificationKeys(): SigningKey[] {
    const now = this.now();
    this.retired = this.retired.filter((r) => r.unpublishAt > now);
    return [this.currentKey, ...this.retired.map((r) => r.key)];
  }

  /**
   * The JWKS document (RFC 7517) for the jwks_uri.
   *
   * @example
   * return Response.json(keys.jwks());
   */
  jwks(): { keys: JWK[] } {
    return { keys: this.verificationKeys().map((k) => k.publicJwk) };
  }
}
