// RFC 7662: @oidc-rp/core's introspectionVerifier (through @oidc-rp/node/api) against
// oidc-provider's introspection endpoint, over real HTTP on 127.0.0.1. The provider is the
// judge: an introspection request it refuses, or an answer the verifier misreads, fails these tests.
import { createNodeClient } from '@oidc-rp/node';
import { clientSecretBasic, discovery, introspectionVerifier, requireAccessToken } from '@oidc-rp/node/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InteropClient, type RunningOidcProvider, startOidcProvider } from './support/oidc-provider';

const SECRET = 'introspection-interop-client-secret-0123456789';
const CLIENTS: InteropClient[] = [
  { client_id: 'orders-api', client_secret: SECRET, token_endpoint_auth_method: 'client_secret_basic', redirect_uris: [], grant_types: ['client_credentials'], response_types: [] },
  { client_id: 'batch-job', client_secret: SECRET, token_endpoint_auth_method: 'client_secret_basic', redirect_uris: [], grant_types: ['client_credentials'], response_types: [] },
];

let op: RunningOidcProvider;
let now = Math.floor(Date.now() / 1000);
beforeAll(async () => {
  op = await startOidcProvider(CLIENTS, { introspection: true });
});
afterAll(() => op?.close());

async function jobToken(): Promise<string> {
  const job = createNodeClient({ issuer: op.issuer, clientId: 'batch-job', clientSecret: SECRET, grants: ['client_credentials'] });
  return (await job.getClientCredentialsToken({ scope: 'api.read' })).accessToken;
}

function verifier() {
  return introspectionVerifier({ provider: discovery(op.issuer), client: { clientId: 'orders-api' }, clientAuth: clientSecretBasic(SECRET), cache: { maxAge: 10 }, now: () => now });
}

const request = (token: string) => new Request('https://orders.example.com/orders', { headers: { authorization: `Bearer ${token}` } });

describe('introspectionVerifier against oidc-provider', () => {
  it("accepts another client's active token with its client, scope and the issuer", async () => {
    const verified = await verifier()({ method: 'GET', url: 'https://orders.example.com/orders', authorization: `Bearer ${await jobToken()}`, dpop: null });
    expect(verified.scheme).toBe('Bearer');
    expect(verified.scopes).toEqual(['api.read']);
    expect(verified.claims).toMatchObject({ iss: op.issuer, client_id: 'batch-job', sub: 'batch-job' });
    expect(verified.claims.exp).toBeGreaterThan(now);
  });

  it('refuses an unknown token with 401 invalid_token through the guard', async () => {
    const guard = requireAccessToken({ verifier: verifier(), origin: 'https://orders.example.com' });
    const result = await guard(request('not-a-token-the-provider-issued'));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.response.status).toBe(401);
      expect(result.response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    }
  });

  it('refuses a token the provider revoked once the cache bound has passed', async () => {
    const token = await jobToken();
    const guard = requireAccessToken({ verifier: verifier(), origin: 'https://orders.example.com' });
    expect((await guard(request(token))).ok).toBe(true);
    const revoked = await fetch(`${op.issuer}/token/revocation`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${btoa(`batch-job:${SECRET}`)}` },
      body: new URLSearchParams({ token }),
    });
    expect(revoked.status).toBe(200);
    expect((await guard(request(token))).ok).toBe(true); // cached, within the stated 10 s
    now += 10;
    expect((await guard(request(token))).ok).toBe(false);
  });

  it('answers 503 when the provider refuses the resource server credentials', async () => {
    const wrong = introspectionVerifier({ provider: discovery(op.issuer), client: { clientId: 'orders-api' }, clientAuth: clientSecretBasic('wrong-secret-of-enough-length-000') });
    const result = await requireAccessToken({ verifier: wrong, origin: 'https://orders.example.com' })(request(await jobToken()));
    expect(result.ok ? 200 : result.response.status).toBe(503);
  });
});
