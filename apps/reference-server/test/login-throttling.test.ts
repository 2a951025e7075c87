// Online password guessing: failures are counted per username and per client address across
// interactions (and across a Redis fleet), a locked account refuses even the right password,
// the lockout ends with its window on the server's clock, and no log line holds a password.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createReferenceServer, demoConfig, type ReferenceServer } from '../src/index';
import { ADDRESS_FAILURE_LIMIT, PAIR_FAILURE_LIMIT, THROTTLE_WINDOW_SECONDS } from '../src/oauth/throttle';
import { startRedisServer, type RunningRedis } from '../../../test-support/redis-server';
import { Clock, WEB_REDIRECT, webParams, authorizeUrl } from './helpers';
import { redisConfig, startFleet, type Fleet } from './support/fleet';
import { browser, openLogin, redirectTo } from './support/http-browser';

const GUESS = 'guess-';

let server: ReferenceServer | undefined;
const logs: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const line of logs) {
    expect(line).not.toContain(GUESS);
    expect(line).not.toContain('wonderland');
    expect(line).not.toMatch(/[A-Za-z0-9_-]{43}/);
  }
  logs.length = 0;
});

async function listening(clock = new Clock(), trustProxy = false): Promise<{ issuer: string; clock: Clock }> {
  const config = demoConfig();
  // Password-less demo sign-in is refused next to trust_proxy.
  if (trustProxy) for (const tenant of config.tenants) tenant.demo_login = false;
  server = await createReferenceServer(config, { now: clock.now, trustProxy, logger: { info: (m) => logs.push(m), warn: (m) => logs.push(m), error: (m) => logs.push(m) } });
  const { origin } = await server.listen({ port: 0 });
  return { issuer: `${origin}/demo`, clock };
}

/** One attempt in a fresh interaction, as an attacker scripting /authorize would do it. */
async function attempt(issuer: string, username: string, password: string, headers: Record<string, string> = {}): Promise<Response> {
  const b = browser();
  const { interaction, csrf, action } = await openLogin(b, authorizeUrl(webParams(), issuer));
  return b.go(action, { form: { interaction, csrf, username, password, action: 'login' }, headers });
}

describe('login throttling (memory store, real HTTP)', () => {
  it('guesses across fresh interactions: only the first few are checked, then the user is locked, even for the right password', async () => {
    // Three times the limit, one after the other: every guess past it meets the lock (a burst
    // of parallel guesses is login-throttle-attacks.test.ts).
    const guesses = 3 * PAIR_FAILURE_LIMIT;
    const { issuer } = await listening();
    const answers: number[] = [];
    for (let i = 0; i < guesses; i++) answers.push((await attempt(issuer, 'alice', `${GUESS}${i}`)).status);
    expect(answers.slice(0, PAIR_FAILURE_LIMIT - 1)).toEqual(Array(PAIR_FAILURE_LIMIT - 1).fill(200));
    expect(answers.slice(PAIR_FAILURE_LIMIT - 1)).toEqual(Array(guesses - PAIR_FAILURE_LIMIT + 1).fill(429));

    const right = await attempt(issuer, 'alice', 'wonderland');
    expect(right.status).toBe(429);
    expect(right.headers.get('set-cookie') ?? '').not.toContain('rs_session');
    const page = await right.text();
    expect(page).toContain('Too many failed sign-in attempts');
    expect(right.headers.get('retry-after')).toBe(String(THROTTLE_WINDOW_SECONDS));
    expect(logs.some((l) => /sign-in locked for user alice from 127\.0\.0\.1/.test(l))).toBe(true);
    expect(logs.filter((l) => l.includes('failed sign-in for user alice')).length).toBe(PAIR_FAILURE_LIMIT);
  });

  it('the locked page takes the user back to the application with access_denied', async () => {
    const { issuer } = await listening();
    for (let i = 0; i < PAIR_FAILURE_LIMIT; i++) await attempt(issuer, 'alice', `${GUESS}${i}`);
    const b = browser();
    const { interaction, csrf, action } = await openLogin(b, authorizeUrl(webParams(), issuer));
    const locked = await b.go(action, { form: { interaction, csrf, username: 'alice', password: 'wonderland', action: 'login' } });
    expect(locked.status).toBe(429);
    const back = await b.go(action, { form: { interaction, csrf, action: 'return' } });
    const location = redirectTo(back);
    expect(`${location.origin}${location.pathname}`).toBe(WEB_REDIRECT);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('st-1');
  });

  it('the lockout ends with its window on the server clock; a success then clears the count', async () => {
    const { issuer, clock } = await listening();
    for (let i = 0; i < PAIR_FAILURE_LIMIT; i++) await attempt(issuer, 'alice', `${GUESS}${i}`);
    expect((await attempt(issuer, 'alice', 'wonderland')).status).toBe(429);
    clock.advance(THROTTLE_WINDOW_SECONDS - 5);
    expect((await attempt(issuer, 'alice', 'wonderland')).status).toBe(429);
    clock.advance(10);
    const ok = await attempt(issuer, 'alice', 'wonderland');
    expect(ok.status).toBe(302);
    expect(new URL(ok.headers.get('location') ?? '').pathname).toBe('/demo/oidc/consent');
    // The count was cleared: another mistake is not a lockout.
    expect((await attempt(issuer, 'alice', `${GUESS}late`)).status).toBe(200);
  });

  it('guessing across many usernames from one address locks the address', async () => {
    const { issuer } = await listening();
    const answers: number[] = [];
    for (let i = 0; i < ADDRESS_FAILURE_LIMIT + 3; i++) answers.push((await attempt(issuer, `user${i}`, `${GUESS}${i}`)).status);
    expect(answers.filter((s) => s === 200)).toHaveLength(ADDRESS_FAILURE_LIMIT - 1);
    expect(answers.slice(ADDRESS_FAILURE_LIMIT - 1).every((s) => s === 429)).toBe(true);
    expect((await attempt(issuer, 'alice', 'wonderland')).status).toBe(429);
    expect(logs.some((l) => l.includes('an unknown username from 127.0.0.1'))).toBe(true);
    for (const line of logs) expect(line).not.toMatch(/user\d+/);
  });
});

