/**
 * The store on Redis (or Valkey), for several server instances behind one load balancer:
 * a code redeemed on two instances at once succeeds once, a refresh token rotated on one is
 * dead on the other. Single-use reads are one Lua script each, so Redis runs them atomically.
 *
 * Keys: `{prefix}{tenant}:{kind}:{id}`, where `id` is the SHA-256 the callers already use for
 * codes, tokens and session cookies; interaction ids and consent keys are hashed here, so no
 * usable secret is ever a key. Every entry but consent and signing keys expires with its
 * lifetime. With a key encryption secret, every record is stored with a MAC over its key and
 * content (record-integrity.ts), so a writer to Redis cannot forge or move one. A command that fails, or gets no answer within {@link COMMAND_TIMEOUT_MS}, throws
 * `StoreUnavailableError` (the server answers 503); the client reconnects on its own.
 */
import type { Logger } from '../config/logger';
import { storageKey } from '../crypto/secrets';
import type { RecordIntegrity } from './record-integrity';
import {
  StoreUnavailableError,
  type AccessTokenRecord,
  type CodeRecord,
  type Interaction,
  type PushedRequest,
  type RefreshTokenRecord,
  type Session,
  type Store,
  type Taken,
} from './store';

/** How long one command may take before the request is answered 503. */
export const COMMAND_TIMEOUT_MS = 2_000;
/** How long start-up waits for the first connection. */
const CONNECT_TIMEOUT_MS = 5_000;
/** Reconnect back-off: 50 ms doubling up to 1 s, so recovery is quick after a restart. */
const reconnectDelay = (retries: number): number => Math.min(50 * 2 ** retries, 1_000);

/** Where Redis is and under which key prefix this server's entries live. */
export interface RedisStoreSettings {
  url: string;
  prefix: string;
}

/** The part of the node-redis client this module uses. */
interface RedisClient {
  connect(): Promise<unknown>;
  sendCommand(args: string[]): Promise<unknown>;
  destroy(): void;
  close(): Promise<void>;
}

// Single-use entries (codes, refresh tokens) are a flag byte ('0' fresh, '1' used) followed by
// the JSON record. TAKE returns the value as it was and marks it used, keeping its TTL, so a
// replay is recognised for as long as the entry lives.
const TAKE = `local v = redis.call('GET', KEYS[1])
if not v then return false end
if string.sub(v, 1, 1) == '0' then redis.call('SETRANGE', KEYS[1], 0, '1') end
return v`;
// Interactions are a hash: the record `r` and the failed-login counter `f`.
const SAVE_INTERACTION = `redis.call('HSET', KEYS[1], 'r', ARGV[1], 'f', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1`;
const COUNT_FAILED_LOGIN = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HINCRBY', KEYS[1], 'f', 1)`;
const TAKE_INTERACTION = `local v = redis.call('HMGET', KEYS[1], 'r', 'f')
redis.call('DEL', KEYS[1])
return v`;
// A fixed-window counter: the expiry is set by the first hit only.
const COUNT_HIT = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n`;
// A sign-in attempt over several fixed-window counters (KEYS), limits in ARGV[2..]: refused
// unchanged when any counter is at its limit, else every counter counts it. The hit that
// brings a counter to its limit restarts its window, so a lockout lasts a whole one.
const COUNT_ATTEMPT = `local counts = {}
local allowed = 1
for i, key in ipairs(KEYS) do
  counts[i] = tonumber(redis.call('GET', key) or '0')
  if counts[i] >= tonumber(ARGV[i + 1]) then allowed = 0 end
end
if allowed == 1 then
  for i, key in ipairs(KEYS) do
    counts[i] = redis.call('INCR', key)
    if counts[i] == 1 or counts[i] == tonumber(ARGV[i + 1]) then redis.call('EXPIRE', key, ARGV[1]) end
  end
