// Back-channel logout at the session layer, over real HTTP: logout tokens end the sessions they
// name (by sid, or all of sub's) in a memory store, on one Redis store shared by two app
// instances, and for cookie-only sessions through a revocation record; every forged, replayed or
// misaddressed token is refused with 400 and ends nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SessionStore, MemorySessionStore, createSessionAuth } from '../src/index';
import { RedisSessionStore } from '../src/redis/index';
import { type AppInstance, type BackchannelWorld, startBackchannelWorld, stateAt } from './support/backchannel-world';
import { Agent } from './support/session-app';

let world: BackchannelWorld;

beforeAll(async () => {
  world = await startBackchannelWorld();
});
afterAll(() => world?.close());

/** Logs a new browser in at `app` (a new provider session, so a new sid). */
async function signIn(app: AppInstance, username = 'alice'): Promise<Agent> {
  const agent = new Agent(app.origin);
  const callback = await agent.logIn({ username });
  expect(callback.status).toBe(303);
  return agent;
}

async function sidOf(agent: Agent, app: AppInstance): Promise<string> {
  const state = await stateAt(app, agent);
  expect(state.signedIn).toBe(true);
  return state.sid as string;
}

function form(token: string): string {
  return new URLSearchParams({ logout_token: token }).toString();
}

async function expectRefused(response: Response, status = 400): Promise<void> {
  expect(response.status).toBe(status);
  expect(response.headers.get('cache-control')).toBe('no-store');
  if (status !== 405) expect(await response.json()).toMatchObject({ error: 'invalid_request', error_description: expect.any(String) });
}

describe('with a memory session store', () => {
  it('a logout token with sid ends that session only; one with sub alone ends all of the user\u2019s', async () => {
    const [app] = world.apps;
    app.use({ store: new MemorySessionStore(), backchannelLogout: { clientId: 'web' } });
    const first = await signIn(app);
    const second = await signIn(app);
    const carol = await signIn(app, 'carol');
    const sid = await sidOf(first, app);
    expect(await sidOf(second, app)).not.toBe(sid);

    const ended = await world.post(app, form(await world.sign(world.claims({ sid, sub: 'alice' }))));
    expect(ended.status).toBe(200);
    expect(ended.headers.get('cache-control')).toBe('no-store');
    expect(await stateAt(app, first)).toMatchObject({ signedIn: false, reason: 'revoked' });
    expect(await stateAt(app, second)).toMatchObject({ signedIn: true });

    const third = await signIn(app);
    expect((await world.post(app, form(await world.sign(world.claims({ sub: 'alice' }))))).status).toBe(200);
    expect(await stateAt(app, second)).toMatchObject({ signedIn: false, reason: 'revoked' });
    expect(await stateAt(app, third)).toMatchObject({ signedIn: false, reason: 'revoked' });
    expect(await stateAt(app, carol)).toMatchObject({ signedIn: true });
  });

  it('refuses every forged, misaddressed or malformed token with 400 and ends nothing', async () => {
    const [app] = world.apps;
    app.use({ store: new MemorySessionStore(), backchannelLogout: { clientId: 'web' } });
    const agent = await signIn(app);
    const sid = await sidOf(agent, app);
    const valid = () => world.claims({ sid, sub: 'alice' });
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const attacks: Record<string, string> = {
      'unsigned (alg none)': `${b64({ alg: 'none', typ: 'logout+jwt' })}.${b64(valid())}.`,
      'signed by a key the provider does not publish': await world.sign(valid(), { key: world.stranger }),
      'the provider\u2019s kid on a stranger\u2019s signature': await world.sign(valid(), { key: world.stranger, header: { kid: world.trusted.kid } }),
      'for another client (aud)': await world.sign({ ...valid(), aud: 'spa' }),
      'from another issuer': await world.sign({ ...valid(), iss: 'https://evil.example/demo' }),
      'carrying a nonce': await world.sign({ ...valid(), nonce: 'abc' }),
      'without events': await world.sign({ ...valid(), events: undefined }),
      'with another event': await world.sign({ ...valid(), events: { 'https://example.com/other': {} } }),
      'without sid and sub': await world.sign({ ...valid(), sid: undefined, sub: undefined }),
      'without jti': await world.sign({ ...valid(), jti: undefined }),
      'issued long ago': await world.sign({ ...valid(), iat: Math.floor(Date.now() / 1000) - 3600, exp: undefined }),
      'expired': await world.sign({ ...valid(), exp: Math.floor(Date.now() / 1000) - 600 }),
      'an access token (typ at+jwt)': await world.sign(valid(), { header: { typ: 'at+jwt' } }),
      'not a JWT': 'not-a-token',
    };
    for (const [name, token] of Object.entries(attacks)) {
      const response = await world.post(app, form(token));
      expect(response.status, name).toBe(400);
      await expectRefused(response);
      expect(await stateAt(app, agent), name).toMatchObject({ signedIn: true });
    }
    // Malformed requests around a valid token.
    const token = await world.sign(valid());
    await expectRefused(await world.post(app, JSON.stringify({ logout_token: token }), 'application/json'));
    await expectRefused(await world.post(app, `${form(token)}&${form(token)}`));
    await expectRefused(await world.post(app, `logout_token=${'a'.repeat(20_000)}`), 413);
    await expectRefused(await fetch(`${app.origin}/auth/backchannel-logout?logout_token=${token}`), 405);
    expect(await stateAt(app, agent)).toMatchObject({ signedIn: true });
  });

  it('refuses a replayed token: a later session of the same user survives it', async () => {
    const [app] = world.apps;
    app.use({ store: new MemorySessionStore(), backchannelLogout: { clientId: 'web' } });
    const before = await signIn(app);
    const token = await world.sign(world.claims({ sub: 'alice' }));
    expect((await world.post(app, form(token))).status).toBe(200);
    expect(await stateAt(app, before)).toMatchObject({ signedIn: false });

    const after = await signIn(app);
    await expectRefused(await world.post(app, form(token)));
    expect(await stateAt(app, after)).toMatchObject({ signedIn: true });
  });

  it('answers only at its path, and only when configured', async () => {
    const [app] = world.apps;
    app.use({ store: new MemorySessionStore() });
    const token = await world.sign(world.claims({ sub: 'alice' }));
    expect((await world.post(app, form(token))).status).toBe(404);
    app.use({ store: new MemorySessionStore(), backchannelLogout: { clientId: 'web', path: '/hooks/bcl' } });
    const response = await fetch(`${app.origin}/hooks/bcl`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form(token) });
    expect(response.status).toBe(200);
  });
});

