/**
 * Where client-credentials tokens are kept between calls. The interface is small and may
 * be async, so a shared store (Redis, Memcached) can back a fleet of instances; the
 * default keeps tokens in this process, bounded in size.
 */

import type { TokenSet } from '@oidc-rp/core';

/**
 * What the client stores per cache key. Plain JSON: serialise it as is.
 *
 * @example
 * ```ts
 * const entry: CachedToken = JSON.parse(await redis.get(key));
 * entry.expiresAt; // epoch seconds
 * ```
 */
export interface CachedToken {
  tokens: TokenSet;
  /** Epoch seconds from which the token is renewed before use. */
  renewAt: number;
  /** Epoch seconds after which the token is never served (its expiry, or the assumed one). */
  expiresAt: number;
}

/**
 * Storage for client-credentials tokens. Every method may return a promise.
 * `set` receives a TTL in whole seconds (at least 1): a store may drop the entry then.
 *
 * @example
 * ```ts
 * // A Redis-backed cache (ioredis), shared by every instance of a service:
 * const redisCache: TokenCache = {
 *   async get(key) {
 *     const json = await redis.get(key);
 *     return json ? (JSON.parse(json) as CachedToken) : undefined;
 *   },
 *   async set(key, value, ttlSeconds) {
 *     await redis.set(key, JSON.stringify(value), 'EX', ttlSeconds);
 *   },
 *   async delete(key) {
 *     await redis.del(key);
 *   },
 * };
 * const client = createNodeClient({ ...options, tokenCache: redisCache });
 * ```
 */
export interface TokenCache {
  get(key: string): CachedToken | undefined | Promise<CachedToken | undefined>;
  set(key: string, value: CachedToken, ttlSeconds: number): void | Promise<void>;
  delete(key: string): void | Promise<void>;
  /**
   * Optional single flight across every instance sharing this cache. Without it (the
   * in-memory cache), concurrent callers share one request per process.
   */
  lock?: TokenCacheLock;
}

/**
 * A lock shared by the instances of a fleet, so that on a cold cache one of them requests
 * the token and the others wait for it (the Redis adapter implements it with
 * `SET key token NX PX`). Errors are handled like those of the cache: a rejection with
 * OidcError `cache_unavailable` fails the call, any other one lets this instance request
 * the token without the lock.
 *
 * @example
 * ```ts
 * const lock: TokenCacheLock = {
 *   maxWait: 16_000, // longer than the lock's 15 s expiry
 *   async acquire(key) {
 *     const owner = crypto.randomUUID();
 *     const taken = await redis.set(`${key}:lock`, owner, 'PX', 15_000, 'NX');
 *     return taken ? () => releaseIfOwner(`${key}:lock`, owner) : undefined;
 *   },
 * };
 * ```
 */
export interface TokenCacheLock {
  /**
   * Tries once, without waiting, to take the lock that lets this instance request the token
   * for `key`. Resolves to the function that releases it when taken, `undefined` when another
   * instance holds it. The lock must expire by itself, so that a holder that crashed blocks
   * the others no longer than that.
   */
  acquire(key: string): Promise<(() => Promise<void>) | undefined>;
  /**
   * Milliseconds a caller waits, polling the cache, for the token another instance is
   * requesting; then it requests its own. Make it longer than the lock's expiry, so that a
   * crashed holder is replaced by a waiter taking the lock over.
   */
  readonly maxWait: number;
}

/**
 * Options of {@link MemoryTokenCache}.
 *
 * @example
 * ```ts
 * const cache = new MemoryTokenCache({ maxEntries: 20 });
 * ```
 */
export interface MemoryTokenCacheOptions {
  /** Most entries kept; the least recently used one goes first. Default 100. */
  maxEntries?: number;
}

/**
 * The default {@link TokenCache}: in this process, bounded in size (least recently used
 * entries are evicted first), entries dropped after their TTL.
 *
 * @example
 * ```ts
 * const client = createNodeClient({ ...options, tokenCache: new MemoryTokenCache({ maxEntries: 20 }) });
 * ```
 */
export class MemoryTokenCache implements TokenCache {
  readonly #maxEntries: number;
  // Map iteration order is insertion order: re-inserting on read keeps it LRU-ordered.
  readonly #entries = new Map<string, { value: CachedToken; expiresAtMs: number }>();

  constructor(options: MemoryTokenCacheOptions = {}) {
    const maxEntries = options.maxEntries ?? 100;
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new TypeError('MemoryTokenCache maxEntries must be an integer >= 1.');
    }
    this.#maxEntries = maxEntries;
  }

  /** Number of entries held (expired ones included until touched). */
  get size(): number {
    return this.#entries.size;
  }

  get(key: string): CachedToken | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (Date.now() >= entry.expiresAtMs) return undefined;
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: CachedToken, ttlSeconds: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAtMs: Date.now() + ttlSeconds * 1000 });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}
