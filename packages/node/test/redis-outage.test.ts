// Redis failing under the token cache: a real redis-server stopped and started again in the
// middle of a run, and a Redis that never answers. During the outage calls either fail with
// a clear `cache_unavailable` ('fail') or get a right token from the provider or from the
// instance's memory ('fetch'); no call ever gets another scope's token; after Redis is back
// the fleet shares its cache again.
import { type RedisClientType, createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeClient, OidcError, createNodeClient, serviceProvider } from '../src/index';
import { type RedisClientLike, RedisTokenCache, type RedisTokenCacheOptions } from '../src/redis/index';
import { type RunningServer, startReferenceServer } from './support/reference-server';
import { type RunningRedis, startRedisServer } from '../../../test-support/redis-server';

let redisServer: RunningRedis;
let server: RunningServer;
const ENCRYPTION_KEY = 'test-cache-key-XDg1TurI8rcrlwh5xf3ETgY8MDt4UoIJ';
const connections: RedisClientType[] = [];
/** Every access token the provider issued in this file, with the scope it was asked for. */
const issued = new Map<string, string>();

const issuingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (response.ok && String(input).endsWith('/oauth/token')) {
    const body = (await response.clone().json()) as { access_token: string };
    issued.set(body.access_token, new URLSearchParams(String(init?.body)).get('scope') ?? '');
  }
  return response;
};

beforeAll(async () => {
  redisServer = await startRedisServer();
  server = await startReferenceServer();
});
afterAll(async () => {
  for (const connection of connections) connection.destroy();
  await Promise.all([redisServer?.stop(), server?.close()]);
});

const tokenRequests = () => server.count('POST', '/oauth/token');

async function connect(): Promise<RedisClientType> {
  const connection: RedisClientType = createClient({ url: redisServer.url, disableOfflineQueue: true });
  connection.on('error', () => undefined);
  await connection.connect();
  connections.push(connection);
  return connection;
}

function instance(redis: RedisClientLike, options: Partial<RedisTokenCacheOptions> = {}) {
  const errors: OidcError[] = [];
  const tokenCache = new RedisTokenCache({ encryptionKey: ENCRYPTION_KEY, redis, commandTimeout: 500, onError: (e) => errors.push(e), ...options });
  const client = createNodeClient({
    provider: serviceProvider(server.issuer),
    clientId: 'service',
    clientSecret: 'service-secret',
    grants: ['client_credentials'],
    fetch: issuingFetch,
    tokenCache,
  });
  return { client, errors };
}

/** A token the provider issued for exactly this scope (never another scope's, never made up). */
async function rightToken(client: NodeClient, scope: string): Promise<string> {
  const { accessToken } = await client.getClientCredentialsToken({ scope });
  expect(issued.get(accessToken)).toBe(scope);
  return accessToken;
}

async function rejection(promise: Promise<unknown>): Promise<OidcError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OidcError);
  return error as OidcError;
}

describe('Redis restarted in the middle of a run', () => {
  it('fails clearly or falls back during the outage, never serves a wrong token, and recovers', async () => {
    const [redisA, redisB, observer] = [await connect(), await connect(), await connect()];
    const fallback = instance(redisA, { whenUnavailable: 'fetch' });
    const strict = instance(redisB, { whenUnavailable: 'fail' });

    // Before: one shared token.
    let before = tokenRequests();
    const first = await rightToken(fallback.client, 'api.read');
    expect(await rightToken(strict.client, 'api.read')).toBe(first);
    expect(tokenRequests() - before).toBe(1);

    await redisServer.stop();
    await expect.poll(() => redisA.isReady || redisB.isReady).toBe(false);

    // During: 'fail' rejects before sending anything, with a message that says what to do.
    before = tokenRequests();
    const error = await rejection(strict.client.getClientCredentialsToken({ scope: 'api.read' }));
    expect(error.code).toBe('cache_unavailable');
    expect(error.message).toMatch(/Redis .* failed\. Check that Redis is running and reachable/);
    expect(error.message).not.toContain(first);
    expect((await rejection(strict.client.getClientCredentialsToken({ scope: 'api.write' }))).code).toBe('cache_unavailable');
    expect((await rejection(strict.client.invalidate({ scope: 'api.read' }))).code).toBe('cache_unavailable');
    expect(tokenRequests() - before).toBe(0);
    expect(strict.errors.length).toBeGreaterThanOrEqual(3);

    // During: 'fetch' serves the token this instance saw, and requests the ones it lacks, once.
    expect(await rightToken(fallback.client, 'api.read')).toBe(first);
    expect(tokenRequests() - before).toBe(0);
    const write = await rightToken(fallback.client, 'api.write');
    expect(await rightToken(fallback.client, 'api.write')).toBe(write);
    expect(tokenRequests() - before).toBe(1);
    expect(fallback.errors.length).toBeGreaterThan(0);
    expect(new Set(fallback.errors.map((e) => e.code))).toEqual(new Set(['cache_unavailable']));

    // After: Redis is back, empty (nothing is saved). The instances share one cache again.
    await redisServer.start();
    await expect.poll(() => redisA.isReady && redisB.isReady && observer.isReady).toBe(true);
    const errorsBefore = fallback.errors.length + strict.errors.length;
    before = tokenRequests();
    const renewed = await rightToken(strict.client, 'api.read');
    expect(await rightToken(fallback.client, 'api.read')).toBe(renewed);
    expect(tokenRequests() - before).toBe(1);
    expect(await observer.keys('oidc-rp:cc:*')).toHaveLength(1);
    expect(fallback.errors.length + strict.errors.length).toBe(errorsBefore);
  });
});

describe('a Redis that does not answer', () => {
  const silent: RedisClientLike = {
    get: () => new Promise(() => undefined),
    set: () => new Promise(() => undefined),
    del: () => new Promise(() => undefined),
    eval: () => new Promise(() => undefined),
  };

  it("'fail': the call rejects with cache_unavailable once commandTimeout has passed", async () => {
    const { client, errors } = instance(silent, { whenUnavailable: 'fail', commandTimeout: 50 });
    const before = tokenRequests();
    const error = await rejection(client.getClientCredentialsToken({ scope: 'api.read' }));
    expect(error.code).toBe('cache_unavailable');
    expect(error.message).toContain('Redis GET for the token cache got no answer within 50 ms');
    expect(errors.map((e) => e.code)).toEqual(['cache_unavailable']);
    expect(tokenRequests()).toBe(before);
  });

  it("'fetch': the token is requested directly, then served from the instance's memory", async () => {
    const { client, errors } = instance(silent, { commandTimeout: 50 });
    const before = tokenRequests();
    const token = await rightToken(client, 'api.read');
    expect(await rightToken(client, 'api.read')).toBe(token);
    expect(tokenRequests() - before).toBe(1);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e.code === 'cache_unavailable')).toBe(true);
  });

  it('a listener that throws does not fail the call', async () => {
    const { client } = instance(silent, {
      commandTimeout: 50,
      onError: () => {
        throw new Error('broken listener');
      },
    });
    await expect(rightToken(client, 'api.read')).resolves.toEqual(expect.any(String));
  });
});
