/**
 * A {@link SessionStore} on Redis: sessions shared by every instance, surviving restarts of
 * the app, and revocable from the back end (delete the key). Values are sealed by the session
 * layer before they get here, so Redis never holds a readable token.
 */

import type { SessionStore } from '../session/session-store';
import { type BoundedRedis, type RedisClientLike, boundedRedis, luaScript } from './redis-client';

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

  constructor(options: RedisSessionStoreOptions) {
    this.redis = boundedRedis(options.redis, options.commandTimeout ?? 1_000, 'the session store');
    this.prefix = options.keyPrefix ?? 'oidc-rp:session:';
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
