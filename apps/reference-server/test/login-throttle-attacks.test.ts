// Attacks on the login throttle over real HTTP (issue 23, items 2 and 9): bursts of parallel
// guesses against a real redis-server, on one instance and on a fleet of two, and on the memory
// store, compare no more passwords than the limit; a stranger's guesses lock a user out only
// for the stranger's address. Guards: a normal login on the Redis store, and a success after a
// few typos.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createReferenceServer, demoConfig, type ReferenceServer, type ServerConfig } from '../src/index';
import { PAIR_FAILURE_LIMIT, THROTTLE_WINDOW_SECONDS, USER_FAILURE_LIMIT } from '../src/oauth/throttle';
import { startRedisServer, type RunningRedis } from '../../../test-support/redis-server';
import { authorizeUrl, Clock, webParams } from './helpers';
import { redisConfig, startFleet, type Fleet } from './support/fleet';
import { type Browser, browser, openLogin } from './support/http-browser';

const BURST = 60;
let redis: RunningRedis;
let prefix = 0;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

interface Running {
  issuer: string;
  logs: string[];
}

async function serve(config: ServerConfig, options: { trustProxy?: boolean; now?: () => number } = {}): Promise<Running & { server: ReferenceServer }> {
  const logs: string[] = [];
  const log = (m: string) => logs.push(m);
  const server = await createReferenceServer(config, { logger: { info: log, warn: log, error: log }, ...options });
  const { origin } = await server.listen({ port: 0 });
  closers.push(() => server.close());
  return { server, issuer: `${origin}/demo`, logs };
}

function onRedis(): ServerConfig {
  prefix += 1;
  return redisConfig(redis.url, `throttle-attack-${prefix}:`);
}

/** A prepared guess: an interaction opened in its own browser, ready to post. */
interface Prepared {
  b: Browser;
  post: (password: string) => Promise<Response>;
}

async function prepare(issuer: string, username: string, route: (request: Request) => Request = (r) => r): Promise<Prepared> {
  const b = browser(undefined, (request) => fetch(route(request)));
  const { interaction, csrf, action } = await openLogin(b, authorizeUrl(webParams(), issuer));
  return { b, post: (password) => b.go(action, { form: { interaction, csrf, username, password, action: 'login' } }) };
}

/** Opens `count` interactions first, then fires every guess at once: the burst of the review. */
async function burst(prepared: Prepared[], passwordOf: (i: number) => string): Promise<number[]> {
  const answers = await Promise.all(prepared.map((p, i) => p.post(passwordOf(i))));
  return answers.map((r) => r.status);
}

/** Passwords the server compared: each wrong one is logged once, each right one is a 302 to consent. */
function compared(logs: string[], statuses: number[]): number {
  return logs.filter((l) => l.includes('failed sign-in for user alice')).length + statuses.filter((s) => s === 302).length;
}

