// The session layer's refresh records over real HTTP (one app, the reference server): a refresh
// refused by the provider ends every copy of the session without the token being sent again,
// and a record in the store that is not this session's own (garbage, another session's copied
// over) is no evidence: the session refreshes as usual.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../src/index';
import { Agent, type SessionWorld, startSessionWorld } from './support/session-app';

let world: SessionWorld;

beforeAll(async () => {
  world = await startSessionWorld();
});
afterAll(() => world?.close());

describe('refresh records', () => {
  it('a refresh the provider refuses ends the session for every copy of the cookie: the token is not sent again', async () => {
    world.use();
    const agent = new Agent(world.appOrigin);
    await agent.logIn();
    const copy = agent.cookieHeader();
    // The provider refuses the client (its secret rotated): the refresh fails with a 401.
    await world.control.clients.update('web', { client_secret: 'rotated-secret-of-the-web-client' });
    try {
      const before = world.count('POST', '/oauth/token');
      const first = await agent.json<{ error: string }>('/token?force');
      expect(first.status).toBe(401);
      expect(world.count('POST', '/oauth/token')).toBe(before + 1);
      // Even with the client fixed, the copy of the cookie never spends that refresh token again.
      await world.control.clients.update('web', { client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
      const again = await fetch(`${world.appOrigin}/state`, { headers: { cookie: copy, accept: 'application/json' } });
      expect(await again.json()).toEqual({ signedIn: true, reason: null, error: null }); // not due: nothing to refresh
      const forced = await fetch(`${world.appOrigin}/token?force`, { headers: { cookie: copy } });
      expect(forced.status).toBe(401);
      expect(await forced.json()).toEqual({ error: 'login_required' });
      expect(world.count('POST', '/oauth/token')).toBe(before + 1);
    } finally {
      await world.control.clients.update('web', { client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
    }
  });

  it('a record in the store that is not this session\'s own is ignored: the session refreshes as usual', async () => {
    const store = new MemorySessionStore();
    world.use({ store });
    const victim = new Agent(world.appOrigin);
    await victim.logIn();
    const other = new Agent(world.appOrigin);
    await other.logIn();
    const { body: me } = await victim.json<{ id: string; accessToken: string }>('/me');
    const { body: them } = await other.json<{ id: string }>('/me');
    // The other session refreshes, so it has a record; it is copied over the victim's, and garbage tried too.
    await other.json('/token?force');
    const theirs = await store.get(`refresh.${them.id}`);
    expect(theirs).toEqual(expect.any(String));
    for (const planted of [theirs as string, 'not-a-record']) {
      await store.set(`refresh.${me.id}`, planted, 3600);
      const before = world.count('POST', '/oauth/token');
      const { status, body } = await victim.json<{ accessToken: string }>('/token?force');
      expect(status).toBe(200);
      expect(body.accessToken).not.toBe(me.accessToken);
      expect(world.count('POST', '/oauth/token')).toBe(before + 1);
    }
  });
});