end
table.insert(counts, 1, allowed)
return counts`;
const REFUND_HIT = `if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
return 1`;
// Compare-and-set of a whole value ('' expects the key to be absent).
const COMPARE_AND_SET = `local v = redis.call('GET', KEYS[1])
if (v == false and ARGV[1] == '') or v == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2]) return 1 end
return 0`;

function errorName(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error';
  // Redis reply errors start with an upper-case code (WRONGTYPE, OOM, …); keep only that.
  const code = /^[A-Z]+\b/.exec(error.message)?.[0];
  return code ?? (error as NodeJS.ErrnoException).code ?? error.name;
}

/**
 * One connection to Redis: bounded commands, per-tenant stores and the shared key documents.
 *
 * @example
 * const redis = await RedisConnection.open({ url: 'redis://127.0.0.1:6379', prefix: 'oidc-rp:server:' }, logger);
 * const store = redis.store('acme');
 * await redis.close();
 */
export class RedisConnection {
  private constructor(
    private readonly client: RedisClient,
    /** `host:port`, for messages (the URL may hold a password). */
    private readonly where: string,
    readonly prefix: string,
    private readonly reconnected: Set<() => void>,
    private readonly integrity: RecordIntegrity | undefined,
  ) {}

  /**
   * Connects, waiting at most 5 s; a refused connection fails at once. Throws an `Error` saying
   * where it tried and why it failed (never the URL, which may hold a password).
   *
   * @example
   * const redis = await RedisConnection.open(settings, logger);
   */
  static async open(settings: RedisStoreSettings, logger: Logger, integrity?: RecordIntegrity): Promise<RedisConnection> {
    const where = new URL(settings.url).host || 'localhost:6379';
    // Loaded on demand: servers on the memory store never pay for the client.
    const { createClient } = await import('@redis/client');
    let lastError: unknown;
    let connected = false;
    let down = false;
    const client = createClient({
      url: settings.url,
      // Fail at once while reconnecting instead of queueing: a request must not hang.
      disableOfflineQueue: true,
      socket: {
        connectTimeout: COMMAND_TIMEOUT_MS,
        // Start-up fails on the first refused connection; later, retry until Redis is back.
        reconnectStrategy: (retries: number, cause: Error) => (connected ? reconnectDelay(retries) : cause),
      },
    });
    const reconnected = new Set<() => void>();
    const lost = () => {
      if (!connected || down) return;
      down = true;
      logger.error(`redis store at ${where}: connection lost (${errorName(lastError)}); requests get 503 until it is back`);
    };
    // Without an 'error' listener the client's errors would crash the process.
    client.on('error', (error: unknown) => {
      lastError = error;
      lost();
    });
    client.on('reconnecting', lost);
    client.on('ready', () => {
      if (!down) return;
      down = false;
      logger.error(`redis store at ${where}: connection restored`);
      for (const listener of reconnected) listener();
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const connecting = client.connect();
      // Still pending when the wait gives up; destroy() then rejects it.
      connecting.catch(() => undefined);
      await Promise.race([
        connecting,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), CONNECT_TIMEOUT_MS);
        }),
      ]);
    } catch {
      client.destroy();
      const why = lastError === undefined ? `no connection within ${CONNECT_TIMEOUT_MS} ms` : errorName(lastError);
      throw new Error(`cannot connect to the Redis store at ${where} (${why}); start Redis or fix "store.url" in the config`);
    } finally {
      clearTimeout(timer);
    }
    connected = true;
    return new RedisConnection(client, where, settings.prefix, reconnected, integrity);
  }

  /**
   * Calls `listener` each time the connection is back after a loss (Redis may have restarted empty).
   *
   * @example
   * redis.onReconnect(() => keys.reload());
   */
  onReconnect(listener: () => void): void {
    this.reconnected.add(listener);
  }

  /**
   * The store of one tenant: its keys live under `{prefix}{tenantId}:`.
   *
   * @example
   * const store = redis.store('acme');
   */
  store(tenantId: string): Store {
    return new RedisStore(this, `${this.prefix}${tenantId}:`, this.integrity);
  }

  /**
   * Sends one command, bounded in time. Any failure becomes `StoreUnavailableError`.
   *
   * @example
   * const value = await redis.command(['GET', key]);
   */
  async command(args: string[]): Promise<unknown> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const pending = Promise.resolve().then(() => this.client.sendCommand(args));
    // A command that times out may still fail later: that is expected, not unhandled.
    pending.catch(() => undefined);
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StoreUnavailableError(`the Redis store at ${this.where} did not answer ${args[0]} within ${COMMAND_TIMEOUT_MS} ms`)),
        COMMAND_TIMEOUT_MS,
      );
    });
    try {
      return await Promise.race([pending, timeout]);
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      throw new StoreUnavailableError(`the Redis store at ${this.where} failed ${args[0]} (${errorName(error)})`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Runs a Lua script (EVAL; Redis caches it compiled, and nothing is lost when Redis restarts).
   *
   * @example
   * await redis.script(TAKE, [key]);
   */
  script(source: string, keys: string[], args: string[] = []): Promise<unknown> {
    return this.command(['EVAL', source, String(keys.length), ...keys, ...args]);
  }

  /**
   * GET: the value, or null.
   *
   * @example
   * const doc = await redis.get(key);
   */
  async get(key: string): Promise<string | null> {
    const value = await this.command(['GET', key]);
    return typeof value === 'string' ? value : null;
  }

  /**
   * SET ... NX without expiry: true when this call created the key.
   *
   * @example
   * if (await redis.setIfAbsent(key, doc)) logger.info('first instance');
   */
  async setIfAbsent(key: string, value: string): Promise<boolean> {
    return (await this.command(['SET', key, value, 'NX'])) === 'OK';
  }

  /**
   * Replaces the value only if it is still `expected` (null: only if absent), atomically.
   *
   * @example
   * const swapped = await redis.compareAndSet(key, before, after);
   */
  async compareAndSet(key: string, expected: string | null, value: string): Promise<boolean> {
    return Number(await this.script(COMPARE_AND_SET, [key], [expected ?? '', value])) === 1;
  }

  /**
   * Closes the connection (pending commands finish first).
   *
   * @example
   * await redis.close();
   */
  async close(): Promise<void> {
    try {
      await this.client.close();
    } catch {
      this.client.destroy();
    }
  }
}

/** Whole seconds, at least one: Redis refuses an expiry of 0. */
function ttl(seconds: number): string {
  return String(Math.max(1, Math.ceil(seconds)));
}

/** A JSON record read back from Redis; anything unreadable counts as absent, so it never yields a token. */
function parse<T>(json: string | null | undefined): T | undefined {
  if (typeof json !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}

/** The {@link Store} of one tenant on Redis. */
class RedisStore implements Store {
  constructor(
    private readonly redis: RedisConnection,
    private readonly namespace: string,
    private readonly integrity: RecordIntegrity | undefined,
  ) {}

  /** The stored form of a record under `key`: with its MAC when there is a secret. */
  private seal(key: string, record: unknown): string {
    const json = JSON.stringify(record);
    return this.integrity ? this.integrity.wrap(key, json) : json;
  }

  /** The record stored under `key`; a forged or moved one (its MAC fails) reads as absent. */
  private open<T>(key: string, stored: string | null | undefined): T | undefined {
    if (typeof stored !== 'string') return undefined;
    return parse<T>(this.integrity ? this.integrity.unwrap(key, stored) : stored);
  }

  /** A single-use entry (flag byte, then the sealed record) as GET or TAKE returned it. */
  private taken<T>(key: string, value: unknown): Taken<T> | undefined {
    if (typeof value !== 'string') return undefined;
    const record = this.open<T>(key, value.slice(1));
    return record && { record, alreadyUsed: value[0] !== '0' };
  }

  /** An interaction from an HMGET reply `[record, failedLogins]`. */
  private interaction(key: string, reply: unknown): Interaction | undefined {
    if (!Array.isArray(reply)) return undefined;
    const record = this.open<Omit<Interaction, 'failedLogins'>>(key, reply[0] as string | null);
    return record && { ...record, failedLogins: Number(reply[1] ?? 0) };
  }

  private key(kind: string, id: string): string {
    return `${this.namespace}${kind}:${id}`;
  }

  private async set(key: string, value: string, ttlSeconds?: number): Promise<void> {
    await this.redis.command(ttlSeconds === undefined ? ['SET', key, value] : ['SET', key, value, 'EX', ttl(ttlSeconds)]);
  }

  private async del(key: string): Promise<void> {
    await this.redis.command(['DEL', key]);
  }

  private interactionKey(id: string): string {
    // Interaction ids travel in URLs; hash them like every other key.
    return this.key('interaction', storageKey(id));
  }

  async saveInteraction(id: string, interaction: Interaction, ttlSeconds: number): Promise<void> {
    const { failedLogins, ...record } = interaction;
    const key = this.interactionKey(id);
    await this.redis.script(SAVE_INTERACTION, [key], [this.seal(key, record), String(failedLogins), ttl(ttlSeconds)]);
  }
  async findInteraction(id: string): Promise<Interaction | undefined> {
    const key = this.interactionKey(id);
    return this.interaction(key, await this.redis.command(['HMGET', key, 'r', 'f']));
  }
  async countFailedLogin(id: string): Promise<number> {
    return Number(await this.redis.script(COUNT_FAILED_LOGIN, [this.interactionKey(id)]));
  }
  async takeInteraction(id: string): Promise<Interaction | undefined> {
    const key = this.interactionKey(id);
    return this.interaction(key, await this.redis.script(TAKE_INTERACTION, [key]));
  }

  async saveSession(key: string, session: Session, ttlSeconds: number): Promise<void> {
    const at = this.key('session', key);
    await this.set(at, this.seal(at, session), ttlSeconds);
  }
  async findSession(key: string): Promise<Session | undefined> {
    const at = this.key('session', key);
    return this.open(at, await this.redis.get(at));
  }
  async deleteSession(key: string): Promise<void> {
    await this.del(this.key('session', key));
  }

  async saveConsent(key: string, scopes: string[]): Promise<void> {
    // Kept without expiry, like the memory store: consent lasts until Redis is cleared.
    const at = this.key('consent', storageKey(key));
    await this.set(at, this.seal(at, { scopes }));
  }
  async findConsent(key: string): Promise<string[] | undefined> {
    const at = this.key('consent', storageKey(key));
    const scopes = this.open<{ scopes?: unknown }>(at, await this.redis.get(at))?.scopes;
    return Array.isArray(scopes) && scopes.every((s) => typeof s === 'string') ? scopes : undefined;
  }

  async saveCode(key: string, record: CodeRecord, ttlSeconds: number): Promise<void> {
    const at = this.key('code', key);
    await this.set(at, `0${this.seal(at, record)}`, ttlSeconds);
  }
  async peekCode(key: string): Promise<Taken<CodeRecord> | undefined> {
    const at = this.key('code', key);
    return this.taken(at, await this.redis.get(at));
  }
  async takeCode(key: string): Promise<Taken<CodeRecord> | undefined> {
    const at = this.key('code', key);
    return this.taken(at, await this.redis.script(TAKE, [at]));
  }

  async saveAccessToken(key: string, record: AccessTokenRecord, ttlSeconds: number): Promise<void> {
    const at = this.key('at', key);
    await this.set(at, this.seal(at, record), ttlSeconds);
  }
  async findAccessToken(key: string): Promise<AccessTokenRecord | undefined> {
    const at = this.key('at', key);
    return this.open(at, await this.redis.get(at));
  }
  async deleteAccessToken(key: string): Promise<void> {
    await this.del(this.key('at', key));
  }

  async saveRefreshToken(key: string, record: RefreshTokenRecord, ttlSeconds: number): Promise<void> {
    const at = this.key('rt', key);
    await this.set(at, `0${this.seal(at, record)}`, ttlSeconds);
  }
  async findRefreshToken(key: string): Promise<RefreshTokenRecord | undefined> {
    const at = this.key('rt', key);
    return this.taken<RefreshTokenRecord>(at, await this.redis.get(at))?.record;
  }
  async peekRefreshToken(key: string): Promise<Taken<RefreshTokenRecord> | undefined> {
    const at = this.key('rt', key);
    return this.taken(at, await this.redis.get(at));
  }
  async takeRefreshToken(key: string): Promise<Taken<RefreshTokenRecord> | undefined> {
    const at = this.key('rt', key);
    return this.taken(at, await this.redis.script(TAKE, [at]));
  }

  async revokeGrant(grantId: string, ttlSeconds: number): Promise<void> {
    await this.set(this.key('revoked', grantId), '1', ttlSeconds);
  }
  async isGrantRevoked(grantId: string): Promise<boolean> {
    return Number(await this.redis.command(['EXISTS', this.key('revoked', grantId)])) === 1;
  }

  // Counter names may hold a username or an address: hashed like every other key.
  async countHit(key: string, ttlSeconds: number): Promise<number> {
    return Number(await this.redis.script(COUNT_HIT, [this.key('hits', storageKey(key))], [ttl(ttlSeconds)]));
  }
  async hitCount(key: string): Promise<number> {
    return Number((await this.redis.get(this.key('hits', storageKey(key)))) ?? 0);
  }
  async clearHits(key: string): Promise<void> {
    await this.del(this.key('hits', storageKey(key)));
  }
  async countAttempt(counters: readonly { key: string; limit: number }[], ttlSeconds: number): Promise<{ allowed: boolean; counts: number[] }> {
    const keys = counters.map((c) => this.key('hits', storageKey(c.key)));
    const reply = await this.redis.script(COUNT_ATTEMPT, keys, [ttl(ttlSeconds), ...counters.map((c) => String(c.limit))]);
    const [allowed, ...counts] = Array.isArray(reply) ? reply.map(Number) : [];
    // An unreadable reply refuses the attempt: a throttle that fails open would let guesses through.
    if (allowed === undefined || counts.length !== counters.length) return { allowed: false, counts: counters.map((c) => c.limit) };
    return { allowed: allowed === 1, counts };
  }
  async refundHit(key: string): Promise<void> {
    await this.redis.script(REFUND_HIT, [this.key('hits', storageKey(key))]);
  }
  // SET NX EX: one atomic step, so two instances given the same proof cannot both accept it.
  async rememberProof(key: string, ttlSeconds: number): Promise<boolean> {
    return (await this.redis.command(['SET', this.key('dpop-jti', key), '1', 'NX', 'EX', ttl(ttlSeconds)])) === 'OK';
  }
  async savePushedRequest(key: string, record: PushedRequest, ttlSeconds: number): Promise<void> {
    const at = this.key('par', key);
    await this.set(at, this.seal(at, record), ttlSeconds);
  }
  // GETDEL: one atomic step, so a request_uri sent to two instances at once is used once.
  async takePushedRequest(key: string): Promise<PushedRequest | undefined> {
    const at = this.key('par', key);
    return this.open(at, (await this.redis.command(['GETDEL', at])) as string | null);
  }
}
