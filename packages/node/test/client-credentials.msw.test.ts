// HTTP edge cases of getClientCredentialsToken (5xx, 4xx, network failures, lifetimes),
// mocked with msw; the happy path and single flight run against the reference server.
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type NodeClientOptions, TokenEndpointError, createNodeClient, serviceProvider } from '../src/index';

const TOKEN_URL = 'https://id.example.com/acme/oauth/token';
const server = setupServer();

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  vi.useRealTimers();
});
afterAll(() => server.close());

const options: NodeClientOptions = {
  provider: serviceProvider('https://id.example.com/acme'),
  clientId: 'service',
  clientSecret: 'service-secret',
  grants: ['client_credentials'],
  retry: { retries: 2, baseDelay: 1, maxDelay: 5 },
};

/** Answers token requests from a list of responders (the last one repeats) and records the bodies. */
function tokenEndpoint(...responders: Array<() => Response>) {
  const bodies: URLSearchParams[] = [];
  server.use(
    http.post(TOKEN_URL, async ({ request }) => {
      bodies.push(new URLSearchParams(await request.text()));
      const respond = responders[Math.min(bodies.length - 1, responders.length - 1)] as () => Response;
      return respond();
    }),
  );
  return bodies;
}

/** A token response; `expiresIn: null` leaves expires_in out (unknown lifetime). */
const ok = (accessToken: string, expiresIn: number | null = 3600) => () =>
  HttpResponse.json({ access_token: accessToken, token_type: 'bearer', ...(expiresIn === null ? {} : { expires_in: expiresIn }) });
const status = (code: number, body: Record<string, string> = { error: 'server_error' }) => () =>
  HttpResponse.json(body, { status: code });