describe('login throttling and X-Forwarded-For', () => {
  it('without trust_proxy a forged X-Forwarded-For does not escape the per-address limit', async () => {
    const { issuer } = await listening();
    const answers: number[] = [];
    for (let i = 0; i < ADDRESS_FAILURE_LIMIT + 2; i++) {
      answers.push((await attempt(issuer, `user${i}`, `${GUESS}${i}`, { 'x-forwarded-for': `203.0.113.${i}` })).status);
    }
    expect(answers.slice(ADDRESS_FAILURE_LIMIT - 1).every((s) => s === 429)).toBe(true);
    expect(logs.some((l) => l.includes('203.0.113.'))).toBe(false);
  });

  it("with trust_proxy the proxy's X-Forwarded-For (right-most) is the address that is counted", async () => {
    const { issuer } = await listening(new Clock(), true);
    for (let i = 0; i < ADDRESS_FAILURE_LIMIT; i++) {
      await attempt(issuer, `user${i}`, `${GUESS}${i}`, { 'x-forwarded-for': `198.51.100.7, 203.0.113.9` });
    }
    expect((await attempt(issuer, 'alice', 'wonderland', { 'x-forwarded-for': '203.0.113.9' })).status).toBe(429);
    // Another client behind the same proxy is not locked.
    const other = await attempt(issuer, 'alice', 'wonderland', { 'x-forwarded-for': '203.0.113.10' });
    expect(other.status).toBe(302);
    expect(logs.some((l) => l.includes('from 203.0.113.9'))).toBe(true);
  });
});

describe('login throttling on a Redis fleet', () => {
  let redis: RunningRedis | undefined;
  let fleet: Fleet | undefined;
  afterAll(async () => {
    await fleet?.close();
    await redis?.stop();
  });

  it('failures on one instance count on the other: the fleet locks the user together', async () => {
    redis = await startRedisServer();
    fleet = await startFleet(redisConfig(redis.url, 'throttle-test:'));
    const pinned = (instance: 'a' | 'b') => browser(undefined, (request) => {
      request.headers.set('x-instance', instance);
      return fetch(request);
    });
    const guess = async (instance: 'a' | 'b', password: string) => {
      const b = pinned(instance);
      const { interaction, csrf, action } = await openLogin(b, authorizeUrl(webParams(), fleet?.issuer));
      return b.go(action, { form: { interaction, csrf, username: 'alice', password, action: 'login' } });
    };
    const answers: number[] = [];
    for (let i = 0; i < 8; i++) answers.push((await guess(i % 2 === 0 ? 'a' : 'b', `${GUESS}${i}`)).status);
    expect(answers).toEqual([200, 200, 200, 200, 429, 429, 429, 429]);
    expect((await guess('a', 'wonderland')).status).toBe(429);
    expect((await guess('b', 'wonderland')).status).toBe(429);
    for (const line of [...fleet.a.logs, ...fleet.b.logs]) {
      expect(line).not.toContain(GUESS);
      expect(line).not.toContain('wonderland');
    }
  });
});
