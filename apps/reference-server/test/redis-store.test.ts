// The Redis store against the Store contract the memory store defines, and its atomicity with
// two connections (two instances) racing on the same entries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore, StoreUnavailableError, type CodeRecord, type Interaction, type Store } from '../src/index';
import { RedisConnection } from '../src/store/redis';
import { startRedisServer, type RunningRedis } from '../../../test-support/redis-server';

const SILENT = { info: () => undefined, error: () => undefined };
let redis: RunningRedis;
let one: RedisConnection;
let two: RedisConnection;

beforeAll(async () => {
  redis = await startRedisServer();
  one = await RedisConnection.open({ url: redis.url, prefix: 'store-test:' }, SILENT);
  two = await RedisConnection.open({ url: redis.url, prefix: 'store-test:' }, SILENT);
});

afterAll(async () => {
  await one?.close();
  await two?.close();
  await redis?.stop();
});

const user = { username: 'alice', sub: 'alice', sid: 'sid-1', authTime: 1_900_000_000 };
let counter = 0;
const unique = (what: string) => `${what}-${++counter}-${Date.now()}`;

function code(): CodeRecord {
  return { tenant: 'demo', clientId: 'web', redirectUri: 'https://app.example/cb', scopes: ['openid'], user, grantId: unique('grant'), expiresAt: 1_900_000_060 };
}

function interaction(): Interaction {
  return {
    tenant: 'demo',
    request: { clientId: 'web', redirectUri: 'https://app.example/cb', responseType: 'code', responseMode: 'query', scopes: ['openid', 'email'], state: 's', prompt: [] },
    browser: 'browser-key',
    csrf: 'csrf-value',
    failedLogins: 0,
  };
}

describe.each([
  ['memory', () => new MemoryStore()],
  ['redis', () => one.store('demo')],
] as const)('%s store: the Store contract', (_, make: () => Store) => {
  it('takes a code once: the first take is fresh, later ones are replays of the same record', async () => {
    const store = make();
    const key = unique('code');
    const record = code();
    await store.saveCode(key, record, 60);
    expect(await store.takeCode(key)).toEqual({ record, alreadyUsed: false });
    expect(await store.takeCode(key)).toEqual({ record, alreadyUsed: true });
    expect(await store.takeCode(unique('unknown'))).toBeUndefined();
  });

  it('keeps an interaction exactly, counts failed logins, and completes it once', async () => {
    const store = make();
    const id = unique('interaction');
    const saved = interaction();
    await store.saveInteraction(id, saved, 600);
    expect(await store.findInteraction(id)).toEqual(saved);
    expect(await store.countFailedLogin(id)).toBe(1);
    expect(await store.countFailedLogin(id)).toBe(2);
    expect((await store.findInteraction(id))?.failedLogins).toBe(2);
    await store.saveInteraction(id, { ...saved, failedLogins: 2, user }, 600);
    expect(await store.takeInteraction(id)).toEqual({ ...saved, failedLogins: 2, user });
    expect(await store.takeInteraction(id)).toBeUndefined();
    expect(await store.findInteraction(id)).toBeUndefined();
    expect(await store.countFailedLogin(id)).toBe(0);
  });

  it('finds, rotates and revokes tokens, sessions and consent', async () => {
    const store = make();
    const rt = unique('rt');
    const record = { tenant: 'demo', clientId: 'web', scopes: ['openid', 'offline_access'], user, grantId: unique('grant'), expiresAt: 1_900_000_000 };
    await store.saveRefreshToken(rt, record, 3600);
    expect(await store.findRefreshToken(rt)).toEqual(record);
    expect(await store.takeRefreshToken(rt)).toEqual({ record, alreadyUsed: false });
    expect(await store.takeRefreshToken(rt)).toEqual({ record, alreadyUsed: true });

    const at = unique('at');
    await store.saveAccessToken(at, { tenant: 'demo', clientId: 'service', scopes: ['api.read'], grantId: record.grantId, expiresAt: 1 }, 3600);
    expect(await store.findAccessToken(at)).toEqual({ tenant: 'demo', clientId: 'service', scopes: ['api.read'], grantId: record.grantId, expiresAt: 1 });
    await store.deleteAccessToken(at);
    expect(await store.findAccessToken(at)).toBeUndefined();

    expect(await store.isGrantRevoked(record.grantId)).toBe(false);
    await store.revokeGrant(record.grantId, 3600);
    expect(await store.isGrantRevoked(record.grantId)).toBe(true);

    const session = unique('session');
    await store.saveSession(session, { ...user, tenant: 'demo', expiresAt: 2 }, 86_400);
    expect(await store.findSession(session)).toEqual({ ...user, tenant: 'demo', expiresAt: 2 });
    await store.deleteSession(session);
    expect(await store.findSession(session)).toBeUndefined();

    const consent = JSON.stringify(['demo', unique('sub'), 'web']);
    expect(await store.findConsent(consent)).toBeUndefined();
    await store.saveConsent(consent, ['openid', 'email']);
    expect(await store.findConsent(consent)).toEqual(['openid', 'email']);
  });

  it('copies records in and out: changing a saved or a returned record changes nothing stored', async () => {
    const store = make();
    const key = unique('at');
    const saved = { tenant: 'demo', clientId: 'service', scopes: ['api.read'], grantId: unique('grant'), expiresAt: 1_900_000_060, user: { ...user } };
    await store.saveAccessToken(key, saved, 60);
    saved.scopes.push('api.write');
    saved.user.sub = 'mallory';
    const found = await store.findAccessToken(key);
    expect(found).toEqual({ ...saved, scopes: ['api.read'], user });
    found?.scopes.push('admin');
    expect((await store.findAccessToken(key))?.scopes).toEqual(['api.read']);
    const codeKey = unique('code');
    await store.saveCode(codeKey, code(), 60);
    const taken = await store.takeCode(codeKey);
    taken?.record.scopes.push('admin');
    expect((await store.peekCode(codeKey))?.record.scopes).toEqual(['openid']);
  });

  it('remembers a DPoP proof once: of two concurrent attempts exactly one is first', async () => {
    const store = make();
    const proof = unique('proof');
    const answers = await Promise.all([store.rememberProof(proof, 121), store.rememberProof(proof, 121)]);
    expect(answers.sort()).toEqual([false, true]);
    expect(await store.rememberProof(proof, 121)).toBe(false);
    expect(await store.rememberProof(unique('proof'), 121)).toBe(true);
  });

  it('hands a pushed request (PAR) out once: of two concurrent takes exactly one gets it', async () => {
    const store = make();
    const key = unique('par');
    const record = { tenant: 'demo', request: interaction().request, expiresAt: 1_900_000_060 };
    await store.savePushedRequest(key, record, 60);
    const answers = await Promise.all([store.takePushedRequest(key), store.takePushedRequest(key)]);
    expect(answers.filter((answer) => answer !== undefined)).toEqual([record]);
    expect(await store.takePushedRequest(key)).toBeUndefined();
  });
});

