/**
 * A {@link TokenCache} on Redis for fleets of instances: tokens shared with a TTL, and a
 * lock (`SET key owner NX PX`, renewed and released by its owner only) so that on a cold
 * cache one instance requests the token while the others wait for it. Keys are hashes of the
 * issuer, client and scope; values hold the token set only, encrypted when a key is set.
 */

import { createHash } from 'node:crypto';
import { OidcError } from '@oidc-rp/core';
import { type CachedToken, MemoryTokenCache, type TokenCache, type TokenCacheLock } from '../token-cache';
import { fail } from '../options';
import { checkSecrets } from '../secret-strength';
import { type EntryCodec, createEntryCodec } from './entry-codec';
import { type BoundedRedis, type RedisClientLike, boundedRedis } from './redis-client';
import { randomOwner, renewWhileHeld } from './redis-lock';

/**
 * Options of {@link RedisTokenCache}.
 *
 * @example
 * ```ts
 * const options: RedisTokenCacheOptions = {
 *   redis, // a connected node-redis client
 *   encryptionKey: process.env.TOKEN_CACHE_KEY!, // required: 32+ random characters, the same on every instance
 *   whenUnavailable: 'fetch',
 *   onError: (error) => metrics.increment(`token_cache.${error.code}`),
 * };
 * ```
 */
export interface RedisTokenCacheOptions {
  /** A connected client: node-redis v5/v6 as is, another one through a small adapter (see {@link RedisClientLike}). */
  redis: RedisClientLike;
  /** Prefix of every key. Default `oidc-rp:cc:`. Give each environment sharing one Redis its own. */
  keyPrefix?: string;
  /**
   * Required. Encrypts cached tokens at rest (JWE `dir` + A256GCM, key derived with
   * HKDF-SHA-256): at least 32 random characters, the same on every instance. An array rotates
   * keys: the first encrypts, every one decrypts. `false` stores tokens as plain JSON, usable by
   * anyone who can read Redis until they expire: choose it only for a Redis nobody else reads.
   */
  encryptionKey: string | string[] | false;
  /**
   * What a Redis failure (down, unreachable, too slow) does to `getClientCredentialsToken`.
   * `'fetch'` (default): the token is requested from the provider directly, and each
   * instance keeps serving the last token it saw from its own memory until Redis is back.
   * `'fail'`: the call rejects with OidcError `cache_unavailable` (no request is sent).
   */
  whenUnavailable?: 'fetch' | 'fail';
  /**
   * Called with each Redis failure (`cache_unavailable`) and each cached value that was
   * ignored (`cache_entry_invalid`: wrong encryption key, changed in Redis). The cache
   * logs nothing itself. Errors carry no token, key or secret.
   */
  onError?: (error: OidcError) => void;
  /** Milliseconds a Redis command may take before it counts as failed. Default 1000. */
  commandTimeout?: number;
  /**
   * Milliseconds the lock lives without renewal: the longest an instance that died while
   * requesting a token keeps the others waiting. Default 10 000. A live holder renews its
   * lock every third of this until it releases it, however long its token request takes.
   */
  lockTtl?: number;
  /**
   * Milliseconds a caller waits, polling the cache, for the token another instance is
   * requesting before it requests its own. Default `lockTtl` + 1000, so a waiter takes an
   * expired lock over rather than requesting beside it. A caller still waiting after that
   * (a live holder slower than `lockWait`) requests beside it: two valid tokens, never a wrong one.
   */
  lockWait?: number;
}

const DEFAULT_PREFIX = 'oidc-rp:cc:';
const DEFAULT_COMMAND_TIMEOUT = 1_000;
const DEFAULT_LOCK_TTL = 10_000;
// During an outage ('fetch'), each instance keeps the tokens it saw in memory, bounded.
const LOCAL_FALLBACK_ENTRIES = 100;

