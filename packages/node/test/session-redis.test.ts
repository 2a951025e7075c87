// The session layer on a real Redis (Debian's redis-server on a free port): sessions live in
// Redis and survive an app restart; while Redis is down, reads fail with a clear 503 and
// nobody is signed out; after Redis comes back (empty, as the test server keeps nothing), the
// lost session is signed out as `revoked` and a new login works on the same connection.
import { type RedisClientType, createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisSessionStore } from '../src/redis/index';
import { type RunningRedis, startRedisServer } from '../../../test-support/redis-server';
import { Agent, type SessionWorld, startSessionWorld } from './support/session-app';

let redisServer: RunningRedis;
let world: SessionWorld;
let redis: RedisClientType;

beforeAll(async () => {
  [redisServer, world] = await Promise.all([startRedisServer(), startSessionWorld()]);
  redis = createClient({ url: redisServer.url, disableOfflineQueue: true });
  redis.on('error', () => undefined); // reconnects on its own; failures reach the store as errors
  await redis.connect();
});
afterAll(async () => {
  redis?.destroy();
  await Promise.all([redisServer?.stop(), world?.close()]);
});

/** Waits (bounded) until the client has reconnected after a restart. */
async function reconnected(): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!redis.isReady) {
    if (Date.now() > deadline) throw new Error('the redis client did not reconnect within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('RedisSessionStore', () => {
  it('keeps the session in Redis, sealed, behind a small cookie; another app instance reads it', async () => {
    world.use({ store: new RedisSessionStore({ redis, keyPrefix: 'test:session:' }) });
    const agent = new Agent(world.appOrigin);
    const callback = await agent.logIn();
    const cookies = callback.headers.getSetCookie().filter((c) => c.startsWith('oidc-rp.session'));
    expect(cookies).toHaveLength(1);

    const { body } = await agent.json<{ id: string; accessToken: string }>('/me');
    const stored = await redis.get(`test:session:${body.id}`);
    expect(stored).toEqual(expect.any(String));
    expect(stored).not.toContain(body.accessToken);
    expect(stored).not.toContain('alice');
    const ttl = await redis.ttl(`test:session:${body.id}`);
    expect(ttl).toBeGreaterThan(86_000);
    expect(ttl).toBeLessThanOrEqual(86_400);

    // A restarted app (a new session layer, same secret, same Redis) still knows the user.
    world.use({ store: new RedisSessionStore({ redis, keyPrefix: 'test:session:' }) });
    expect((await agent.json('/state')).body).toMatchObject({ signedIn: true });
  });

  it('through a Redis restart: 503 while down (cookie kept), signed out as revoked after, then a new login works', async () => {
    world.use({ store: new RedisSessionStore({ redis, keyPrefix: 'test:session:', commandTimeout: 500 }) });
    const agent = new Agent(world.appOrigin);
    await agent.logIn();
    const cookie = agent.cookieHeader();
    expect((await agent.json('/me')).status).toBe(200);

    await redisServer.stop();
    const down = await agent.json<{ error: string; message: string }>('/me');
    expect(down.status).toBe(503);
    expect(down.body.error).toBe('session_store_unavailable');
    expect(down.body.message).toContain('stays signed in once it is back');
    expect(down.response.headers.getSetCookie()).toEqual([]); // not signed out by the outage
    expect(agent.cookieHeader()).toBe(cookie);

    await redisServer.start();
    await reconnected();
    // The test Redis keeps nothing across a restart: the session is gone, and said so.
    const after = await agent.json('/state');
    expect(after.body).toEqual({ signedIn: false, reason: 'revoked', error: null });
    await agent.logIn();
    expect((await agent.json<{ user: { sub: string } }>('/me')).body.user.sub).toBe('alice');
  });

  it('logout deletes the session from Redis', async () => {
    world.use({ store: new RedisSessionStore({ redis, keyPrefix: 'test:session:' }), idpLogout: false });
    const agent = new Agent(world.appOrigin);
    await agent.logIn();
    const { body } = await agent.json<{ id: string; csrfToken: string }>('/me');
    expect(await redis.exists(`test:session:${body.id}`)).toBe(1);
    const response = await agent.request('/auth/logout', { method: 'POST', headers: { 'x-csrf-token': body.csrfToken } });
    expect(response.status).toBe(303);
    expect(await redis.exists(`test:session:${body.id}`)).toBe(0);
  });
});
