// audience, RFC 8707 resource indicators and extra parameters of getClientCredentialsToken:
// what reaches the token endpoint, and one cache entry per distinct request.
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ClientCredentialsOptions, type NodeClientOptions, createNodeClient, serviceProvider } from '../src/index';

const TOKEN_URL = 'https://id.example.com/acme/oauth/token';
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const options: NodeClientOptions = {
  provider: serviceProvider('https://id.example.com/acme'),
  clientId: 'service',
  clientSecret: 'service-secret',
  grants: ['client_credentials'],
  retry: false,
};

/** Issues a new token per request (`at-1`, `at-2`, …) and records the bodies. */
function tokenEndpoint() {
  const bodies: URLSearchParams[] = [];
  server.use(
    http.post(TOKEN_URL, async ({ request }) => {
      bodies.push(new URLSearchParams(await request.text()));
      return HttpResponse.json({ access_token: `at-${bodies.length}`, token_type: 'bearer', expires_in: 3600 });
    }),
  );
  return bodies;
}

describe('getClientCredentialsToken: audience, resource and extra', () => {
  it('sends audience, every resource and extra parameters beside the scope', async () => {
    const bodies = tokenEndpoint();
    const client = createNodeClient(options);
    await client.getClientCredentialsToken({
      scope: 'api.read',
      audience: 'https://api.example.com',
      resource: ['https://api.example.com/', 'https://files.example.com/'],
      extra: { organization: 'acme' },
    });
    const [body] = bodies;
    expect(body?.get('grant_type')).toBe('client_credentials');
    expect(body?.get('scope')).toBe('api.read');
    expect(body?.getAll('audience')).toEqual(['https://api.example.com']);
    expect(body?.getAll('resource')).toEqual(['https://api.example.com/', 'https://files.example.com/']);
    expect(body?.get('organization')).toBe('acme');
    expect(body?.get('client_secret')).toBe('service-secret');
  });

  it('gives each audience its own cached token, and reuses it for the same audience', async () => {
    const bodies = tokenEndpoint();
    const client = createNodeClient(options);
    const orders = await client.getClientCredentialsToken({ scope: 'api.read', audience: 'orders' });
    const billing = await client.getClientCredentialsToken({ scope: 'api.read', audience: 'billing' });
    const plain = await client.getClientCredentialsToken({ scope: 'api.read' });
    expect(new Set([orders.accessToken, billing.accessToken, plain.accessToken]).size).toBe(3);
    await expect(client.getClientCredentialsToken({ scope: 'api.read', audience: 'orders' })).resolves.toMatchObject({
      accessToken: orders.accessToken,
    });
    expect(bodies).toHaveLength(3);
  });

  it('treats resources in another order, repeated, or scopes reordered as the same request', async () => {
    const bodies = tokenEndpoint();
    const client = createNodeClient(options);
    const first = await client.getClientCredentialsToken({ scope: 'a b', resource: ['https://x.example/', 'https://y.example/'] });
    const second = await client.getClientCredentialsToken({
      scope: ['b', 'a'],
      resource: ['https://y.example/', 'https://x.example/', 'https://y.example/'],
    });
    expect(second.accessToken).toBe(first.accessToken);
    const other = await client.getClientCredentialsToken({ scope: 'a b', resource: 'https://x.example/' });
    expect(other.accessToken).not.toBe(first.accessToken);
    expect(bodies).toHaveLength(2);
  });

  it('single flight per request: concurrent callers of two audiences cause two requests', async () => {
    const bodies = tokenEndpoint();
    const client = createNodeClient(options);
    const calls = [...Array(10)].map((_, i) => client.getClientCredentialsToken({ audience: i % 2 ? 'orders' : 'billing' }));
    const tokens = await Promise.all(calls);
    expect(bodies).toHaveLength(2);
    expect(new Set(tokens.map((t) => t.accessToken)).size).toBe(2);
  });

  it('invalidate drops only the entry of the matching request', async () => {
    const bodies = tokenEndpoint();
    const client = createNodeClient(options);
    const orders = await client.getClientCredentialsToken({ audience: 'orders' });
    const billing = await client.getClientCredentialsToken({ audience: 'billing' });
    await client.invalidate({ audience: 'orders', accessToken: orders.accessToken });
    expect((await client.getClientCredentialsToken({ audience: 'orders' })).accessToken).not.toBe(orders.accessToken);
    expect((await client.getClientCredentialsToken({ audience: 'billing' })).accessToken).toBe(billing.accessToken);
    expect(bodies).toHaveLength(3);
  });

  it('refuses a resource with a fragment or not absolute, protocol parameters in extra, and duplicates, before any request', async () => {
    const bodies = tokenEndpoint();
    const client = createNodeClient(options);
    const bad: ClientCredentialsOptions[] = [
      { resource: 'https://api.example.com/#x' },
      { resource: '/relative' },
      { resource: [] },
      { audience: '' },
      { extra: { grant_type: 'password' } },
      { extra: { scope: 'admin' } },
      { audience: 'a', extra: { audience: 'b' } },
    ];
    for (const options of bad) {
      await expect(client.getClientCredentialsToken(options)).rejects.toMatchObject({ code: 'invalid_options' });
    }
    expect(bodies).toHaveLength(0);
  });
});
