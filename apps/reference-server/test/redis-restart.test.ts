// Redis going away mid-run: requests that need it get a clear 503 in the endpoint's shape and
// nothing is issued; when it is back (empty: it saves nothing) the instances recover on their
// own, old codes and tokens are refused, and the fleet keeps its signing keys.
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createReferenceServer } from '../src/index';
import { redisConfig, startFleet, until, type Fleet } from './support/fleet';
import { body, clientCredentials, get, redeem, refresh, signIn, userinfo, type Pin } from './support/fleet-client';
import { startRedisServer, type RunningRedis } from '../../../test-support/redis-server';

let redis: RunningRedis;
let fleet: Fleet;

beforeAll(async () => {
  redis = await startRedisServer();
  fleet = await startFleet(redisConfig(redis.url, 'restart-test:'));
});

afterAll(async () => {
  await fleet?.close();
  await redis?.stop();
});

// A test that fails while Redis is stopped or frozen must not leave the next one without it.
afterEach(async () => {
  if (!redis.running) await redis.start();
  else redis.resume();
});

const PINS = ['a', 'b'] as const;

async function jwks(pin: Pin): Promise<JSONWebKeySet> {
  const res = await get(fleet, pin, '/oidc/jwks');
  expect(res.status).toBe(200);
  return (await res.json()) as JSONWebKeySet;
}

async function expectUnavailable(res: Response): Promise<void> {
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('1');
  expect(res.headers.get('cache-control')).toBe('no-store');
  const json = await body(res);
  expect(json.error).toBe('temporarily_unavailable');
  expect(json.error_description).toMatch(/try again/i);
  expect(json.access_token).toBeUndefined();
}

async function recovered(): Promise<void> {
  for (const pin of PINS) await until(`instance ${pin} reaches Redis again`, async () => (await clientCredentials(fleet, pin)).status === 200);
}

// Bounded waits add up here (two 2 s Redis timeouts, reconnects): a hang guard with room for a busy machine.
describe('Redis restart mid-run', { timeout: 60_000 }, () => {
  it('answers 503 without issuing anything while Redis is down, and recovers when it is back', async () => {
    const issued = await body(await redeem(fleet, 'a', await signIn(fleet, 'b')));
    const pendingCode = await signIn(fleet, 'a');
    // Each instance loads the keys on first use; one that never has cannot publish them
    // without Redis. Have both load them, so what follows tests keeping keys once loaded.
    const keysBefore = await jwks('a');
    expect(await jwks('b')).toEqual(keysBefore);

    await redis.stop();
    for (const pin of PINS) {
      await expectUnavailable(await redeem(fleet, pin, pendingCode));
      await expectUnavailable(await refresh(fleet, pin, issued.refresh_token ?? ''));
      await expectUnavailable(await clientCredentials(fleet, pin));
      // Not 401: the server cannot tell whether the token is valid, so it does not say so.
      await expectUnavailable(await userinfo(fleet, pin, issued.access_token ?? ''));
      const page = await get(fleet, pin, `/oidc/authorize?response_type=code&client_id=web&redirect_uri=${encodeURIComponent('http://127.0.0.1:3000/callback')}&scope=openid&state=s&nonce=n`);
      expect(page.status).toBe(503);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.get('location')).toBeNull();
      expect(await page.text()).toContain('temporarily_unavailable');
      // Discovery and the JWKS need no Redis: the keys loaded before are kept.
      expect((await get(fleet, pin, '/.well-known/openid-configuration')).status).toBe(200);
      expect(await jwks(pin)).toEqual(keysBefore);
    }
    for (const instance of [fleet.a, fleet.b]) expect(instance.logs.join('\n')).toMatch(/redis store at 127\.0\.0\.1:\d+: connection lost/);

    await redis.start();
    await recovered();
    for (const instance of [fleet.a, fleet.b]) expect(instance.logs.join('\n')).toMatch(/connection restored/);

    // Redis came back empty: what it held is gone, and is refused rather than honoured.
    for (const pin of PINS) {
      const code = await redeem(fleet, pin, pendingCode);
      expect(code.status).toBe(400);
      expect((await body(code)).error).toBe('invalid_grant');
      const stale = await refresh(fleet, pin, issued.refresh_token ?? '');
      expect(stale.status).toBe(400);
      expect((await body(stale)).error).toBe('invalid_grant');
      expect((await userinfo(fleet, pin, issued.access_token ?? '')).status).toBe(401);
    }

    // New sign-ins work across instances, signed with the same key as before the restart.
    const fresh = await redeem(fleet, 'b', await signIn(fleet, 'a'));
    expect(fresh.status).toBe(200);
    const tokens = await body(fresh);
    const rotated = await refresh(fleet, 'a', tokens.refresh_token ?? '');
    expect(rotated.status).toBe(200);
    expect((await userinfo(fleet, 'b', (await body(rotated)).access_token ?? '')).status).toBe(200);
    await jwtVerify(tokens.id_token ?? '', createLocalJWKSet(keysBefore), { issuer: fleet.issuer, audience: 'web' });
    for (const pin of PINS) expect(await jwks(pin)).toEqual(keysBefore);
    // The instances wrote their keys back on reconnecting: an instance started now adopts them.
    const third = await createReferenceServer(redisConfig(redis.url, 'restart-test:'), { logger: false });
    try {
      const res = await third.fetch(new Request('http://localhost/demo/oidc/jwks'));
      expect(await res.json()).toEqual(keysBefore);
    } finally {
      await third.close();
    }

    // No log line carries a token or code.
    const secrets = [pendingCode, issued.access_token, issued.refresh_token, tokens.access_token, tokens.refresh_token];
    for (const line of [...fleet.a.logs, ...fleet.b.logs]) for (const secret of secrets) expect(line.includes(secret ?? '-')).toBe(false);
  });

  it('fails a request with 503 instead of hanging when Redis stops answering, and recovers when it answers again', async () => {
    await recovered();
    const issued = await body(await redeem(fleet, 'a', await signIn(fleet, 'a')));
    redis.pause();
    try {
      await expectUnavailable(await userinfo(fleet, 'b', issued.access_token ?? ''));
      await expectUnavailable(await refresh(fleet, 'a', issued.refresh_token ?? ''));
    } finally {
      redis.resume();
    }
    await recovered();
    expect((await userinfo(fleet, 'b', issued.access_token ?? '')).status).toBe(200);
    expect(fleet.a.logs.join('\n')).toMatch(/answered 503: the Redis store at 127\.0\.0\.1:\d+ did not answer GET within 2000 ms/);
  });
});