describe('a burst of parallel guesses compares no more passwords than the limit (item 2)', () => {
  it(`Redis store, one instance: ${BURST} parallel wrong guesses compare at most ${PAIR_FAILURE_LIMIT}`, async () => {
    const { issuer, logs } = await serve(onRedis());
    const prepared = await Promise.all(Array.from({ length: BURST }, () => prepare(issuer, 'alice')));
    const statuses = await burst(prepared, (i) => `guess-${i}`);
    expect(compared(logs, statuses)).toBeLessThanOrEqual(PAIR_FAILURE_LIMIT);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(BURST - PAIR_FAILURE_LIMIT);
  });

  it('Redis store: the right password hidden in a burst after the limit was used up does not sign in', async () => {
    const { issuer, logs } = await serve(onRedis());
    // The attacker spends the allowance first, then bursts with the right password in every tenth slot.
    for (let i = 0; i < PAIR_FAILURE_LIMIT - 1; i++) expect((await (await prepare(issuer, 'alice')).post(`first-${i}`)).status).toBe(200);
    const prepared = await Promise.all(Array.from({ length: BURST }, () => prepare(issuer, 'alice')));
    const statuses = await burst(prepared, (i) => (i % 10 === 9 ? 'wonderland' : `guess-${i}`));
    const before = PAIR_FAILURE_LIMIT - 1;
    expect(compared(logs, statuses) - before).toBeLessThanOrEqual(1);
    // At most the one remaining attempt could have been the right password.
    expect(statuses.filter((s) => s === 302).length).toBeLessThanOrEqual(1);
  });

  it(`Redis fleet of two instances: ${BURST} parallel guesses split across both compare at most ${PAIR_FAILURE_LIMIT}`, async () => {
    const fleet: Fleet = await startFleet(onRedis());
    closers.push(() => fleet.close());
    const pin = (instance: string) => (request: Request) => {
      request.headers.set('x-instance', instance);
      return request;
    };
    const prepared = await Promise.all(Array.from({ length: BURST }, (_, i) => prepare(fleet.issuer, 'alice', pin(i % 2 === 0 ? 'a' : 'b'))));
    const statuses = await burst(prepared, (i) => `guess-${i}`);
    const logs = [...fleet.a.logs, ...fleet.b.logs];
    expect(logs.filter((l) => l.includes('failed sign-in for user alice')).length).toBeLessThanOrEqual(PAIR_FAILURE_LIMIT);
    expect(statuses.filter((s) => s !== 429).length).toBeLessThan(PAIR_FAILURE_LIMIT);
  });

  it(`memory store: ${BURST} parallel wrong guesses compare at most ${PAIR_FAILURE_LIMIT}`, async () => {
    const { issuer, logs } = await serve(demoConfig());
    const prepared = await Promise.all(Array.from({ length: BURST }, () => prepare(issuer, 'alice')));
    const statuses = await burst(prepared, (i) => `guess-${i}`);
    expect(compared(logs, statuses)).toBeLessThanOrEqual(PAIR_FAILURE_LIMIT);
  });

  it('guard: a normal login on the Redis store signs in, and after two typos the right password still does', async () => {
    const { issuer } = await serve(onRedis());
    const ok = await (await prepare(issuer, 'alice')).post('wonderland');
    expect(ok.status).toBe(302);
    expect(new URL(ok.headers.get('location') ?? '').pathname).toBe('/demo/oidc/consent');
    const typos = await prepare(issuer, 'alice');
    expect((await typos.post('wonderlnad')).status).toBe(200);
    expect((await typos.post('wonderlan')).status).toBe(200);
    expect((await typos.post('wonderland')).status).toBe(302);
  });
});

describe('a stranger cannot lock a user out everywhere with a few guesses (item 9)', () => {
  const from = (address: string) => (request: Request) => {
    request.headers.set('x-forwarded-for', address);
    return request;
  };

  async function guess(issuer: string, address: string, password: string): Promise<number> {
    return (await (await prepare(issuer, 'alice', from(address))).post(password)).status;
  }

  it(`${PAIR_FAILURE_LIMIT} guesses from one address lock alice for that address only; she signs in from hers`, async () => {
    const config = demoConfig();
    for (const tenant of config.tenants) tenant.demo_login = false;
    const { issuer } = await serve(config, { trustProxy: true });
    for (let i = 0; i < PAIR_FAILURE_LIMIT; i++) await guess(issuer, '203.0.113.66', `guess-${i}`);
    expect(await guess(issuer, '203.0.113.66', 'wonderland')).toBe(429);
    expect(await guess(issuer, '198.51.100.20', 'wonderland')).toBe(302);
  });

  it(`guesses from many addresses lock the user everywhere after ${USER_FAILURE_LIMIT}, for one window`, async () => {
    const config = demoConfig();
    for (const tenant of config.tenants) tenant.demo_login = false;
    const clock = new Clock();
    const { issuer } = await serve(config, { trustProxy: true, now: clock.now });
    const statuses: number[] = [];
    for (let i = 0; i < USER_FAILURE_LIMIT; i++) statuses.push(await guess(issuer, `203.0.113.${i}`, `guess-${i}`));
    expect(statuses.slice(0, USER_FAILURE_LIMIT - 1).every((s) => s === 200)).toBe(true);
    expect(statuses[USER_FAILURE_LIMIT - 1]).toBe(429);
    expect(await guess(issuer, '198.51.100.20', 'wonderland')).toBe(429);
    clock.advance(THROTTLE_WINDOW_SECONDS + 1);
    expect(await guess(issuer, '198.51.100.20', 'wonderland')).toBe(302);
  });
});
