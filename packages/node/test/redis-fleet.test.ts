// Separate Node processes sharing one real Redis, as the instances of a service do: a
// cold cache causes one token request for the whole fleet (counted at the reference
// server), and when the instance holding the lock is killed mid-request another one
// takes over once the lock expires.
import { type RedisClientType, createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Instance, assertDistIsCurrent, killAllInstances, startInstance } from './support/fleet';
import { type RunningServer, startReferenceServer } from './support/reference-server';
import { type RunningRedis, startRedisServer } from '../../../test-support/redis-server';

let redisServer: RunningRedis;
let server: RunningServer;
let redis: RedisClientType;

beforeAll(async () => {
  assertDistIsCurrent();
  redisServer = await startRedisServer();
  server = await startReferenceServer();
  redis = createClient({ url: redisServer.url });
  redis.on('error', () => undefined);
  await redis.connect();
});
afterEach(async () => {
  await killAllInstances();
  await redis.flushAll();
});
afterAll(async () => {
  redis?.destroy();
  await Promise.all([redisServer?.stop(), server?.close()]);
});

const tokenRequests = () => server.count('POST', '/oauth/token');

function env(extra: { LOCK_TTL?: string; LOCK_WAIT?: string; ON_REQUEST?: 'send' | 'wait' | 'hang' } = {}) {
  return { REDIS_URL: redisServer.url, ISSUER: server.issuer, ...extra };
}

async function tokensOf(instances: Instance[]): Promise<string[]> {
  return Promise.all(
    instances.map(async (instance) => {
      const result = await Promise.race([instance.next('token'), instance.next('error')]);
      if (result.type === 'error') throw new Error(`an instance failed with ${result.code}`);
      return result.accessToken;
    }),
  );
}

describe('a fleet of processes on one Redis', () => {
  it('four processes on a cold cache cause exactly one token request, and all get that token', async () => {
    // A lock that outlives any pause of a busy machine: this test is about single flight; lock
    // expiry has its own test below. (With the 10 s default, a waiter on an overloaded machine
    // could give up waiting and request a second token.)
    const fleet = await Promise.all([1, 2, 3, 4].map(() => startInstance(env({ ON_REQUEST: 'wait', LOCK_TTL: '60000' }))));
    expect(await redis.dbSize()).toBe(0);
    const before = tokenRequests();

    for (const instance of fleet) instance.send({ type: 'go' });
    // Every process decides: it requests (holding the lock) or finds the lock taken. The
    // holder's request is held back until all four have decided, so the race is real.
    const decisions = fleet.map((instance) => Promise.race([instance.next('requesting'), instance.next('lock-busy')]));
    const decided = await Promise.all(decisions);
    expect(decided.filter((m) => m.type === 'requesting')).toHaveLength(1);
    expect(decided.filter((m) => m.type === 'lock-busy')).toHaveLength(3);
    for (const instance of fleet) instance.send({ type: 'proceed' });

    const tokens = await tokensOf(fleet);
    expect(new Set(tokens).size).toBe(1);
    expect(tokenRequests() - before).toBe(1);
    expect(fleet.flatMap((i) => i.messages).filter((m) => m.type === 'requesting')).toHaveLength(1);
    expect(await redis.keys('*:lock')).toEqual([]);
  });

  it('when the lock holder is killed mid-request, another process takes over after the lock expires: one request', async () => {
    const lockTtl = 1_500;
    const holder = await startInstance(env({ LOCK_TTL: String(lockTtl), ON_REQUEST: 'hang' }));
    // The waiters wait as long as the test may run: whichever takes the expired lock over
    // keeps it (renewed) however slow its request on a busy machine, and the other one waits
    // for its token. With a short lockWait, the other one would give up and request beside it
    // once the takeover's request outlasts the rest of its wait.
    const waiters = await Promise.all([1, 2].map(() => startInstance(env({ LOCK_TTL: String(lockTtl), LOCK_WAIT: '60000' }))));
    const before = tokenRequests();

    holder.send({ type: 'go' });
    await holder.next('requesting'); // it holds the lock; its request never completes
    const [lockKey] = await redis.keys('*:lock');
    expect(await redis.pTTL(lockKey as string)).toBeLessThanOrEqual(lockTtl);
    for (const waiter of waiters) waiter.send({ type: 'go' });
    await Promise.all(waiters.map((waiter) => waiter.next('lock-busy')));
    await holder.kill();

    // Only a waiter taking the expired lock over can get a token (none gives up waiting), and
    // one request means the other waited for it: the lock stayed with the live new holder.
    const tokens = await tokensOf(waiters);
    expect(new Set(tokens).size).toBe(1);
    expect(tokenRequests() - before).toBe(1);
    expect(waiters.flatMap((w) => w.messages).filter((m) => m.type === 'requesting')).toHaveLength(1);
    expect(holder.messages.some((m) => m.type === 'token')).toBe(false);
  });
});
