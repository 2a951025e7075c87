/**
 * A tenant's signing keys kept in Redis, so every instance of a fleet signs with and publishes
 * the same keys. The first instance generates the key and writes it with SET NX; the others
 * read it. A rotation is a compare-and-set of the whole document; every instance re-reads the
 * document at most once per {@link REFRESH_MS}, so a rotation reaches the fleet within that
 * time. If Redis loses the document (a restart without persistence), every instance writes
 * back the keys it holds (SET NX) as soon as it reconnects, so the fleet keeps the same keys.
 *
 * The document holds private keys. With a key encryption secret it is sealed (key-sealing.ts):
 * unreadable and unforgeable for whoever reads or writes Redis; without one (development
 * tenants only) it is plaintext JSON and Redis must be as private as the server itself.
 *
 * Each document carries a version, one more at every rotation and sealed with the keys. An
 * instance never adopts a document older than the one it holds: a writer to Redis who puts
 * back a sealed document from before a rotation (to revive a key the operator rotated away)
 * is refused, logged, and the newer document is written back. An instance that starts while
 * the older document is in place has nothing to compare with and adopts it, until an instance
 * holding the newer one writes it back (within REFRESH_MS while any runs).
 */
import { calculateJwkThumbprint, exportJWK, importJWK, type CryptoKey, type JWK } from 'jose';
import type { Logger } from '../config/logger';
import type { SigningAlg } from '../config/model';
import type { RedisConnection } from '../store/redis';
import { StoreUnavailableError } from '../store/store';
import { type KeySealer, UnsealError } from './key-sealing';
import { createSigningKey, heldKey, KeySet, type RetiredKey, type SigningKey } from './keys';

/** How often an instance re-reads the key document (real time, not the server's clock). */
export const REFRESH_MS = 1_000;
const ROTATE_ATTEMPTS = 5;

/**
 * `keys[0]` signs; the others are retired and leave the JWKS at `unpublish_at` (epoch ms).
 * `version` grows by one at each rotation (absent in documents written before it: 0).
 */
interface KeyDocument {
  v: 1;
  version?: number;
  keys: { jwk: JWK; unpublish_at?: number }[];
}

const PUBLIC_MEMBERS: Record<string, readonly string[]> = { RSA: ['kty', 'n', 'e'], EC: ['kty', 'crv', 'x', 'y'] };

async function privateJwk(key: SigningKey): Promise<JWK> {
  return { ...(await exportJWK(await key.privateKey())), kid: key.kid, alg: key.alg };
}

async function importSigningKey(jwk: JWK, alg: SigningAlg): Promise<SigningKey> {
  const members = PUBLIC_MEMBERS[jwk.kty ?? ''];
  if (!members || jwk.alg !== alg || typeof jwk.d !== 'string') throw new Error('not a private key of the algorithm');
  const publicPart = Object.fromEntries(members.map((m) => [m, (jwk as Record<string, unknown>)[m]])) as JWK;
  const kid = await calculateJwkThumbprint(publicPart);
  const privateKey = (await importJWK(jwk, alg)) as CryptoKey;
  return { kid, alg, privateKey: heldKey(privateKey), publicJwk: { ...publicPart, kid, alg, use: 'sig' } };
}

/** The document, or a fixed reason why not (never the text: it holds private keys). */
function parseDocument(text: string): KeyDocument | string {
  let doc: Partial<KeyDocument>;
  try {
    doc = JSON.parse(text) as Partial<KeyDocument>;
  } catch {
    return 'it is not JSON';
  }
  if (doc?.v !== 1 || !Array.isArray(doc.keys) || doc.keys.length === 0) return 'it is not a key document';
  if (doc.version !== undefined && (!Number.isSafeInteger(doc.version) || doc.version < 0)) return 'its version is not a whole number';
  return doc as KeyDocument;
}

/**
 * The signing keys of one tenant, shared through Redis.
 *
 * @example
 * const shared = new SharedKeys(redis, 'acme', 'RS256', Date.now, logger);
 * const keys = await shared.get(); // a KeySet, as with the memory store
 */
export class SharedKeys {
  private cached: { text: string; keys: KeySet; version: number; checkedAt: number } | undefined;
  private refreshing: Promise<KeySet> | undefined;
  private readonly key: string;

  constructor(
    private readonly redis: RedisConnection,
    private readonly tenantId: string,
    private readonly alg: SigningAlg,
    private readonly now: () => number,
    private readonly logger: Logger,
    /** Seals the document; absent only when every tenant is a development tenant. */
    private readonly sealer?: KeySealer,
  ) {
    // Per algorithm: changing signing_alg starts a new document instead of fighting over one.
    this.key = `${redis.prefix}${tenantId}:signing-keys:${alg}`;
    // Redis may have restarted empty: offer our keys back at once, before a new instance
    // starting now could write keys of its own.
    redis.onReconnect(() => {
      if (this.cached) this.cached.checkedAt = -Infinity;
      this.get().catch(() => undefined);
    });
  }

  /**
   * The current key set. Once loaded it is answered at once, and re-read from Redis in the
   * background when older than {@link REFRESH_MS}; while Redis is unreachable the last copy is
   * kept. Before the first load succeeds it throws `StoreUnavailableError`.
   *
   * @example
   * const keys = await shared.get();
   */
  async get(): Promise<KeySet> {
    const cached = this.cached;
    if (cached && performance.now() - cached.checkedAt < REFRESH_MS) return cached.keys;
    this.refreshing ??= this.refresh().finally(() => {
      this.refreshing = undefined;
    });
    if (!cached) return this.refreshing;
    this.refreshing.catch(() => undefined);
    return cached.keys;
  }

