// A code or refresh request that fails a check (client, redirect_uri, PKCE, scope) must leave
// the grant unspent, so the rightful request still works and is not taken for a replay; single
// use holds under concurrency. Over real HTTP, on the memory store and on a two-instance Redis fleet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReferenceServer, demoConfig, type Listening, type ReferenceServer } from '../src/index';
import { startRedisServer, type RunningRedis } from '../../../test-support/redis-server';
import { redisConfig, startFleet, type Fleet } from './support/fleet';
import { body, post, redeem, refresh, signIn, WEB_REDIRECT } from './support/fleet-client';

interface Target {
  fleet: Fleet;
  logs: () => string[];
  close(): Promise<void>;
}

async function memoryTarget(): Promise<Target> {
  const logs: string[] = [];
  const server: ReferenceServer = await createReferenceServer(demoConfig(), { logger: { info: (m) => logs.push(m), error: (m) => logs.push(m) }, developmentKeys: true });
  const listening: Listening = await server.listen({ port: 0 });
  // Only `issuer` is used by the fleet client helpers.
  const fleet = { issuer: `${listening.origin}/demo` } as Fleet;
  return { fleet, logs: () => logs, close: () => server.close() };
}

let redis: RunningRedis | undefined;

async function redisTarget(): Promise<Target> {
  redis = await startRedisServer();
  const fleet = await startFleet(redisConfig(redis.url, 'spent-after-checks:'));
  return { fleet, logs: () => [...fleet.a.logs, ...fleet.b.logs], close: () => fleet.close() };
}

afterAll(async () => {
  await redis?.stop();
});

describe.each([
  ['memory store', memoryTarget],
  ['Redis store, two instances', redisTarget],
])('grants are spent only after every check (%s)', (_name, start) => {
  let t: Target;
  const secrets: string[] = [];
  beforeAll(async () => {
    t = await start();
  });
  afterAll(async () => {
    // Nothing logged carries a code, a token or a password.
    for (const line of t.logs()) {
      for (const secret of [...secrets, 'wonderland', 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4']) expect(line).not.toContain(secret);
    }
    await t.close();
  });

  it('a code request with a wrong redirect_uri, a wrong client or a wrong secret fails and leaves the code redeemable once', async () => {
    const code = await signIn(t.fleet, undefined);
    secrets.push(code);
    const wrongRedirect = await post(t.fleet, undefined, '/oidc/token', {
      grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:3000/other', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
    });
    expect(wrongRedirect.status).toBe(400);
    expect((await body(wrongRedirect)).error).toBe('invalid_grant');
    const wrongClient = await post(t.fleet, undefined, '/oidc/token', {
      grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT, client_id: 'spa', code_verifier: 'x'.repeat(43),
    });
    expect((await body(wrongClient)).error).toBe('invalid_grant');
    const wrongSecret = await post(t.fleet, undefined, '/oidc/token', {
      grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT, client_id: 'web', client_secret: 'guess',
    });
    expect(wrongSecret.status).toBe(401);

    const ok = await redeem(t.fleet, undefined, code);
    expect(ok.status).toBe(200);
    const tokens = await body(ok);
    secrets.push(tokens.access_token ?? '', tokens.refresh_token ?? '');
    // Single use still holds: the second redemption is a replay.
    const replay = await redeem(t.fleet, undefined, code);
    expect((await body(replay)).error).toBe('invalid_grant');
  });

  it('a refresh failing with invalid_scope does not burn the token: the next refresh succeeds and the family lives', async () => {
    const code = await signIn(t.fleet, undefined);
    const tokens = await body(await redeem(t.fleet, undefined, code));
    const refreshToken = tokens.refresh_token ?? '';
    secrets.push(code, refreshToken, tokens.access_token ?? '');
    const widened = await post(t.fleet, undefined, '/oauth/token', {
      grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4', scope: 'openid api.admin',
    });
    expect(widened.status).toBe(400);
    expect((await body(widened)).error).toBe('invalid_scope');
    const wrongClient = await post(t.fleet, undefined, '/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'spa' });
    expect((await body(wrongClient)).error).toBe('invalid_grant');

    const next = await refresh(t.fleet, undefined, refreshToken);
    expect(next.status).toBe(200);
    const rotated = await body(next);
    secrets.push(rotated.refresh_token ?? '', rotated.access_token ?? '');
    // The family was not revoked: the rotated token works.
    const after = await refresh(t.fleet, undefined, rotated.refresh_token ?? '');
    expect(after.status).toBe(200);
    secrets.push((await body(after)).refresh_token ?? '');
    // Reusing the first token still counts as reuse.
    expect((await body(await refresh(t.fleet, undefined, refreshToken))).error).toBe('invalid_grant');
  });

  it('20 concurrent redemptions of one code after failed attempts: exactly one succeeds', async () => {
    const code = await signIn(t.fleet, undefined);
    secrets.push(code);
    await post(t.fleet, undefined, '/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:3000/x', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
    const results = await Promise.all(Array.from({ length: 20 }, () => redeem(t.fleet, undefined, code)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(19);
    for (const r of results) secrets.push(...Object.values(await body(r)));
  });
});
