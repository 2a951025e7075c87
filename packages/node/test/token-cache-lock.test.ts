// The optional TokenCache lock and the cache_unavailable rule, with hand-written caches
// (any shared store can implement them, not only the Redis adapter). Requests are counted
// at the reference server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeClientOptions, OidcError, MemoryTokenCache, type TokenCache, createNodeClient, serviceProvider } from '../src/index';
import { type RunningServer, startReferenceServer } from './support/reference-server';

let server: RunningServer;
let service: NodeClientOptions;

beforeAll(async () => {
  server = await startReferenceServer();
  service = { provider: serviceProvider(server.issuer), clientId: 'service', clientSecret: 'service-secret', grants: ['client_credentials'] };
});
afterAll(() => server.close());

const tokenRequests = () => server.count('POST', '/oauth/token');

describe('TokenCache.lock', () => {
  it('two instances sharing a store and its lock cause one request on a cold cache', async () => {
    const store = new MemoryTokenCache();
    const held = new Set<string>();
    const shared = (): TokenCache => ({
      get: (key) => store.get(key),
      set: (key, value, ttl) => store.set(key, value, ttl),
      delete: (key) => store.delete(key),
      lock: {
        maxWait: 5_000,
        async acquire(key) {
          if (held.has(key)) return undefined;
          held.add(key);
          return async () => {
            held.delete(key);
          };
        },
      },
    });
    const a = createNodeClient({ ...service, tokenCache: shared() });
    const b = createNodeClient({ ...service, tokenCache: shared() });
    const before = tokenRequests();
    const [ta, tb] = await Promise.all([a.getClientCredentialsToken({ scope: 'api.read' }), b.getClientCredentialsToken({ scope: 'api.read' })]);
    expect(ta.accessToken).toBe(tb.accessToken);
    expect(tokenRequests() - before).toBe(1);
    expect(held.size).toBe(0);
  });

  it('a lock that fails (not cache_unavailable) lets the instance request on its own', async () => {
    const store = new MemoryTokenCache();
    const client = createNodeClient({
      ...service,
      tokenCache: {
        get: (key) => store.get(key),
        set: (key, value, ttl) => store.set(key, value, ttl),
        delete: (key) => store.delete(key),
        lock: {
          maxWait: 5_000,
          acquire: async () => {
            throw new Error('lock service down');
          },
        },
      },
    });
    const before = tokenRequests();
    await expect(client.getClientCredentialsToken({ scope: 'api.read' })).resolves.toMatchObject({ tokenType: 'Bearer' });
    expect(tokenRequests() - before).toBe(1);
  });
});

describe('cache_unavailable', () => {
  it('from get fails the call, before any request', async () => {
    const unavailable = new OidcError('cache_unavailable', 'Redis is down.');
    const client = createNodeClient({
      ...service,
      tokenCache: {
        get: () => Promise.reject(unavailable),
        set: () => undefined,
        delete: () => undefined,
      },
    });
    const before = tokenRequests();
    await expect(client.getClientCredentialsToken({ scope: 'api.read' })).rejects.toBe(unavailable);
    expect(tokenRequests()).toBe(before);
  });

  it('from lock.acquire fails the call, before any request', async () => {
    const unavailable = new OidcError('cache_unavailable', 'Redis is down.');
    const client = createNodeClient({
      ...service,
      tokenCache: {
        get: () => undefined,
        set: () => undefined,
        delete: () => undefined,
        lock: { maxWait: 1_000, acquire: () => Promise.reject(unavailable) },
      },
    });
    const before = tokenRequests();
    await expect(client.getClientCredentialsToken({ scope: 'api.read' })).rejects.toBe(unavailable);
    expect(tokenRequests()).toBe(before);
  });

  it('from set does not fail a call that got its token', async () => {
    const client = createNodeClient({
      ...service,
      tokenCache: {
        get: () => undefined,
        set: () => Promise.reject(new OidcError('cache_unavailable', 'Redis is down.')),
        delete: () => undefined,
      },
    });
    await expect(client.getClientCredentialsToken({ scope: 'api.read' })).resolves.toMatchObject({ tokenType: 'Bearer' });
  });
});