describe('getClientCredentialsToken: retries', () => {
  it('retries a 5xx and returns the token of the attempt that worked', async () => {
    const bodies = tokenEndpoint(status(503, { error: 'temporarily_unavailable' }), status(500), ok('at-1'));
    const client = createNodeClient(options);
    await expect(client.getClientCredentialsToken({ scope: 'api.read' })).resolves.toMatchObject({ accessToken: 'at-1' });
    expect(bodies).toHaveLength(3);
    for (const body of bodies) {
      expect(body.get('grant_type')).toBe('client_credentials');
      expect(body.get('client_secret')).toBe('service-secret');
      expect(body.get('scope')).toBe('api.read');
    }
  });

  it('retries a network failure', async () => {
    const bodies = tokenEndpoint(() => HttpResponse.error(), ok('at-1'));
    const client = createNodeClient(options);
    await expect(client.getClientCredentialsToken()).resolves.toMatchObject({ accessToken: 'at-1' });
    expect(bodies).toHaveLength(2);
  });

  it('never retries a 400 and reports it as a TokenEndpointError', async () => {
    const bodies = tokenEndpoint(status(400, { error: 'invalid_scope', error_description: 'unknown scope' }), ok('never'));
    const client = createNodeClient(options);
    const error = await client.getClientCredentialsToken({ scope: 'nope' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenEndpointError);
    expect(error).toMatchObject({ status: 400, error: 'invalid_scope' });
    expect(bodies).toHaveLength(1);
  });

  it('never retries a 401 invalid_client', async () => {
    const bodies = tokenEndpoint(status(401, { error: 'invalid_client' }));
    const client = createNodeClient(options);
    await expect(client.getClientCredentialsToken()).rejects.toMatchObject({ status: 401 });
    expect(bodies).toHaveLength(1);
  });

  it('gives up after the configured retries with the last 5xx', async () => {
    const bodies = tokenEndpoint(status(502));
    const client = createNodeClient(options);
    await expect(client.getClientCredentialsToken()).rejects.toMatchObject({ code: 'token_endpoint_error', status: 502 });
    expect(bodies).toHaveLength(3);
  });

  it('sends exactly one request with retry: false', async () => {
    const bodies = tokenEndpoint(status(503));
    const client = createNodeClient({ ...options, retry: false });
    await expect(client.getClientCredentialsToken()).rejects.toMatchObject({ status: 503 });
    expect(bodies).toHaveLength(1);
  });

  it('does not cache a failure: the next call asks again', async () => {
    const bodies = tokenEndpoint(status(400, { error: 'invalid_request' }), ok('at-1'));
    const client = createNodeClient(options);
    await expect(client.getClientCredentialsToken()).rejects.toBeInstanceOf(TokenEndpointError);
    await expect(client.getClientCredentialsToken()).resolves.toMatchObject({ accessToken: 'at-1' });
    expect(bodies).toHaveLength(2);
  });
});

describe('getClientCredentialsToken: lifetimes', () => {
  it('serves the cached token until the renewal window, then renews', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2030-01-01T00:00:00Z') });
    const bodies = tokenEndpoint(ok('at-1', 3600), ok('at-2', 3600));
    const client = createNodeClient({ ...options, renewBeforeExpiry: 120 });
    const first = await client.getClientCredentialsToken();
    expect(first.accessToken).toBe('at-1');
    vi.setSystemTime(new Date('2030-01-01T00:57:59Z')); // 121 s before expiry
    expect((await client.getClientCredentialsToken()).accessToken).toBe('at-1');
    vi.setSystemTime(new Date('2030-01-01T00:58:00Z')); // 120 s before expiry
    expect((await client.getClientCredentialsToken()).accessToken).toBe('at-2');
    expect(bodies).toHaveLength(2);
  });

  it('caches a token of unknown lifetime for unknownLifetimeTtl', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2030-01-01T00:00:00Z') });
    const bodies = tokenEndpoint(ok('opaque-1', null), ok('opaque-2', null));
    const client = createNodeClient({ ...options, unknownLifetimeTtl: 30 });
    expect((await client.getClientCredentialsToken()).accessToken).toBe('opaque-1');
    vi.setSystemTime(new Date('2030-01-01T00:00:29Z'));
    expect((await client.getClientCredentialsToken()).accessToken).toBe('opaque-1');
    vi.setSystemTime(new Date('2030-01-01T00:00:30Z'));
    expect((await client.getClientCredentialsToken()).accessToken).toBe('opaque-2');
    expect(bodies).toHaveLength(2);
  });

  it('reuses a short-lived token for half its lifetime even when the window is longer', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2030-01-01T00:00:00Z') });
    const bodies = tokenEndpoint(ok('short-1', 40), ok('short-2', 40));
    const client = createNodeClient(options); // 60 s window > 40 s lifetime
    await client.getClientCredentialsToken();
    vi.setSystemTime(new Date('2030-01-01T00:00:19Z'));
    expect((await client.getClientCredentialsToken()).accessToken).toBe('short-1');
    vi.setSystemTime(new Date('2030-01-01T00:00:20Z'));
    expect((await client.getClientCredentialsToken()).accessToken).toBe('short-2');
    expect(bodies).toHaveLength(2);
  });

  it('keeps serving a still-valid token when its early renewal fails, and fails once it has expired', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2030-01-01T00:00:00Z') });
    const bodies = tokenEndpoint(ok('at-1', 3600), status(503));
    const client = createNodeClient({ ...options, retry: false });
    await client.getClientCredentialsToken();
    vi.setSystemTime(new Date('2030-01-01T00:59:30Z')); // in the window, not expired
    expect((await client.getClientCredentialsToken()).accessToken).toBe('at-1');
    vi.setSystemTime(new Date('2030-01-01T01:00:00Z')); // expired
    await expect(client.getClientCredentialsToken()).rejects.toMatchObject({ status: 503 });
    expect(bodies).toHaveLength(3);
  });

  it('keys the cache by scope set, whatever the order', async () => {
    const bodies = tokenEndpoint(ok('read-write'), ok('read'));
    const client = createNodeClient(options);
    expect((await client.getClientCredentialsToken({ scope: 'api.read api.write' })).accessToken).toBe('read-write');
    expect((await client.getClientCredentialsToken({ scope: ['api.write', 'api.read'] })).accessToken).toBe('read-write');
    expect((await client.getClientCredentialsToken({ scope: 'api.read' })).accessToken).toBe('read');
    expect(bodies.map((b) => b.get('scope'))).toEqual(['api.read api.write', 'api.read']);
  });

  it('invalidate({ accessToken }) drops only the token a resource refused', async () => {
    const bodies = tokenEndpoint(ok('at-1'), ok('at-2'));
    const client = createNodeClient(options);
    await client.getClientCredentialsToken();
    await client.invalidate({ accessToken: 'at-1' });
    expect((await client.getClientCredentialsToken()).accessToken).toBe('at-2');
    // A late 401 report about the old token does not throw away the new one.
    await client.invalidate({ accessToken: 'at-1' });
    expect((await client.getClientCredentialsToken()).accessToken).toBe('at-2');
    expect(bodies).toHaveLength(2);
  });

  it('uses a custom (async) TokenCache with the TTL of the token', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2030-01-01T00:00:00Z') });
    tokenEndpoint(ok('at-1', 600));
    const store = new Map<string, unknown>();
    const ttls: number[] = [];
    const client = createNodeClient({
      ...options,
      tokenCache: {
        get: async (key) => store.get(key) as never,
        set: async (key, value, ttl) => {
          ttls.push(ttl);
          store.set(key, JSON.parse(JSON.stringify(value)));
        },
        delete: async (key) => {
          store.delete(key);
        },
      },
    });
    await client.getClientCredentialsToken({ scope: 'api.read' });
    expect(ttls).toEqual([600]);
    expect([...store.keys()]).toEqual(['oidc-rp:cc:https://id.example.com/acme:service:api.read']);
    expect(store.get('oidc-rp:cc:https://id.example.com/acme:service:api.read')).toMatchObject({
      tokens: { accessToken: 'at-1' },
      expiresAt: Date.parse('2030-01-01T00:10:00Z') / 1000,
      renewAt: Date.parse('2030-01-01T00:09:00Z') / 1000,
    });
    await client.invalidate({ scope: 'api.read' });
    expect(store.size).toBe(0);
  });

  it('keeps working when the shared cache fails (it degrades to asking the provider)', async () => {
    const bodies = tokenEndpoint(ok('at-1'), ok('at-2'));
    const client = createNodeClient({
      ...options,
      tokenCache: {
        get: async () => {
          throw new Error('cache down');
        },
        set: () => {
          throw new Error('cache down');
        },
        delete: async () => undefined,
      },
    });
    expect((await client.getClientCredentialsToken()).accessToken).toBe('at-1');
    expect((await client.getClientCredentialsToken()).accessToken).toBe('at-2');
    expect(bodies).toHaveLength(2);
  });

  it('concurrent callers share one failing request too, and the next call tries again', async () => {
    const bodies = tokenEndpoint(status(400, { error: 'invalid_request' }), ok('at-1'));
    const client = createNodeClient(options);
    const results = await Promise.allSettled(Array.from({ length: 100 }, () => client.getClientCredentialsToken()));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(bodies).toHaveLength(1);
    expect((await client.getClientCredentialsToken()).accessToken).toBe('at-1');
  });
});
