// A web app run as three separate Node processes on one real Redis, as the instances of a
// service are, in front of the reference server (itself on Redis). One browser's session has
// an expired access token and 60 of its requests arrive at once, spread over the three: the
// provider sees exactly one refresh grant and every request gets its new token. When the
// instance refreshing is killed (SIGKILL) while the provider is slow, the others never send the
// refresh token again (a reuse would revoke the family at the provider): they end the session
// within the lock's TTL. In cookie mode, a stale cookie takes the newer tokens from the shared
// record instead of spending its used refresh token.
import { type RedisClientType, createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { demoConfig } from '@oidc-rp/reference-server';
import { type Instance, assertDistIsCurrent, killAllInstances, startProcess } from './support/fleet';
import { type RunningServer, startReferenceServer } from './support/reference-server';
import { Agent } from './support/session-app';
import { type RunningRedis, startRedisServer } from '../../../test-support/redis-server';

type Message = { type: 'ready'; origin: string } | { type: 'refreshing' } | { type: 'lock-busy' } | { type: 'advanced' };
type App = Instance<Message> & { origin: string };

const LOCK_TTL = 2_000;
// Both clocks (the provider's and the apps') move on by this much: every access token of the
// demo tenant (an hour) has expired, the refresh token (30 days) has not.
const LATER = 7_200;

let redisServer: RunningRedis;
let server: RunningServer;
let redis: RedisClientType;

beforeAll(async () => {
  assertDistIsCurrent();
  redisServer = await startRedisServer();
  const config = demoConfig();
  config.store = { type: 'redis', url: redisServer.url, prefix: 'fleet:server:', key_encryption_secret: 'OYdvo5CQzkvJYNMPn8MyFXs3EP3rXLFI' };
  const web = config.tenants[0]?.clients?.find((c) => c.client_id === 'web');
  if (web) web.skip_consent = true;
  server = await startReferenceServer(config);
  redis = createClient({ url: redisServer.url });
  redis.on('error', () => undefined);
  await redis.connect();
});
afterEach(async () => {
  await killAllInstances();
  await server.control.transport.clear();
  await server.control.clock.reset();
});
afterAll(async () => {
  redis?.destroy();
  await server?.close();
  await redisServer?.stop();
});

async function startFleet(mode: 'store' | 'cookie' | 'cookie-alone', extra: { LOCK_TTL?: string; ON_REFRESH?: 'wait' } = {}, size = 3): Promise<App[]> {
  const env = { REDIS_URL: redisServer.url, ISSUER: server.issuer, MODE: mode, ...extra };
  const fleet = await Promise.all(
    Array.from({ length: size }, async () => {
      const instance = await startProcess<Message>('session-fleet-instance.mjs', env);
      return Object.assign(instance, { origin: (await instance.next('ready')).origin });
    }),
  );
  await server.control.clients.update('web', { redirect_uris: fleet.map((app) => `${app.origin}/auth/callback`) });
  return fleet;
}

/** Moves the provider's clock and every app's on by `seconds`. */
async function advance(fleet: App[], seconds: number): Promise<void> {
  await server.control.clock.advance(seconds);
  const advanced = (app: App) => app.messages.filter((m) => m.type === 'advanced').length;
  await Promise.all(
    fleet.map(async (app) => {
      const seen = advanced(app);
      app.send({ type: 'advance', seconds });
      await until(() => advanced(app) > seen, 10_000, 'an app to move its clock');
    }),
  );
}

async function tokenAt(app: App, cookie: string): Promise<{ status: number; body: { accessToken?: string; error?: string; cause?: string }; setCookie: string[] }> {
  const response = await fetch(`${app.origin}/token`, { headers: { cookie, accept: 'application/json' } });
  return { status: response.status, body: await response.json(), setCookie: response.headers.getSetCookie() };
}

const refreshGrants = () => server.control.requests.list({ path: '/oauth/token', grant_type: 'refresh_token' });
const refreshingReports = (fleet: App[]) => fleet.flatMap((app) => app.messages).filter((m) => m.type === 'refreshing').length;

/** Polls `condition` until it holds, for at most `ms`. */
async function until(condition: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function logIn(app: App): Promise<{ cookie: string; accessToken: string }> {
  const agent = new Agent(app.origin);
  const callback = await agent.logIn();
  expect(callback.status).toBe(303);
  const cookie = agent.cookieHeader();
  const { body } = await tokenAt(app, cookie);
  return { cookie, accessToken: body.accessToken as string };
}

/** 20 requests at each app at once, all with the same cookie. */
function burst(fleet: App[], cookie: string) {
  return fleet.map((app) => Array.from({ length: 20 }, () => tokenAt(app, cookie)));
}

function cookieFrom(setCookie: string[]): string {
  return setCookie.map((line) => line.split(';')[0]).join('; ');
}

describe('sessions across a fleet of processes on one Redis', () => {
  it('store mode: 60 concurrent requests over three processes with an expired access token cause exactly one refresh grant', async () => {
    const fleet = await startFleet('store', { ON_REFRESH: 'wait' });
    const { cookie, accessToken: old } = await logIn(fleet[0] as App);
    await advance(fleet, LATER);
    const grantsBefore = (await refreshGrants()).length;

    const pending = Promise.all(burst(fleet, cookie).flat());
    // The race is real: the refresh grant is held back until the two other processes have found
    // the session's lock taken (the holder is whichever process got it first).
    const holder = await Promise.race(fleet.map((app, index) => app.next('refreshing').then(() => index)));
    await Promise.all(fleet.filter((_, index) => index !== holder).map((app) => app.next('lock-busy')));
    (fleet[holder] as App).send({ type: 'proceed' });
    const answers = await pending;

    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    const tokens = new Set(answers.map((a) => a.body.accessToken));
    expect(tokens.size).toBe(1);
    expect(tokens.has(old)).toBe(false);
    expect((await refreshGrants()).length - grantsBefore).toBe(1);
    expect(refreshingReports(fleet)).toBe(1);
    // Every instance reads the refreshed session from Redis afterwards: no more grants.
    const again = await Promise.all(fleet.map((app) => tokenAt(app, cookie)));
    expect(again.map((a) => a.body.accessToken)).toEqual(again.map(() => [...tokens][0]));
    expect((await refreshGrants()).length - grantsBefore).toBe(1);
  });

  it('store mode: the refreshing process killed (SIGKILL) while the provider is slow: no reuse of its refresh token, the others end the session within the lock TTL (timer: the 2 s lock TTL against 4 s of provider latency)', async () => {
    const fleet = await startFleet('store', { LOCK_TTL: String(LOCK_TTL) });
    const { cookie } = await logIn(fleet[0] as App);
    await advance(fleet, LATER);
    const grantsBefore = (await refreshGrants()).length;
    const sentBefore = server.count('POST', '/oauth/token');
    // The provider holds the next token request for 4 s before answering it (and redeeming the token).
    await server.control.transport.set('/oauth/token', { latencyMs: 4_000 }, { times: 1 });

    const requests = burst(fleet, cookie).map((group) => group.map((answer) => answer.catch(() => 'dropped' as const)));
    const holder = await Promise.race(fleet.map((app, index) => app.next('refreshing').then(() => index)));
    // Its refresh grant has reached the provider (which is sitting on it): kill it now.
    await until(() => server.count('POST', '/oauth/token') > sentBefore, 10_000, 'the refresh grant to reach the provider');
    const killedAt = Date.now();
    await (fleet[holder] as App).kill();

    const survivors = await Promise.all(requests.filter((_, index) => index !== holder).flat());
    const recoveredIn = Date.now() - killedAt;
    // Every request of the live instances is answered: signed out, because the dead holder may
    // have spent the refresh token (it did: the provider redeems it once its latency is over).
    // The requests that met the refresh say why; one that a loaded machine delivered after the
    // session had ended finds no session at all.
    for (const answer of survivors) {
      expect(answer).not.toBe('dropped');
      if (answer === 'dropped') continue;
      expect(answer.status).toBe(401);
      expect([{ error: 'login_required', cause: 'session_refresh_interrupted' }, { error: 'login_required', cause: null }]).toContainEqual(answer.body);
    }
    expect(survivors).toContainEqual(expect.objectContaining({ body: { error: 'login_required', cause: 'session_refresh_interrupted' } }));
    // The stated bound is LOCK_TTL after the holder's last renewal (plus a poll of at most 250 ms);
    // the margin is for a loaded machine.
    expect(recoveredIn).toBeLessThan(LOCK_TTL + 8_000);

    // The provider finishes the dead holder's grant: one refresh, never a second with that token.
    await until(async () => (await refreshGrants()).length > grantsBefore, 15_000, 'the slow refresh to finish');
    const grants = (await refreshGrants()).slice(grantsBefore);
    expect(grants).toHaveLength(1);
    expect(grants[0]?.status).toBe(200);
    expect(server.count('POST', '/oauth/token') - sentBefore).toBe(1);
    expect(refreshingReports(fleet)).toBe(1);
    // Later requests with that cookie stay signed out, and send nothing to the provider.
    const later = await Promise.all(fleet.filter((_, index) => index !== holder).map((app) => tokenAt(app, cookie)));
    expect(later.map((a) => a.status)).toEqual([401, 401]);
    expect(server.count('POST', '/oauth/token') - sentBefore).toBe(1);
  });

  it('cookie mode with a refreshStore: one refresh for the fleet, and a stale cookie coming back later takes the newer tokens', async () => {
    const fleet = await startFleet('cookie');
    const { cookie: stale } = await logIn(fleet[0] as App);
    await advance(fleet, LATER);
    const grantsBefore = (await refreshGrants()).length;

    const answers = await Promise.all(burst(fleet, stale).flat());
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    const tokens = new Set(answers.map((a) => a.body.accessToken));
    expect(tokens.size).toBe(1);
    expect((await refreshGrants()).length - grantsBefore).toBe(1);
    const fresh = cookieFrom((answers[0] as { setCookie: string[] }).setCookie);
    expect(fresh).not.toBe('');

    // A minute later (past the old 30 s grace), the stale cookie comes back at another instance:
    // it is answered with the newest tokens, and its spent refresh token is not sent.
    await advance(fleet, 60);
    const back = await tokenAt(fleet[2] as App, stale);
    expect(back.status).toBe(200);
    expect(tokens.has(back.body.accessToken)).toBe(true);
    expect((await refreshGrants()).length - grantsBefore).toBe(1);
    // And the newest cookie still works: the provider saw no reuse, so it revoked nothing.
    await advance(fleet, LATER);
    const next = await tokenAt(fleet[1] as App, fresh);
    expect(next.status).toBe(200);
    expect(tokens.has(next.body.accessToken)).toBe(false);
    const grants = (await refreshGrants()).slice(grantsBefore);
    expect(grants.map((g) => g.status)).toEqual([200, 200]);
  });

  it('cookie mode without a store: one process remembers its refreshes, so a stale cookie back at it spends nothing', async () => {
    // One process is the whole point (about 0.9 s of CPU each to start): nothing is shared.
    const fleet = await startFleet('cookie-alone', {}, 1);
    const app = fleet[0] as App;
    const { cookie: stale } = await logIn(app);
    await advance(fleet, LATER);
    const grantsBefore = (await refreshGrants()).length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => tokenAt(app, stale)));
    expect(new Set(answers.map((a) => a.body.accessToken)).size).toBe(1);
    await advance(fleet, 60);
    const back = await tokenAt(app, stale);
    expect(back.body.accessToken).toBe(answers[0]?.body.accessToken);
    expect((await refreshGrants()).length - grantsBefore).toBe(1);
  });
});
