// A session ended while one of its refreshes waits on the provider must stay ended: the refresh's
// write-back may not bring it back. Over real HTTP (the app and the reference server on
// 127.0.0.1), with the memory store and with a RedisSessionStore (the fleet's store, so also its
// shared refresh lock): the refresh is held after the provider answered, the session is ended
// (revokeSession, RP logout with revokeOnLogout: false, back-channel logout), then the refresh finishes.
import { type RedisClientType, createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySessionStore, type SessionAuth, type SessionStore } from '../src/index';
import { RedisSessionStore } from '../src/redis/index';
import { type RunningRedis, startRedisServer } from '../../../test-support/redis-server';
import { Agent, type SessionWorld, startSessionWorld } from './support/session-app';

let world: SessionWorld;
let redisServer: RunningRedis;
let redis: RedisClientType;

beforeAll(async () => {
  world = await startSessionWorld({ accessTokenLifetime: 120 });
  redisServer = await startRedisServer();
  redis = createClient({ url: redisServer.url });
  await redis.connect();
});
afterAll(async () => {
  redis?.destroy();
  await redisServer?.stop();
  await world?.close();
});

const stores: Array<[string, () => SessionStore]> = [
  ['memory store', () => new MemorySessionStore()],
  ['Redis store', () => new RedisSessionStore({ redis, keyPrefix: `ended-${crypto.randomUUID()}:` })],
];

async function signedIn(): Promise<{ agent: Agent; id: string; csrf: string }> {
  const agent = new Agent(world.appOrigin);
  await agent.logIn();
  const { body } = await agent.json<{ id: string; csrfToken: string }>('/me');
  return { agent, id: body.id, csrf: body.csrfToken };
}

/** Starts a forced refresh of the agent's session and resolves once the provider has answered it (the write-back is held). */
async function refreshHeld(agent: Agent): Promise<{ finish(): Promise<Response> }> {
  const hold = world.holdTokenResponses();
  const pending = agent.request('/token?force');
  await hold.reached;
  return {
    finish: async () => {
      hold.release();
      return pending;
    },
  };
}

describe.each(stores)('L1: a session ended during its refresh stays ended (%s)', (_name, makeStore) => {
  let store: SessionStore;
  let auth: SessionAuth;

  it('revokeSession while the refresh waits: the write-back does not bring the session back', async () => {
    store = makeStore();
    auth = world.use({ store, idpLogout: false });
    const { agent, id } = await signedIn();
    const copy = agent.cookieHeader();
    const refresh = await refreshHeld(agent);
    await auth.revokeSession(id);
    const answer = await refresh.finish();
    // The request that refreshed learns the session is gone, and its cookie is cleared.
    expect(answer.status).toBe(401);
    expect(await store.get(id)).toBeUndefined();
    const later = await fetch(`${world.appOrigin}/state`, { headers: { cookie: copy } });
    expect(await later.json()).toEqual({ signedIn: false, reason: 'revoked', error: null });
  });

  it('RP logout (revokeOnLogout: false) while the refresh waits: the session stays ended', async () => {
    store = makeStore();
    world.use({ store, idpLogout: false, revokeOnLogout: false });
    const { agent, id, csrf } = await signedIn();
    const copy = agent.cookieHeader();
    const refresh = await refreshHeld(agent);
    const logout = await fetch(`${world.appOrigin}/auth/logout`, { method: 'POST', headers: { cookie: copy, 'x-csrf-token': csrf }, redirect: 'manual' });
    expect(logout.status).toBe(303);
    await refresh.finish();
    expect(await store.get(id)).toBeUndefined();
    const later = await fetch(`${world.appOrigin}/state`, { headers: { cookie: copy } });
    expect(await later.json()).toEqual({ signedIn: false, reason: 'revoked', error: null });
  });

  it("back-channel logout (the provider ends the user's sign-ins) while the refresh waits: the session stays ended", async () => {
    store = makeStore();
    world.use({ store, idpLogout: false, backchannelLogout: { clientId: 'web' } });
    await world.control.clients.update('web', { backchannel_logout_uri: `${world.appOrigin}/auth/backchannel-logout` });
    try {
      const { agent, id } = await signedIn();
      const copy = agent.cookieHeader();
      const refresh = await refreshHeld(agent);
      const ended = await world.control.sessions.end('alice');
      expect(JSON.stringify(ended)).toMatch(/"status":200/);
      expect(await store.get(id)).toBeUndefined();
      await refresh.finish();
      expect(await store.get(id)).toBeUndefined();
      const later = await fetch(`${world.appOrigin}/state`, { headers: { cookie: copy } });
      expect(await later.json()).toEqual({ signedIn: false, reason: 'revoked', error: null });
    } finally {
      await world.control.clients.update('web', { backchannel_logout_uri: null });
    }
  });

  it('a refresh of a session nobody ended is written back as before', async () => {
    store = makeStore();
    world.use({ store, idpLogout: false });
    const { agent, id } = await signedIn();
    const before = await store.get(id);
    const refresh = await refreshHeld(agent);
    expect((await refresh.finish()).status).toBe(200);
    const after = await store.get(id);
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    expect((await agent.json('/state')).body).toEqual({ signedIn: true, reason: null, error: null });
  });
});
