/**
 * The few Redis commands the token cache uses, as a structural type that a node-redis
 * (v5, v6) client satisfies as is; another client (ioredis) needs a few lines of
 * adapter. Each command is bounded in time and its failures become OidcError
 * `cache_unavailable`, so a Redis outage never hangs a token request.
 */

import { createHash } from 'node:crypto';
import { OidcError } from '@oidc-rp/core';

/**
 * What the Redis adapter needs from a Redis client: the node-redis method shapes. Pass a
 * connected node-redis client directly; adapt others in a few lines.
 *
 * @example
 * ```ts
 * // ioredis:
 * import Redis from 'ioredis';
 * const ioredis = new Redis(process.env.REDIS_URL!);
 * const redis: RedisClientLike = {
 *   get: (key) => ioredis.get(key),
 *   set: (key, value, { expiration, condition }) =>
 *     ioredis.call('SET', key, value, expiration.type, expiration.value, ...(condition ? [condition] : [])),
 *   del: (key) => ioredis.del(key),
 *   eval: (script, { keys, arguments: args }) => ioredis.eval(script, keys.length, ...keys, ...args),
 *   evalSha: (sha1, { keys, arguments: args }) => ioredis.evalsha(sha1, keys.length, ...keys, ...args),
 * };
 * ```
 */
export interface RedisClientLike {
  /** GET: the value (a string), or null. */
  get(key: string): Promise<unknown>;
  /** SET with an expiry and, for the lock, NX: resolves to "OK" when set, null when NX found the key. */
  set(key: string, value: string, options: RedisSetOptions): Promise<unknown>;
  /** DEL one key. */
  del(key: string): Promise<unknown>;
  /** EVAL a Lua script. */
  eval(script: string, options: RedisScriptOptions): Promise<unknown>;
  /** EVALSHA: optional; when present the release script is sent by its SHA-1 after the first time. */
  evalSha?(sha1: string, options: RedisScriptOptions): Promise<unknown>;
}

/**
 * The SET options the adapter sends (node-redis's shape).
 *
 * @example
 * ```ts
 * await redis.set('oidc-rp:cc:…:lock', owner, { expiration: { type: 'PX', value: 10_000 }, condition: 'NX' });
 * ```
 */
export interface RedisSetOptions {
  expiration: { type: 'EX' | 'PX'; value: number };
  condition?: 'NX';
}

/**
 * Keys and arguments of a script (node-redis's shape).
 *
 * @example
 * ```ts
 * await redis.eval("return redis.call('GET', KEYS[1])", { keys: ['k'], arguments: [] });
 * ```
 */
export interface RedisScriptOptions {
  keys: string[];
  arguments: string[];
}

