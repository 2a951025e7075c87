// What someone who can write to Redis (but does not hold the key encryption secret) can do
// (issue 23, item 5), against a real redis-server and servers over real HTTP: put back the
// sealed key document from before a rotation (refused, the newer one written back), write a
// code record or a session record of their own (refused: they read as absent). Guard: a normal
// login, code exchange, refresh and userinfo on the Redis store with a secret.
import { createHash } from 'node:crypto';
import { decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReferenceServer, demoConfig, type ReferenceServer, type ServerConfig } from '../src/index';
import { CookieJar, completeLogin } from '../src/testing';
import { startRedisServer, type RunningRedis } from '../../../test-support/redis-server';
import { authorizeUrl, basic, WEB_REDIRECT, webParams } from './helpers';
import { until } from './support/fleet';
import { browser, redirectTo } from './support/http-browser';

const SECRET = 'Vq3x9LmT2pWc7RzK4nYb8HdJ6sFg1Ae5';
let redis: RunningRedis;
let client: ReturnType<typeof createClient>;
const servers: ReferenceServer[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  client = createClient({ url: redis.url });
  await client.connect();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await client?.close();
  await redis?.stop();
});

function productionOnRedis(prefix: string): ServerConfig {
  const config = demoConfig();
  for (const tenant of config.tenants) {
    tenant.development = false;
    tenant.demo_login = false;
    for (const c of tenant.clients ?? []) {
      c.skip_consent = true;
      delete c.backchannel_logout_uri; // http on loopback needs a development tenant
    }
  }
  config.store = { type: 'redis', url: redis.url, prefix, key_encryption_secret: SECRET };
  return config;
}

async function start(prefix: string): Promise<{ issuer: string; logs: string[]; server: ReferenceServer }> {
  const logs: string[] = [];
  const server = await createReferenceServer(productionOnRedis(prefix), { logger: { info: (m) => logs.push(m), error: (m) => logs.push(m), warn: (m) => logs.push(m) } });
  servers.push(server);
  const { origin } = await server.listen({ port: 0 });
  return { issuer: `${origin}/demo`, logs, server };
}

const hash = (value: string) => createHash('sha256').update(value).digest('base64url');

async function token(issuer: string, form: Record<string, string>): Promise<Response> {
  // The contract profile: the code at /oidc/token, every other grant at /oauth/token.
  const path = form.grant_type === 'authorization_code' ? '/oidc/token' : '/oauth/token';
  return fetch(`${issuer}${path}`, { method: 'POST', headers: { authorization: basic('web', 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4') }, body: new URLSearchParams(form) });
}

async function currentKid(issuer: string): Promise<string> {
  const { keys } = (await (await fetch(`${issuer}/oidc/jwks`)).json()) as JSONWebKeySet;
  return keys[0]?.kid ?? '';
}

describe('a writer to Redis without the secret', () => {
  it('cannot roll the key document back to a key the operator rotated away: refused, logged, the newer one written back', async () => {
    const { issuer, logs, server } = await start('writer-rollback:');
    const place = 'writer-rollback:demo:signing-keys:RS256';
    const oldKid = await currentKid(issuer);
    const oldDocument = (await client.get(place)) ?? '';
    const { kid: newKid } = await server.rotateSigningKey('demo');
    const newDocument = (await client.get(place)) ?? '';
    expect(newDocument).not.toBe(oldDocument);
    await client.set(place, oldDocument);
    await until('the rolled-back document is refused', async () => {
      await fetch(`${issuer}/oidc/jwks`);
      return logs.some((l) => l.includes('is older than version'));
    });
    expect(await currentKid(issuer)).toBe(newKid);
    expect(newKid).not.toBe(oldKid);
    expect(await client.get(place)).toBe(newDocument);
    // And a login still gets an ID token signed with the new key.
    const result = await completeLogin(authorizeUrl(webParams({ response_type: 'code id_token' }), issuer));
    if (result.type !== 'redirect') throw new Error('no redirect');
    const idToken = new URLSearchParams(new URL(result.location).hash.slice(1)).get('id_token') ?? '';
    expect(decodeProtectedHeader(idToken).kid).toBe(newKid);
  });

  it('cannot write a code record that the server redeems for an ID token of any subject', async () => {
    const { issuer } = await start('writer-code:');
    await currentKid(issuer);
    const code = 'the-attackers-own-code-value-0123456789abcdef';
    const now = Math.floor(Date.now() / 1000);
    const record = {
      tenant: 'demo',
      clientId: 'web',
      redirectUri: WEB_REDIRECT,
      scopes: ['openid', 'profile'],
      user: { username: 'alice', sub: 'alice', sid: 'forged-sid', authTime: now },
      grantId: 'forged-grant',
      expiresAt: now + 60,
    };
    await client.set(`writer-code:demo:code:${hash(code)}`, `0${JSON.stringify(record)}`, { EX: 60 });
    const res = await token(issuer, { grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('cannot copy a genuine record to a key of its choosing, nor write a session of its own', async () => {
    const { issuer } = await start('writer-copy:');
    // The attacker signs in as himself (bob) and copies his code's record under a code he picks.
    const result = await completeLogin(authorizeUrl(webParams(), issuer), { username: 'bob', password: 'builder' });
    if (result.type !== 'redirect') throw new Error('no redirect');
    const genuine = new URL(result.location).searchParams.get('code') ?? '';
    const stored = (await client.get(`writer-copy:demo:code:${hash(genuine)}`)) ?? '';
    expect(stored.length).toBeGreaterThan(0);
    const chosen = 'another-code-the-attacker-picked-0123456789';
    await client.set(`writer-copy:demo:code:${hash(chosen)}`, stored, { EX: 60 });
    expect((await token(issuer, { grant_type: 'authorization_code', code: chosen, redirect_uri: WEB_REDIRECT })).status).toBe(400);
    // A session record for alice under a cookie value he picks: no single sign-on as alice.
    const cookie = 'a-session-cookie-the-attacker-picked-0123456';
    const now = Math.floor(Date.now() / 1000);
    const session = { username: 'alice', sub: 'alice', sid: 'forged', authTime: now, tenant: 'demo', expiresAt: now + 3600 };
    await client.set(`writer-copy:demo:session:${hash(cookie)}`, JSON.stringify(session), { EX: 3600 });
    const b = browser();
    const res = await b.go(authorizeUrl(webParams({ prompt: 'none' }), issuer), { headers: { cookie: `rs_session=${cookie}` } });
    expect(redirectTo(res).searchParams.get('error')).toBe('login_required');
  });

  it('guard: with the secret, a normal login, code exchange, refresh and userinfo work on Redis', async () => {
    const { issuer } = await start('writer-guard:');
    const jar = new CookieJar();
    const result = await completeLogin(authorizeUrl(webParams(), issuer), { cookies: jar });
    if (result.type !== 'redirect') throw new Error('no redirect');
    const code = new URL(result.location).searchParams.get('code') ?? '';
    const tokens = (await (await token(issuer, { grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT })).json()) as Record<string, string>;
    expect(tokens.id_token).toEqual(expect.any(String));
    const refreshed = await token(issuer, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' });
    expect(refreshed.status).toBe(200);
    const info = await fetch(`${issuer}/oidc/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(await info.json()).toMatchObject({ sub: 'alice' });
    // Single sign-on from the stored session.
    const again = await completeLogin(authorizeUrl(webParams({ prompt: 'none' }), issuer), { cookies: jar });
    expect(again.type === 'redirect' && new URL(again.location).searchParams.get('code')).toBeTruthy();
  });
});