describe('redis store across instances', () => {
  it('lets exactly one of 50 simultaneous takes of a code, split over two connections, be the first', async () => {
    const key = unique('code');
    await one.store('demo').saveCode(key, code(), 60);
    const takes = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? one : two).store('demo').takeCode(key)));
    expect(takes.filter((t) => t?.alreadyUsed === false)).toHaveLength(1);
    expect(takes.filter((t) => t?.alreadyUsed === true)).toHaveLength(49);
  });

  it('lets exactly one of 50 simultaneous takes of a refresh token be the first', async () => {
    const key = unique('rt');
    await one.store('demo').saveRefreshToken(key, { tenant: 'demo', clientId: 'web', scopes: ['openid'], user, grantId: 'g', expiresAt: 1 }, 60);
    const takes = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? one : two).store('demo').takeRefreshToken(key)));
    expect(takes.filter((t) => t?.alreadyUsed === false)).toHaveLength(1);
  });

  it('completes an interaction once when both instances try at the same time, and counts every failed login', async () => {
    const id = unique('interaction');
    await one.store('demo').saveInteraction(id, interaction(), 600);
    const counts = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? one : two).store('demo').countFailedLogin(id)));
    expect([...counts].sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    const takes = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? one : two).store('demo').takeInteraction(id)));
    expect(takes.filter((t) => t !== undefined)).toHaveLength(1);
    expect(takes.find((t) => t !== undefined)?.failedLogins).toBe(30);
  });

  it('keeps tenants apart: a code saved for one tenant does not exist for another', async () => {
    const key = unique('code');
    await one.store('demo').saveCode(key, code(), 60);
    expect(await two.store('other').takeCode(key)).toBeUndefined();
    expect((await two.store('demo').takeCode(key))?.alreadyUsed).toBe(false);
  });

  it('expires entries with the lifetime given, in whole seconds', async () => {
    const key = unique('code');
    await one.store('demo').saveCode(key, code(), 42);
    expect(await one.command(['TTL', `store-test:demo:code:${key}`])).toBe(42);
    await one.store('demo').saveAccessToken(key, { tenant: 'demo', clientId: 'web', scopes: [], grantId: 'g', expiresAt: 1 }, 0.2);
    expect(await one.command(['TTL', `store-test:demo:at:${key}`])).toBe(1);
  });

  it('treats a value it cannot read as absent, so it never yields a token', async () => {
    const key = unique('code');
    await one.command(['SET', `store-test:demo:code:${key}`, '0{not json']);
    await one.command(['SET', `store-test:demo:at:${key}`, '[1,2]']);
    expect(await one.store('demo').takeCode(key)).toBeUndefined();
    expect(await one.store('demo').findAccessToken(key)).toBeUndefined();
  });

  it('fails with StoreUnavailableError once the connection is gone, without keys in the message', async () => {
    const closed = await RedisConnection.open({ url: redis.url, prefix: 'store-test:' }, SILENT);
    await closed.close();
    const key = unique('secret-code-hash');
    const error = await closed.store('demo').takeCode(key).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toMatch(/^the Redis store at 127\.0\.0\.1:\d+ failed EVAL \(\w+\)$/);
    expect((error as Error).message).not.toContain(key);
  });
});