/**
 * A {@link TokenCache} shared by every instance of a service through Redis, with a
 * distributed single flight: N instances on a cold cache cause one token request.
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { createNodeClient } from '@oidc-rp/node';
 * import { RedisTokenCache } from '@oidc-rp/node/redis';
 *
 * const redis = await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }).connect();
 * const service = createNodeClient({
 *   issuer: 'https://id.example.com/acme',
 *   clientId: 'billing',
 *   clientSecret: process.env.CLIENT_SECRET!,
 *   grants: ['client_credentials'],
 *   tokenCache: new RedisTokenCache({ redis, encryptionKey: process.env.TOKEN_CACHE_KEY! }),
 * });
 * const { accessToken } = await service.getClientCredentialsToken({ scope: 'api.read' });
 * ```
 */
export class RedisTokenCache implements TokenCache {
  /** The distributed lock the client uses for single flight across instances. */
  readonly lock: TokenCacheLock;
  readonly #redis: BoundedRedis;
  readonly #codec: EntryCodec;
  readonly #prefix: string;
  readonly #lockTtl: number;
  readonly #onError: ((error: OidcError) => void) | undefined;
  /** Present with `whenUnavailable: 'fetch'` only. */
  readonly #local: MemoryTokenCache | undefined;

  constructor(options: RedisTokenCacheOptions) {
    const resolved = resolveOptions(options);
    this.#redis = boundedRedis(resolved.redis, resolved.commandTimeout);
    this.#codec = createEntryCodec(resolved.encryptionKeys);
    this.#prefix = resolved.keyPrefix;
    this.#lockTtl = resolved.lockTtl;
    this.#onError = resolved.onError;
    this.#local = resolved.whenUnavailable === 'fetch' ? new MemoryTokenCache({ maxEntries: LOCAL_FALLBACK_ENTRIES }) : undefined;
    this.lock = { maxWait: resolved.lockWait, acquire: (key) => this.#acquire(key) };
  }

  /**
   * The Redis key of a cache key: the prefix and a SHA-256 of the issuer, client and scope.
   * The lock of that entry is this key followed by `:lock`.
   *
   * @example
   * ```ts
   * await redis.sendCommand(['MEMORY', 'USAGE', cache.redisKey(key)]);
   * ```
   */
  redisKey(key: string): string {
    return this.#prefix + hashOf(key);
  }

  async get(key: string): Promise<CachedToken | undefined> {
    const hash = hashOf(key);
    let value: string | null;
    try {
      value = await this.#redis.get(this.#prefix + hash);
    } catch (error) {
      return this.#unavailable(error, () => this.#local?.get(key));
    }
    if (value === null) {
      this.#local?.delete(key);
      return undefined;
    }
    try {
      const entry = await this.#codec.decode(hash, value);
      this.#remember(key, entry);
      return entry;
    } catch (error) {
      this.#report(error);
      this.#local?.delete(key);
      return undefined;
    }
  }

  async set(key: string, value: CachedToken, ttlSeconds: number): Promise<void> {
    const hash = hashOf(key);
    const ttl = Math.max(1, Math.ceil(ttlSeconds));
    this.#local?.set(key, value, ttl);
    const encoded = await this.#codec.encode(hash, value);
    try {
      await this.#redis.setWithTtl(this.#prefix + hash, encoded, ttl);
    } catch (error) {
      this.#unavailable(error, () => undefined);
    }
  }

  async delete(key: string): Promise<void> {
    this.#local?.delete(key);
    try {
      await this.#redis.del(this.redisKey(key));
    } catch (error) {
      this.#unavailable(error, () => undefined);
    }
  }

  async #acquire(key: string): Promise<(() => Promise<void>) | undefined> {
    const lockKey = `${this.redisKey(key)}:lock`;
    const owner = randomOwner();
    try {
      if (!(await this.#redis.setIfAbsent(lockKey, owner, this.#lockTtl))) return undefined;
    } catch (error) {
      // Without Redis there is no fleet-wide lock: this instance goes ahead on its own.
      return this.#unavailable(error, () => async () => undefined);
    }
    // Kept while this instance is alive, however long its token request takes.
    const stopRenewing = renewWhileHeld(this.#redis, lockKey, owner, this.#lockTtl, (error) => this.#report(error));
    return async () => {
      stopRenewing();
      try {
        await this.#redis.delIfEquals(lockKey, owner);
      } catch (error) {
        // The token is stored already; the lock expires by itself.
        this.#report(error);
      }
    };
  }

  /** A Redis failure: reported, then thrown (`'fail'`) or answered from `fallback` (`'fetch'`). */
  #unavailable<T>(error: unknown, fallback: () => T): T {
    this.#report(error);
    if (!this.#local) throw error;
    return fallback();
  }

  #report(error: unknown): void {
    if (!this.#onError || !(error instanceof OidcError)) return;
    try {
      this.#onError(error);
    } catch {
      // A failing listener must not turn a cache problem into a failed token request.
    }
  }

  #remember(key: string, entry: CachedToken): void {
    const ttl = Math.ceil(entry.expiresAt - Date.now() / 1000);
    if (ttl >= 1) this.#local?.set(key, entry, ttl);
  }
}

interface ResolvedOptions {
  redis: RedisClientLike;
  keyPrefix: string;
  encryptionKeys: string[];
  whenUnavailable: 'fetch' | 'fail';
  onError: ((error: OidcError) => void) | undefined;
  commandTimeout: number;
  lockTtl: number;
  lockWait: number;
}

function resolveOptions(options: RedisTokenCacheOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) fail('RedisTokenCache needs an options object with `redis`.');
  const { redis } = options;
  if (
    typeof redis !== 'object' ||
    redis === null ||
    !(['get', 'set', 'del', 'eval'] as const).every((method) => typeof redis[method] === 'function')
  ) {
    fail('`redis` must be a connected Redis client with get, set, del and eval (a node-redis client, or an adapter for another one).');
  }
  const keyPrefix = options.keyPrefix ?? DEFAULT_PREFIX;
  if (typeof keyPrefix !== 'string' || keyPrefix.length > 200) fail('`keyPrefix` must be a string of at most 200 characters.');
  const whenUnavailable = options.whenUnavailable ?? 'fetch';
  if (whenUnavailable !== 'fetch' && whenUnavailable !== 'fail') fail('`whenUnavailable` must be "fetch" or "fail".');
  if (options.onError !== undefined && typeof options.onError !== 'function') fail('`onError` must be a function.');
  const commandTimeout = milliseconds(options.commandTimeout, DEFAULT_COMMAND_TIMEOUT, '`commandTimeout`');
  const lockTtl = milliseconds(options.lockTtl, DEFAULT_LOCK_TTL, '`lockTtl`');
  const lockWait = options.lockWait === undefined ? lockTtl + 1_000 : milliseconds(options.lockWait, 0, '`lockWait`', 0);
  return {
    redis,
    keyPrefix,
    encryptionKeys: encryptionKeys(options.encryptionKey),
    whenUnavailable,
    onError: options.onError,
    commandTimeout,
    lockTtl,
    lockWait,
  };
}

function encryptionKeys(value: string | string[] | false | undefined): string[] {
  if (value === false) return [];
  if (value === undefined) {
    fail(
      '`encryptionKey` is required: 32+ random characters (e.g. `openssl rand -base64 32`), the same on every instance, ' +
        'so whoever reads Redis cannot use the tokens; `encryptionKey: false` stores them readable, deliberately.',
    );
  }
  return checkSecrets(value, 'encryptionKey');
}

function milliseconds(value: number | undefined, fallback: number, what: string, min = 1): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > 3_600_000) {
    fail(`${what} must be a whole number of milliseconds between ${min} and 3600000.`);
  }
  return value;
}



function hashOf(key: string): string {
  return createHash('sha256').update(key).digest('base64url');
}
