// The client's retry and error handling against the reference server's transport faults over
// real HTTP: 5xx and dropped connections are retried, 429 and exhausted retries are reported,
// slow answers time out, and JWKS, discovery and userinfo outages surface as their error codes.
// (The msw tests cover the same rules with hand-made responses; these prove them end to end.)
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type NodeClientOptions, TokenEndpointError, createNodeClient, serviceProvider } from '../src/index';
import { type RunningServer, loginThroughForms, serviceClientOptions, startReferenceServer } from './support/reference-server';

let server: RunningServer;
let service: NodeClientOptions;
let web: NodeClientOptions;

beforeAll(async () => {
  server = await startReferenceServer();
  service = { ...serviceClientOptions(server), retry: { retries: 2, baseDelay: 1, maxDelay: 5 } };
  web = {
    provider: serviceProvider(server.issuer),
    clientId: 'web',
    clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
    redirectUri: 'http://127.0.0.1:3000/callback',
    scope: 'openid profile email',
  };
});
afterEach(() => server.control.transport.clear());
afterAll(() => server.close());

const tokenRequests = () => server.count('POST', '/oauth/token');

describe('client credentials against a failing token endpoint', () => {
  it('retries a 503 and returns the token of the attempt that worked', async () => {
    await server.control.transport.set('/oauth/token', { status: 503 }, { times: 2 });
    const before = tokenRequests();
    await expect(createNodeClient(service).getClientCredentialsToken({ scope: 'api.read' })).resolves.toMatchObject({ tokenType: 'Bearer' });
    expect(tokenRequests() - before).toBe(3);
  });

  it('retries a dropped connection', async () => {
    await server.control.transport.set('/oauth/token', { drop: true }, { times: 1 });
    const before = tokenRequests();
    await expect(createNodeClient(service).getClientCredentialsToken({ scope: 'api.read' })).resolves.toMatchObject({ tokenType: 'Bearer' });
    expect(tokenRequests() - before).toBe(2);
  });

  it('does not retry a 429: the error carries the status', async () => {
    await server.control.transport.set('/oauth/token', { status: 429, retryAfter: 30 }, { times: 1 });
    const before = tokenRequests();
    const error = await createNodeClient(service).getClientCredentialsToken({ scope: 'api.read' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenEndpointError);
    expect(error).toMatchObject({ status: 429, error: 'temporarily_unavailable' });
    expect(tokenRequests() - before).toBe(1);
  });

  it('gives up after the configured retries during an outage, and works once it is over', async () => {
    await server.control.transport.set('/oauth/token', { status: 500 });
    const client = createNodeClient(service);
    const before = tokenRequests();
    await expect(client.getClientCredentialsToken({ scope: 'api.read' })).rejects.toMatchObject({ status: 500, error: 'server_error' });
    expect(tokenRequests() - before).toBe(3);
    await server.control.transport.clear('/oauth/token');
    await expect(client.getClientCredentialsToken({ scope: 'api.read' })).resolves.toMatchObject({ tokenType: 'Bearer' });
  });

  // Timer-bound: the timeout must be longer than an ordinary answer takes on this machine now (else
  // the retry times out too: 200 ms made a third request on a busy machine), and the latency longer
  // than the timeout. Both follow an ordinary token request timed first: 1-8 s, and three times that.
  it('times out an answer slower than the timeout (timer: the timeout against three times its latency), and retries it', async () => {
    const started = performance.now();
    await createNodeClient(service).getClientCredentialsToken({ scope: 'api.read' });
    const timeout = Math.min(8_000, Math.max(1_000, Math.ceil(5 * (performance.now() - started))));
    const latencyMs = 3 * timeout;
    await server.control.transport.set('/oauth/token', { latencyMs }, { times: 1 });
    const client = createNodeClient({ ...service, timeout });
    const before = tokenRequests();
    await expect(client.getClientCredentialsToken({ scope: 'api.read' })).resolves.toMatchObject({ tokenType: 'Bearer' });
    expect(tokenRequests() - before).toBe(2);
    await server.control.transport.set('/oauth/token', { latencyMs });
    await expect(createNodeClient({ ...service, timeout, retry: false }).getClientCredentialsToken()).rejects.toMatchObject({ code: 'request_timeout' });
  }, 60_000); // two timeouts of at most 8 s and a retry: a hang guard past them
});

describe('outages of the other endpoints', () => {
  it('a JWKS outage fails the login with jwks_fetch_failed; the login works once it is over', async () => {
    // A server of its own: the JWKS cache of core is per jwks_uri, and this one has never been fetched.
    const own = await startReferenceServer();
    try {
      const client = createNodeClient({ ...web, provider: serviceProvider(own.issuer) });
      await own.control.transport.set('/oidc/jwks', { status: 503 });
      const first = await loginThroughForms(client);
      if (first.result.type !== 'redirect') throw new Error('expected a redirect');
      await expect(client.finishLogin(first.result.location, first.transaction)).rejects.toMatchObject({ code: 'jwks_fetch_failed' });
      await own.control.transport.clear();
      const second = await loginThroughForms(client);
      if (second.result.type !== 'redirect') throw new Error('expected a redirect');
      await expect(client.finishLogin(second.result.location, second.transaction)).resolves.toMatchObject({ claims: { sub: 'alice' } });
    } finally {
      await own.close();
    }
  });

  it('a discovery outage is discovery_failed, and discovery is tried again on the next call', async () => {
    const { provider: _, ...rest } = service;
    const client = createNodeClient({ ...rest, issuer: server.issuer, retry: false });
    await server.control.transport.set('/.well-known/openid-configuration', { status: 503 }, { times: 1 });
    await expect(client.getClientCredentialsToken({ scope: 'api.read' })).rejects.toMatchObject({ code: 'discovery_failed' });
    await expect(client.getClientCredentialsToken({ scope: 'api.read' })).resolves.toMatchObject({ tokenType: 'Bearer' });
  });

  it('a userinfo outage is userinfo_error naming the status', async () => {
    const client = createNodeClient(web);
    const { result, transaction } = await loginThroughForms(client);
    if (result.type !== 'redirect') throw new Error('expected a redirect');
    const tokens = await client.finishLogin(result.location, transaction);
    await server.control.transport.set('/oidc/userinfo', { status: 502 }, { times: 1 });
    const error = await client.getUserInfo(tokens.accessToken, { expectedSubject: 'alice' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'userinfo_error' });
    expect((error as Error).message).toContain('502');
    await expect(client.getUserInfo(tokens.accessToken, { expectedSubject: 'alice' })).resolves.toMatchObject({ sub: 'alice' });
  });
});
