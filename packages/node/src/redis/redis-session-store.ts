/**
 * A {@link SessionStore} on Redis: sessions shared by every instance, surviving restarts of
 * the app, and revocable from the back end (delete the key). Values are sealed by the session
 * layer before they get here, so Redis never holds a readable token.
 */

import { fail } from '../options';
import type { SessionLock, SessionStore } from '../session/session-store';
import { type BoundedRedis, type RedisClientLike, boundedRedis, luaScript } from './redis-client';
import { createSessionLock } from './redis-lock';

// Back-channel logout's indexes: a set of session ids whose expiry only ever moves later.
const ADD_TO_INDEX = luaScript(
  "redis.call('SADD', KEYS[1], ARGV[1]) if redis.call('TTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[1], ARGV[2]) end return 1",
);
// Read and removed in one step: a session indexed right after is in the next logout's set, never lost between.
const TAKE_INDEX = luaScript("local ids = redis.call('SMEMBERS', KEYS[1]) redis.call('DEL', KEYS[1]) return ids");

/**
 * Options of {@link RedisSessionStore}.
 *
 * @example
 * ```ts
 * const options: RedisSessionStoreOptions = { redis, keyPrefix: 'shop:session:', commandTimeout: 500 };
 * ```
 */
export interface RedisSessionStoreOptions {
  /** A connected client: node-redis v5/v6 as is, another one through a small adapter (see {@link RedisClientLike}). */
  redis: RedisClientLike;
  /** Prefix of every key. Default `oidc-rp:session:`. Give each app sharing one Redis its own. */
  keyPrefix?: string;
  /** Milliseconds a command may take before the read fails with `session_store_unavailable`. Default 1000. */
  commandTimeout?: number;
  /**
   * Milliseconds the refresh lock of a session lives without renewal: the longest an instance
   * that died while refreshing keeps the others waiting. Default 10 000. A live holder renews it
   * every third of this while its token request runs.
   */
  lockTtl?: number;
  /**
   * Milliseconds a request waits for another instance's refresh of its session before it answers
   * with the current (stale) access token and error `session_refresh_busy`. Default 30 000.
   */
  lockWait?: number;
}

/**
 * Sessions in Redis, for `createSessionAuth({ store })`. While Redis is down, session reads
 * fail with OidcError `session_store_unavailable` (a 503 from `requiresAuth`): users are not
 * signed out by an outage, and are signed in again once Redis answers with their session.
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { createSessionAuth } from '@oidc-rp/node';
 * import { RedisSessionStore } from '@oidc-rp/node/redis';
 *
 * const redis = await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }).connect();
 * const auth = createSessionAuth({ client, secret: process.env.SESSION_SECRET!, store: new RedisSessionStore({ redis }) });
 * // Back-end logout of one session (e.g. from an admin page):
 * await auth.revokeSession(sessionId);
 * ```
 */
export class RedisSessionStore implements SessionStore {
  private readonly redis: BoundedRedis;
  private readonly prefix: string;
  /** One refresh per session across every instance on this Redis (see `lockTtl`). */
  readonly lock: SessionLock;

  constructor(options: RedisSessionStoreOptions) {
    this.redis = boundedRedis(options.redis, options.commandTimeout ?? 1_000, 'the session store');
    this.prefix = options.keyPrefix ?? 'oidc-rp:session:';
    this.lock = createSessionLock(this.redis, {
      prefix: this.prefix,
      ttl: lockMilliseconds(options.lockTtl, 10_000, 'lockTtl'),
      maxWait: lockMilliseconds(options.lockWait, 30_000, 'lockWait'),
      // A claim left by a dead holder stays as long as a session can (the longest absolute lifetime).
      claimTtlSeconds: CLAIM_TTL_SECONDS,
      report: () => undefined,
    });
  }

  async get(id: string): Promise<string | undefined> {
    return (await this.redis.get(this.prefix + id)) ?? undefined;
  }

  async set(id: string, value: string, ttlSeconds: number): Promise<void> {
    await this.redis.setWithTtl(this.prefix + id, value, Math.max(1, Math.ceil(ttlSeconds)));
  }

  async delete(id: string): Promise<void> {
    await this.redis.del(this.prefix + id);
  }

  /** SET NX EX: one winner across every instance (back-channel logout's replay check). */
  async setIfAbsent(id: string, value: string, ttlSeconds: number): Promise<boolean> {
    return this.redis.setIfAbsent(this.prefix + id, value, Math.max(1, Math.ceil(ttlSeconds)) * 1000);
  }

  /** SADD to a set that lives at least `ttlSeconds` (back-channel logout's sid and sub indexes). */
  async addToIndex(key: string, sessionId: string, ttlSeconds: number): Promise<void> {
    await this.redis.script(ADD_TO_INDEX, { keys: [this.prefix + key], arguments: [sessionId, String(Math.max(1, Math.ceil(ttlSeconds)))] });
  }

  /** SMEMBERS and DEL in one script. */
  async takeIndex(key: string): Promise<string[]> {
    const reply = await this.redis.script(TAKE_INDEX, { keys: [this.prefix + key], arguments: [] });
    if (!Array.isArray(reply)) return [];
    return reply.map((id) => (id instanceof Uint8Array ? new TextDecoder().decode(id) : String(id)));
  }
}

// A week, the default absolute session lifetime; a claim is deleted by its next holder anyway.
const CLAIM_TTL_SECONDS = 7 * 24 * 3600;

function lockMilliseconds(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > 3_600_000) fail(`\`${name}\` must be a whole number of milliseconds between 1 and 3600000.`);
  return value;
}
