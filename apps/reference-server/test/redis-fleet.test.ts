// Two instances on one real Redis, behind a load balancer: state and keys are shared, and the
// single-use and rotation rules hold across instances.
import { createHash } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, completeLogin } from '../src/testing';
import { redisConfig, startFleet, until, type Fleet } from './support/fleet';
import { authorizeUrl, body, get, redeem, refresh, signIn, userinfo, via, type Pin } from './support/fleet-client';
import { startRedisServer, type RunningRedis } from '../../../test-support/redis-server';

const PREFIX = 'fleet-test:';
let redis: RunningRedis;
let fleet: Fleet;

beforeAll(async () => {
  redis = await startRedisServer();
  // A second tenant with ES256 keys and JWT access tokens, beside the demo tenant.
  fleet = await startFleet(
    redisConfig(redis.url, PREFIX, (config) => {
      const demo = config.tenants[0];
      if (demo) config.tenants.push({ ...demo, id: 'acme', signing_alg: 'ES256', access_token_format: 'jwt' });
    }),
  );
});

afterAll(async () => {
  await fleet?.close();
  await redis?.stop();
});

async function jwks(pin: Pin): Promise<JSONWebKeySet> {
  const res = await get(fleet, pin, '/oidc/jwks');
  expect(res.status).toBe(200);
  return (await res.json()) as JSONWebKeySet;
}

async function tokens(pin: Pin, code: string): Promise<Record<string, string>> {
  const res = await redeem(fleet, pin, code);
  expect(res.status).toBe(200);
  return body(res);
}

function count(paths: string[], path: string): number {
  return paths.filter((p) => p === path).length;
}