describe('with cookie-only sessions', () => {
  it('a revocation record in the configured store ends the session at its next read', async () => {
    const [app] = world.apps;
    app.use({ backchannelLogout: { clientId: 'web', store: new MemorySessionStore() } });
    const agent = await signIn(app);
    const other = await signIn(app);
    const sid = await sidOf(agent, app);
    expect((await world.post(app, form(await world.sign(world.claims({ sid }))))).status).toBe(200);
    expect(await stateAt(app, agent)).toMatchObject({ signedIn: false, reason: 'revoked' });
    expect(await stateAt(app, other)).toMatchObject({ signedIn: true });

    expect((await world.post(app, form(await world.sign(world.claims({ sub: 'alice' })))))).toMatchObject({ status: 200 });
    expect(await stateAt(app, other)).toMatchObject({ signedIn: false, reason: 'revoked' });
  });

  it('is refused at setup without a store, or with a store that cannot refuse replays', () => {
    const client = { handleCallback() {} } as unknown as Parameters<typeof createSessionAuth>[0]['client'];
    const secret = 'test-session-mKElDbvyoNPboWVDR0uM6evz2RetW4oy';
    expect(() => createSessionAuth({ client, secret, backchannelLogout: { clientId: 'web' } })).toThrow(/needs a store/);
    const plain: SessionStore = { get: async () => undefined, set: async () => undefined, delete: async () => undefined };
    expect(() => createSessionAuth({ client, secret, backchannelLogout: { clientId: 'web', store: plain } })).toThrow(/setIfAbsent/);
    expect(() => createSessionAuth({ client, secret, store: { ...plain, setIfAbsent: async () => true }, backchannelLogout: { clientId: 'web' } }))
      .toThrow(/addToIndex/);
    expect(() => createSessionAuth({ client, secret, store: new MemorySessionStore(), backchannelLogout: { clientId: '' } })).toThrow(/clientId/);
    expect(() => createSessionAuth({ client, secret, store: new MemorySessionStore(), backchannelLogout: { clientId: 'web', path: 'x' } })).toThrow(/path/);
  });
});

describe('on one Redis store shared by two instances', () => {
  it('a logout token posted to one instance ends the session at the other at once; a replay to either is refused', async () => {
    const [a, b] = world.apps;
    const store = () => new RedisSessionStore({ redis: world.redis, keyPrefix: 'bcl-test:' });
    a.use({ store: store(), backchannelLogout: { clientId: 'web' } });
    b.use({ store: store(), backchannelLogout: { clientId: 'web' } });
    const agent = await signIn(a);
    const other = await signIn(a);
    const sid = await sidOf(agent, b);
    const indexKeys = await world.redis.keys('bcl-test:bcl.sid.*');
    expect(indexKeys.length).toBeGreaterThanOrEqual(2);
    const ttl = await world.redis.ttl(indexKeys[0] as string);
    expect(ttl).toBeGreaterThan(600_000); // the absolute session lifetime (a week by default)

    const token = await world.sign(world.claims({ sid, sub: 'alice' }));
    expect((await world.post(b, form(token))).status).toBe(200);
    expect(await stateAt(a, agent)).toMatchObject({ signedIn: false, reason: 'revoked' });
    expect(await stateAt(b, agent)).toMatchObject({ signedIn: false });
    expect(await stateAt(a, other)).toMatchObject({ signedIn: true });
    await expectRefused(await world.post(a, form(token)));
    await expectRefused(await world.post(b, form(token)));
    expect(await stateAt(a, other)).toMatchObject({ signedIn: true });
  });

  it('ends cookie-only sessions through a revocation record in Redis, seen by both instances', async () => {
    const [a, b] = world.apps;
    const revocations = () => new RedisSessionStore({ redis: world.redis, keyPrefix: 'bcl-cookie-test:' });
    a.use({ backchannelLogout: { clientId: 'web', store: revocations() } });
    b.use({ backchannelLogout: { clientId: 'web', store: revocations() } });
    const agent = await signIn(a);
    const sid = await sidOf(agent, a);
    expect((await world.post(b, form(await world.sign(world.claims({ sid }))))).status).toBe(200);
    expect(await stateAt(a, agent)).toMatchObject({ signedIn: false, reason: 'revoked' });
    expect(await stateAt(b, agent)).toMatchObject({ signedIn: false, reason: 'revoked' });
  });
});