/** The commands as the cache uses them: bounded, with failures as `cache_unavailable`. Internal. */
export interface BoundedRedis {
  get(key: string): Promise<string | null>;
  /** SET … EX ttlSeconds. */
  setWithTtl(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** SET … NX PX ttlMs: true when this call created the key. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  del(key: string): Promise<void>;
  /** Deletes `key` only if it still holds `value`, atomically (compare-and-delete in Lua). */
  delIfEquals(key: string, value: string): Promise<void>;
  /** Sets the expiry of `key` to `ttlMs` only if it still holds `value`, atomically: true when it did. */
  expireIfEquals(key: string, value: string, ttlMs: number): Promise<boolean>;
  /**
   * Takes the lock `key` (`value`, expiring after `ttlMs`) unless it is held, and marks it taken
   * in `claimKey` until released: 'busy', 'taken', or 'abandoned' (the last holder never released).
   */
  claimLock(key: string, claimKey: string, value: string, ttlMs: number, claimTtlSeconds: number): Promise<'busy' | 'taken' | 'abandoned'>;
  /** Deletes the lock `key` and its claim, only if the lock still holds `value`. */
  releaseClaim(key: string, claimKey: string, value: string): Promise<void>;
  /** Runs a Lua script made by `luaScript` (by SHA-1 when the client can), bounded like every command. */
  script(script: LuaScript, options: RedisScriptOptions): Promise<unknown>;
}

// Compare-and-delete: a lock is released only by the owner whose random value it holds,
// never by an instance whose lock already expired and was taken by another.
const DEL_IF_EQUALS = luaScript(
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end",
);
// Compare-and-expire: a holder renews its lock only while the lock is still its own.
const EXPIRE_IF_EQUALS = luaScript(
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end",
);

// A lock that remembers being held: the claim outlives the lock, so the next holder learns
// that the previous one died holding it (its claim is still there) rather than released it.
const CLAIM_LOCK = luaScript(
  "if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end " +
    "local previous = redis.call('EXISTS', KEYS[2]) " +
    "redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) " +
    "redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[3]) " +
    'return 1 + previous',
);
const RELEASE_CLAIM = luaScript(
  "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[2]) return redis.call('DEL', KEYS[1]) else return 0 end",
);

/** A Lua script and its SHA-1 (for EVALSHA). Internal. */
export interface LuaScript {
  source: string;
  sha1: string;
}

/** Wraps a Lua script for {@link BoundedRedis.script}. Internal. */
export function luaScript(source: string): LuaScript {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

export function boundedRedis(client: RedisClientLike, timeoutMs: number, user = 'the token cache'): BoundedRedis {
  function run<T>(command: string, operation: () => Promise<T>): Promise<T> {
    return withTimeout(command, operation, timeoutMs, user);
  }

  // By SHA-1 when the client has EVALSHA, the script itself the first time and after a flush.
  async function evaluate(script: LuaScript, options: RedisScriptOptions): Promise<unknown> {
    const evalSha = client.evalSha;
    if (evalSha) {
      try {
        return await run('EVALSHA', () => evalSha.call(client, script.sha1, options));
      } catch (error) {
        // The script cache was flushed (or Redis restarted): send the script itself.
        if (!isNoScript(error)) throw error;
      }
    }
    return run('EVAL', () => client.eval(script.source, options));
  }

  return {
    async get(key) {
      const reply = await run('GET', () => client.get(key));
      if (reply === null || reply === undefined) return null;
      if (typeof reply === 'string') return reply;
      if (reply instanceof Uint8Array) return new TextDecoder().decode(reply);
      throw unexpectedReply('GET');
    },
    async setWithTtl(key, value, ttlSeconds) {
      await run('SET', () => client.set(key, value, { expiration: { type: 'EX', value: ttlSeconds } }));
    },
    async setIfAbsent(key, value, ttlMs) {
      const reply = await run('SET NX', () => client.set(key, value, { expiration: { type: 'PX', value: ttlMs }, condition: 'NX' }));
      return reply !== null && reply !== undefined && String(reply) === 'OK';
    },
    async del(key) {
      await run('DEL', () => client.del(key));
    },
    async delIfEquals(key, value) {
      await evaluate(DEL_IF_EQUALS, { keys: [key], arguments: [value] });
    },
    async claimLock(key, claimKey, value, ttlMs, claimTtlSeconds) {
      const reply = Number(await evaluate(CLAIM_LOCK, { keys: [key, claimKey], arguments: [value, String(ttlMs), String(claimTtlSeconds)] }));
      return reply === 0 ? 'busy' : reply === 2 ? 'abandoned' : 'taken';
    },
    async releaseClaim(key, claimKey, value) {
      await evaluate(RELEASE_CLAIM, { keys: [key, claimKey], arguments: [value] });
    },
    async expireIfEquals(key, value, ttlMs) {
      const reply = await evaluate(EXPIRE_IF_EQUALS, { keys: [key], arguments: [value, String(ttlMs)] });
      return Number(reply) === 1;
    },
    script: evaluate,
  };
}

async function withTimeout<T>(command: string, operation: () => Promise<T>, timeoutMs: number, user: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  const pending = Promise.resolve().then(operation);
  // A command still queued by the client may fail after the timeout: that is not unhandled.
  pending.catch(() => undefined);
  try {
    return await Promise.race([pending, timedOut]);
  } catch (cause) {
    const what = cause instanceof Error && cause.message.startsWith('no answer') ? `got no answer within ${timeoutMs} ms` : 'failed';
    throw new OidcError(
      'cache_unavailable',
      `Redis ${command} for ${user} ${what}. Check that Redis is running and reachable from this instance ` +
        '(the cause has the client error).',
      { cause },
    );
  } finally {
    clearTimeout(timer);
  }
}

function isNoScript(error: unknown): boolean {
  const cause = error instanceof OidcError ? error.cause : error;
  return cause instanceof Error && cause.message.startsWith('NOSCRIPT');
}

function unexpectedReply(command: string): OidcError {
  return new OidcError(
    'cache_unavailable',
    `Redis ${command} answered with something other than a string: check that the client passed as \`redis\` returns strings (no type mapping).`,
  );
}