describe('two instances sharing Redis', () => {
  it('signs in on A, redeems the code on B, and A accepts the access token B issued', async () => {
    const loginsOnA = count(fleet.a.requests, '/demo/oidc/login');
    const tokenCallsOnB = count(fleet.b.requests, '/demo/oidc/token');
    const code = await signIn(fleet, 'a');
    expect(count(fleet.a.requests, '/demo/oidc/login')).toBeGreaterThan(loginsOnA);

    const issued = await tokens('b', code);
    expect(count(fleet.b.requests, '/demo/oidc/token')).toBe(tokenCallsOnB + 1);
    const { payload } = await jwtVerify(issued.id_token ?? '', createLocalJWKSet(await jwks('a')), { issuer: fleet.issuer, audience: 'web' });
    expect(payload).toMatchObject({ sub: 'alice', nonce: 'n' });

    const info = await userinfo(fleet, 'a', issued.access_token ?? '');
    expect(info.status).toBe(200);
    expect(await body(info)).toMatchObject({ sub: 'alice', email: 'alice@example.com' });
  });

  it('completes a sign-in whose every step lands on the other instance, then signs in again by SSO', async () => {
    const cookies = new CookieJar();
    const code = await signIn(fleet, undefined, { cookies });
    expect((await tokens(undefined, code)).access_token).toBeTruthy();
    // The session cookie set by one instance is honoured by the other: no login page this time.
    const loginPages = count(fleet.a.requests, '/demo/oidc/login') + count(fleet.b.requests, '/demo/oidc/login');
    const again = await completeLogin(authorizeUrl(fleet, { state: 's2' }), { fetch: via(undefined), cookies });
    expect(again.type).toBe('redirect');
    expect(new URL(again.type === 'redirect' ? again.location : '').searchParams.get('code')).toBeTruthy();
    expect(count(fleet.a.requests, '/demo/oidc/login') + count(fleet.b.requests, '/demo/oidc/login')).toBe(loginPages);
  });

  it('counts wrong passwords across instances: the third one ends the flow', async () => {
    const result = await completeLogin(authorizeUrl(fleet), { fetch: via(undefined), failPasswordTimes: 3 });
    expect(result.type).toBe('redirect');
    const params = new URL(result.type === 'redirect' ? result.location : '').searchParams;
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('code')).toBeNull();
  });

  it('50 concurrent redemptions of one code, split across both, succeed exactly once', async () => {
    const code = await signIn(fleet, 'a');
    const before = { a: count(fleet.a.requests, '/demo/oidc/token'), b: count(fleet.b.requests, '/demo/oidc/token') };
    const responses = await Promise.all(Array.from({ length: 50 }, () => redeem(fleet, undefined, code)));
    expect(count(fleet.a.requests, '/demo/oidc/token') - before.a).toBe(25);
    expect(count(fleet.b.requests, '/demo/oidc/token') - before.b).toBe(25);

    const results = await Promise.all(responses.map(async (r) => ({ status: r.status, body: await body(r) })));
    const won = results.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    for (const lost of results.filter((r) => r.status !== 200)) {
      expect(lost.status).toBe(400);
      expect(lost.body.error).toBe('invalid_grant');
      expect(lost.body.access_token).toBeUndefined();
    }
    // A replay revokes what the first redemption issued, on both instances.
    const winner = won[0]?.body.access_token ?? '';
    expect((await userinfo(fleet, 'a', winner)).status).toBe(401);
    expect((await userinfo(fleet, 'b', winner)).status).toBe(401);
  });

  it('rotates refresh tokens across instances and revokes the family everywhere on reuse', async () => {
    const first = await tokens('a', await signIn(fleet, 'a'));
    const rotated = await refresh(fleet, 'b', first.refresh_token ?? '');
    expect(rotated.status).toBe(200);
    const second = await body(rotated);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await userinfo(fleet, 'a', second.access_token ?? '')).status).toBe(200);

    // The token rotated on B is dead on A: reuse fails and revokes the whole family.
    const reuse = await refresh(fleet, 'a', first.refresh_token ?? '');
    expect(reuse.status).toBe(400);
    expect(await body(reuse)).toMatchObject({ error: 'invalid_grant' });
    const newest = await refresh(fleet, 'b', second.refresh_token ?? '');
    expect(newest.status).toBe(400);
    expect((await body(newest)).error).toBe('invalid_grant');
    for (const pin of ['a', 'b'] as const) {
      expect((await userinfo(fleet, pin, second.access_token ?? '')).status).toBe(401);
      expect((await userinfo(fleet, pin, first.access_token ?? '')).status).toBe(401);
    }
  });

  it('publishes the same JWKS on both instances, and a rotation on one reaches the other', async () => {
    const [onA, onB] = [await jwks('a'), await jwks('b')];
    expect(onA.keys).toHaveLength(1);
    expect(onB).toEqual(onA);
    const oldKid = onA.keys[0]?.kid;

    const { kid } = await fleet.a.server.rotateSigningKey('demo');
    expect(kid).not.toBe(oldKid);
    expect((await jwks('a')).keys.map((k) => k.kid)).toEqual([kid, oldKid]);
    await until('B publishes the rotated key', async () => (await jwks('b')).keys[0]?.kid === kid);
    expect((await jwks('b')).keys.map((k) => k.kid)).toEqual([kid, oldKid]);

    // B now signs with the new key, and A's JWKS verifies it.
    const issued = await tokens('b', await signIn(fleet, 'b'));
    expect(decodeProtectedHeader(issued.id_token ?? '').kid).toBe(kid);
    await expect(jwtVerify(issued.id_token ?? '', createLocalJWKSet(await jwks('a')), { issuer: fleet.issuer })).resolves.toBeTruthy();
  });

  it('keeps a second tenant apart: its own ES256 keys, and JWT access tokens both instances verify', async () => {
    const acme = `${fleet.origin}/acme`;
    const start = authorizeUrl(fleet);
    start.pathname = '/acme/oidc/authorize';
    const result = await completeLogin(start, { fetch: via('a') });
    const code = new URL(result.type === 'redirect' ? result.location : '').searchParams.get('code') ?? '';
    // A code of one tenant is unknown to the other.
    expect((await redeem(fleet, 'b', code)).status).toBe(400);
    const exchange = (pin: Pin) =>
      via(pin)(
        new Request(`${acme}/oidc/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:3000/callback', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' }),
        }),
      );
    const res = await exchange('b');
    expect(res.status).toBe(200);
    const issued = await body(res);

    const acmeJwks = async (pin: Pin) => (await (await via(pin)(new Request(`${acme}/oidc/jwks`))).json()) as JSONWebKeySet;
    const [onA, onB] = [await acmeJwks('a'), await acmeJwks('b')];
    expect(onB).toEqual(onA);
    expect(onA.keys.map((k) => k.alg)).toEqual(['ES256']);
    expect(onA.keys.map((k) => k.kid)).not.toContain((await jwks('a')).keys[0]?.kid);
    const { payload } = await jwtVerify(issued.access_token ?? '', createLocalJWKSet(onA), { issuer: acme, typ: 'at+jwt', audience: acme });
    expect(payload).toMatchObject({ sub: 'alice', client_id: 'web' });
    const info = await via('a')(new Request(`${acme}/oidc/userinfo`, { headers: { authorization: `Bearer ${issued.access_token ?? ''}` } }));
    expect(info.status).toBe(200);
    // Nor is a token of one tenant accepted by the other.
    expect((await userinfo(fleet, 'a', issued.access_token ?? '')).status).toBe(401);
  });

  it('keeps every entry under the prefix and tenant, keyed and filled without a raw code, token or cookie', async () => {
    // Start a sign-in by hand to see the interaction id and the browser cookie.
    const started = await get(fleet, 'a', `/oidc/authorize${authorizeUrl(fleet).search}`);
    expect(started.status).toBe(302);
    const interaction = new URL(started.headers.get('location') ?? '').searchParams.get('interaction') ?? '';
    const browserCookie = /rs_browser=([^;]+)/.exec(started.headers.get('set-cookie') ?? '')?.[1] ?? '';
    const cookies = new CookieJar();
    const code = await signIn(fleet, 'b', { cookies });
    const session = /rs_session=([^;]+)/.exec(cookies.header(new URL(`${fleet.issuer}/`)) ?? '')?.[1] ?? '';
    const issued = await tokens('a', code);
    const secrets = [interaction, browserCookie, session, code, issued.access_token ?? '', issued.refresh_token ?? ''];
    expect(secrets.every((s) => s.length >= 32)).toBe(true);

    const client = await createClient({ url: redis.url }).connect();
    try {
      const keys = await client.keys('*');
      const contents = await Promise.all(
        keys.map(async (key) => ((await client.type(key)) === 'hash' ? JSON.stringify(await client.hGetAll(key)) : ((await client.get(key)) ?? ''))),
      );
      expect(keys.length).toBeGreaterThan(5);
      for (const key of keys) expect(key).toMatch(/^fleet-test:(demo|acme):(interaction|session|consent|code|at|rt|revoked|hits|signing-keys):[\w-]+$/);
      expect(keys).toContain(`${PREFIX}acme:signing-keys:ES256`);
      for (const text of [...keys, ...contents]) for (const secret of secrets) expect(text.includes(secret)).toBe(false);
      const hashed = (value: string) => createHash('sha256').update(value).digest('base64url');
      expect(keys).toContain(`${PREFIX}demo:interaction:${hashed(interaction)}`);
      expect(keys).toContain(`${PREFIX}demo:code:${hashed(code)}`);
      expect(keys).toContain(`${PREFIX}demo:rt:${hashed(issued.refresh_token ?? '')}`);
      // Entries expire with their lifetimes; consent and signing keys are kept.
      expect(await client.ttl(`${PREFIX}demo:at:${hashed(issued.access_token ?? '')}`)).toBeGreaterThan(3500);
      expect(await client.ttl(`${PREFIX}demo:session:${hashed(session)}`)).toBeGreaterThan(86_000);
      expect(await client.ttl(`${PREFIX}demo:signing-keys:RS256`)).toBe(-1);
    } finally {
      await client.close();
    }
  });
});
