// Client credentials against the reference server over real HTTP: scope, the cache, single
// flight (requests counted at the server), renewal before expiry and invalidation.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type NodeClientOptions, TokenEndpointError, createNodeClient } from '../src/index';
import { type RunningServer, recordingFetch, serviceClientOptions, startReferenceServer } from './support/reference-server';

let server: RunningServer;
let service: NodeClientOptions;

beforeAll(async () => {
  server = await startReferenceServer();
  service = serviceClientOptions(server);
});
afterAll(() => server.close());
afterEach(() => {
  vi.useRealTimers();
});

const tokenRequests = () => server.count('POST', '/oauth/token');

describe('getClientCredentialsToken against the reference server', () => {
  it('obtains a token for the requested scope, with its lifetime', async () => {
    const recorder = recordingFetch();
    const client = createNodeClient({ ...service, fetch: recorder.fetch });
    const now = Math.floor(Date.now() / 1000);
    const tokens = await client.getClientCredentialsToken({ scope: 'api.read' });
    expect(tokens.tokenType).toBe('Bearer');
    expect(tokens.accessToken).toEqual(expect.any(String));
    expect(tokens.expiresAt).toBeGreaterThanOrEqual(now + 3600);
    expect(tokens.expiresAt).toBeLessThanOrEqual(now + 3602);
    expect(recorder.posts).toHaveLength(1);
    expect(recorder.posts[0]?.url).toBe(`${server.issuer}/oauth/token`);
    expect(Object.fromEntries(recorder.posts[0]?.body ?? [])).toEqual({
      grant_type: 'client_credentials',
      scope: 'api.read',
      client_id: 'service',
      client_secret: 'service-secret',
    });
  });

  it('1,000 concurrent callers on a cold cache cause exactly one token request', async () => {
    const client = createNodeClient(service);
    const before = tokenRequests();
    const results = await Promise.all(Array.from({ length: 1000 }, () => client.getClientCredentialsToken({ scope: 'api.read' })));
    expect(tokenRequests() - before).toBe(1);
    expect(new Set(results.map((t) => t.accessToken)).size).toBe(1);
    // Later callers are served from the cache.
    await client.getClientCredentialsToken({ scope: 'api.read' });
    expect(tokenRequests() - before).toBe(1);
  });

  it('a different scope set is a different token', async () => {
    const client = createNodeClient(service);
    const before = tokenRequests();
    const [read, both] = await Promise.all([
      client.getClientCredentialsToken({ scope: 'api.read' }),
      client.getClientCredentialsToken({ scope: 'api.read api.write' }),
    ]);
    expect(read.accessToken).not.toBe(both.accessToken);
    expect(tokenRequests() - before).toBe(2);
  });

  it('renews shortly before expiry, and not earlier', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const client = createNodeClient({ ...service, renewBeforeExpiry: 60 });
    const before = tokenRequests();
    const first = await client.getClientCredentialsToken({ scope: 'api.read' });
    const expiresAt = first.expiresAt as number;

    vi.setSystemTime((expiresAt - 61) * 1000);
    expect((await client.getClientCredentialsToken({ scope: 'api.read' })).accessToken).toBe(first.accessToken);
    expect(tokenRequests() - before).toBe(1);

    vi.setSystemTime((expiresAt - 60) * 1000);
    const renewed = await client.getClientCredentialsToken({ scope: 'api.read' });
    expect(renewed.accessToken).not.toBe(first.accessToken);
    expect(tokenRequests() - before).toBe(2);
  });

  it('invalidate() makes the next call fetch a new token', async () => {
    const client = createNodeClient(service);
    const before = tokenRequests();
    const first = await client.getClientCredentialsToken({ scope: 'api.read' });
    await client.invalidate({ scope: 'api.read' });
    const second = await client.getClientCredentialsToken({ scope: 'api.read' });
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(tokenRequests() - before).toBe(2);
  });

  it('a wrong secret is an invalid_client error, not retried', async () => {
    const client = createNodeClient({ ...service, clientSecret: 'wrong-secret' });
    const before = tokenRequests();
    const error = await client.getClientCredentialsToken().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenEndpointError);
    expect(error).toMatchObject({ error: 'invalid_client' });
    expect((error as Error).message).not.toContain('wrong-secret');
    expect(tokenRequests() - before).toBe(1);
  });

  it('a scope the client may not have is refused by the server, not retried', async () => {
    const client = createNodeClient(service);
    const before = tokenRequests();
    await expect(client.getClientCredentialsToken({ scope: 'openid' })).rejects.toMatchObject({ error: 'invalid_scope' });
    expect(tokenRequests() - before).toBe(1);
  });

  it('works through discovery too', async () => {
    const { provider: _, ...rest } = service;
    const client = createNodeClient({ ...rest, issuer: server.issuer });
    await expect(client.getClientCredentialsToken({ scope: 'api.write' })).resolves.toMatchObject({ tokenType: 'Bearer' });
  });
});