  /**
   * Makes a new key current for the whole fleet; the old one stays published for `keepSeconds`.
   *
   * @example
   * const { kid } = await shared.rotate(3600);
   */
  async rotate(keepSeconds: number): Promise<SigningKey> {
    const next = await createSigningKey(this.alg);
    const nextJwk = await privateJwk(next);
    for (let attempt = 0; attempt < ROTATE_ATTEMPTS; attempt++) {
      const before = await this.redis.get(this.key);
      const now = this.now();
      let doc = before === null ? undefined : await this.documentOf(before);
      // Redis may have lost the document, or hold an older one put back: build on what this instance holds.
      if (this.cached && (doc === undefined || (doc.version ?? 0) < this.cached.version)) doc = await this.documentOf(this.cached.text);
      const [current, ...retired] = doc?.keys ?? [];
      const keys = [
        { jwk: nextJwk },
        ...(current ? [{ jwk: current.jwk, unpublish_at: now + keepSeconds * 1000 }] : []),
        ...retired.filter((k) => (k.unpublish_at ?? 0) > now),
      ];
      const text = await this.stored({ v: 1, version: (doc?.version ?? 0) + 1, keys });
      if (await this.redis.compareAndSet(this.key, before, text)) {
        await this.adopt(text);
        return next;
      }
    }
    throw new StoreUnavailableError(`the signing keys of tenant ${this.tenantId} changed concurrently ${ROTATE_ATTEMPTS} times; rotate again`);
  }

  private async refresh(): Promise<KeySet> {
    try {
      let text = await this.redis.get(this.key);
      if (text === null) {
        // The first instance, or Redis lost its data: offer what this instance has.
        const mine = this.cached?.text ?? (await this.stored({ v: 1, version: 1, keys: [{ jwk: await privateJwk(await createSigningKey(this.alg)) }] }));
        await this.redis.setIfAbsent(this.key, mine);
        text = (await this.redis.get(this.key)) ?? mine;
      }
      return await this.adopt(text);
    } catch (error) {
      if (!this.cached) throw error;
      // Keep signing with the keys we have; try again after the next interval.
      this.cached.checkedAt = performance.now();
      return this.cached.keys;
    }
  }

  private unreadable(reason: string): StoreUnavailableError {
    const message = `the signing keys of tenant ${this.tenantId} in Redis (${this.key}) are refused: ${reason}; delete that key to have new ones generated`;
    this.logger.error(message);
    return new StoreUnavailableError(message);
  }

  /** Where the document lives, bound into its seal. */
  private get place(): string {
    return `${this.tenantId}:${this.alg}`;
  }

  /** The text to store for `doc`: sealed when there is a secret. */
  private async stored(doc: KeyDocument): Promise<string> {
    const text = JSON.stringify(doc);
    return this.sealer ? this.sealer.seal(text, this.place) : text;
  }

  private async documentOf(stored: string): Promise<KeyDocument> {
    let text = stored;
    if (this.sealer) {
      try {
        text = await this.sealer.open(stored, this.place);
      } catch (error) {
        if (error instanceof UnsealError) throw this.unreadable(error.message);
        throw error;
      }
    } else if (!stored.trimStart().startsWith('{')) {
      throw this.unreadable('it is encrypted; configure the key encryption secret it was written with');
    }
    const doc = parseDocument(text);
    if (typeof doc === 'string') throw this.unreadable(doc);
    return doc;
  }

  private async adopt(text: string): Promise<KeySet> {
    if (this.cached?.text === text) {
      this.cached.checkedAt = performance.now();
      return this.cached.keys;
    }
    const doc = await this.documentOf(text);
    const version = doc.version ?? 0;
    if (this.cached && version < this.cached.version) throw await this.rolledBack(text, version, this.cached);
    let loaded: SigningKey[];
    try {
      loaded = await Promise.all(doc.keys.map((k) => importSigningKey(k.jwk, this.alg)));
    } catch {
      throw this.unreadable(`it does not hold ${this.alg} private keys`);
    }
    const [current, ...older] = loaded;
    if (!current) throw this.unreadable('it is empty');
    const retired: RetiredKey[] = older.map((key, i) => ({ key, unpublishAt: doc.keys[i + 1]?.unpublish_at ?? 0 }));
    const keys = KeySet.fromKeys(current, retired, this.now);
    this.cached = { text, keys, version, checkedAt: performance.now() };
    return keys;
  }

  /** An older document than the one held: refused, logged, and the held one written back. */
  private async rolledBack(text: string, version: number, held: { text: string; version: number }): Promise<StoreUnavailableError> {
    const restored = await this.redis.compareAndSet(this.key, text, held.text).catch(() => false);
    const message = `the signing keys of tenant ${this.tenantId} in Redis (${this.key}) are refused: version ${version} is older than version ${held.version} in use (put back by someone who can write to Redis?); ${restored ? 'the newer document was written back' : 'keeping the keys in use'}`;
    this.logger.error(message);
    return new StoreUnavailableError(message);
  }
}
