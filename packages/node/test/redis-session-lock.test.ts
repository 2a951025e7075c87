// The refresh lock of RedisSessionStore on a real Redis: one holder at a time, kept alive by a
// live holder past its TTL, and a holder that stopped (died, or released "in doubt") leaves a
// claim, so the next holder is told the lock was abandoned rather than released.
import { type RedisClientType, createClient } from 'redis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RedisSessionStore } from '../src/redis/index';
import { type RunningRedis, startRedisServer } from '../../../test-support/redis-server';

let redisServer: RunningRedis;
let redis: RedisClientType;

beforeAll(async () => {
  redisServer = await startRedisServer();
  redis = createClient({ url: redisServer.url, disableOfflineQueue: true });
  redis.on('error', () => undefined);
  await redis.connect();
});
beforeEach(() => redis.flushAll());
afterAll(async () => {
  redis?.destroy();
  await redisServer?.stop();
});

/** Tries to take `name` until it is granted (the holder's lock expired), for at most 10 s. */
async function acquireWhenFree(store: RedisSessionStore, name: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const grant = await store.lock.acquire(name);
    if (grant) return grant;
    if (Date.now() > deadline) throw new Error('timed out waiting for the lock to expire');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function until(condition: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('RedisSessionStore.lock', () => {
  it('has one holder at a time; a release frees it without a claim left behind', async () => {
    const a = new RedisSessionStore({ redis, keyPrefix: 't:' });
    const b = new RedisSessionStore({ redis, keyPrefix: 't:' });
    const grant = await a.lock.acquire('refresh.s1');
    expect(grant?.abandoned).toBe(false);
    expect(await b.lock.acquire('refresh.s1')).toBeUndefined();
    expect(await b.lock.acquire('refresh.s2')).toBeDefined(); // another session's lock
    expect((await redis.keys('t:{refresh.s1}:*')).sort()).toEqual(['t:{refresh.s1}:claim', 't:{refresh.s1}:lock']);
    await grant?.release();
    expect(await redis.keys('t:{refresh.s1}:*')).toEqual([]);
    const next = await b.lock.acquire('refresh.s1');
    expect(next?.abandoned).toBe(false);
    await next?.release();
  });

  it('a live holder keeps its lock past the TTL, however long it works (timer: renewed every TTL / 3)', async () => {
    // A renewal a loaded machine delivers late still lands within the TTL: 2 s of slack at 3 s.
    const ttl = 3_000;
    const store = new RedisSessionStore({ redis, keyPrefix: 't:', lockTtl: ttl });
    const grant = await store.lock.acquire('refresh.s1');
    const started = Date.now();
    // Two TTLs later the lock is still there (renewed every TTL / 3), and still refused to others.
    await until(
      async () => {
        expect(await redis.exists('t:{refresh.s1}:lock')).toBe(1);
        return Date.now() - started > 2 * ttl;
      },
      3 * ttl,
      'two lock TTLs',
    );
    expect(await store.lock.acquire('refresh.s1')).toBeUndefined();
    await grant?.release();
  });

  it('a holder that stops without releasing (died, or in doubt) lets the lock expire, and the next grant says abandoned (timer: a 200 ms lock TTL)', async () => {
    const ttl = 200;
    const store = new RedisSessionStore({ redis, keyPrefix: 't:', lockTtl: ttl });
    const grant = await store.lock.acquire('refresh.s1');
    await grant?.release(true); // stops renewing, deletes nothing
    expect(await redis.exists('t:{refresh.s1}:claim')).toBe(1);
    const next = await acquireWhenFree(store, 'refresh.s1');
    expect(next.abandoned).toBe(true);
    await next.release();
    // Released properly this time: the one after is not told of an abandonment.
    expect((await store.lock.acquire('refresh.s1'))?.abandoned).toBe(false);
  });

  it('a holder cannot release a lock it lost to the next holder (timer: a 200 ms lock TTL)', async () => {
    const ttl = 200;
    const store = new RedisSessionStore({ redis, keyPrefix: 't:', lockTtl: ttl });
    const first = await store.lock.acquire('refresh.s1');
    await first?.release(true);
    const second = await acquireWhenFree(store, 'refresh.s1');
    await first?.release(); // too late: the lock is the second holder's
    expect(await store.lock.acquire('refresh.s1')).toBeUndefined();
    await second.release();
  });

  it('refuses lock options out of range with invalid_options', () => {
    expect(() => new RedisSessionStore({ redis, lockTtl: 0 })).toThrow(expect.objectContaining({ code: 'invalid_options' }));
    expect(() => new RedisSessionStore({ redis, lockWait: 1.5 })).toThrow(expect.objectContaining({ code: 'invalid_options' }));
  });
});
