// The introspection verifier behind the guard, against the reference server over real HTTP:
// a token for this API is accepted, a token for another audience or a revoked one is refused,
// a burst of one token costs one introspection, a provider outage is a 503, and a DPoP-bound
// token needs a proof by the key of its introspected cnf.jkt (the dpopProofs() checker).
import { createDpopProof, dpop } from '@oidc-rp/core';
import { demoConfig } from '@oidc-rp/reference-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeClient } from '../../src/index';
import {
  type AccessTokenVariables,
  clientSecretBasic,
  discovery,
  dpopProofs,
  honoAccessToken,
  introspectionVerifier,
  requireAccessToken,
} from '../../src/api/index';
import { type RunningServer, serviceClientOptions, startReferenceServer } from '../support/reference-server';
import { serveFetch } from '../support/serve-fetch';

const API = 'https://api.example.com';
let server: RunningServer;
let api: { origin: string; close(): Promise<void> };
let now = 0;

beforeAll(async () => {
  const config = demoConfig();
  const web = config.tenants[0]?.clients?.find((c) => c.client_id === 'web');
  if (web) web.introspection_audiences = [API];
  const service = config.tenants[0]?.clients?.find((c) => c.client_id === 'service');
  if (service) service.resources = [API, 'https://other.example.com'];
  server = await startReferenceServer(config);
  now = Math.floor(Date.now() / 1000);
  const verifier = introspectionVerifier({
    provider: discovery(server.issuer),
    client: { clientId: 'web' },
    clientAuth: clientSecretBasic('web-secret-of-the-demo-Zq7Xk2Lm9Vb4'),
    audience: API,
    cache: { maxAge: 30 },
    now: () => now,
    dpop: dpopProofs(),
  });
  const app = new Hono<{ Variables: AccessTokenVariables }>();
  app.use('/orders', honoAccessToken(requireAccessToken({ verifier, origin: API, scope: 'api.read' })));
  app.get('/orders', (c) => c.json({ sub: c.get('accessToken').claims.sub, client: c.get('accessToken').claims.client_id, scheme: c.get('accessToken').scheme }));
  api = await serveFetch(app.fetch);
});
afterAll(async () => {
  await api?.close();
  await server?.close();
});

async function serviceToken(resource: string): Promise<string> {
  const service = createNodeClient(serviceClientOptions(server)) // a new client: a new token;
  return (await service.getClientCredentialsToken({ scope: 'api.read', resource })).accessToken;
}

const call = (token: string) => fetch(`${api.origin}/orders`, { headers: { authorization: `Bearer ${token}` } });

describe('introspectionVerifier behind requireAccessToken', () => {
  it('accepts a token issued for this API, and 50 concurrent requests with it cost one introspection', async () => {
    const token = await serviceToken(API);
    const before = server.count('POST', '/oauth/introspect');
    const answers = await Promise.all(Array.from({ length: 50 }, () => call(token)));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    expect(await answers[0]!.json()).toEqual({ sub: 'service', client: 'service', scheme: 'Bearer' });
    expect(server.count('POST', '/oauth/introspect') - before).toBe(1);
  });

  it('refuses a token for another audience with 401 invalid_token', async () => {
    const answer = await call(await serviceToken('https://other.example.com'));
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    // The provider answers active: false to an API that may not see the token: the refusal names
    // this API's audience and the resource to ask for, in the header and the body alike.
    const description = ((await answer.json()) as { error_description: string }).error_description;
    expect(description).toBe(`The access token is not active for this API (${API}): unknown, expired, revoked, or issued for another audience (ask for it with resource ${API}).`);
    expect(answer.headers.get('www-authenticate')).toContain(`error_description="${description}"`);
  });

  it('stops accepting a revoked token once the cache bound has passed', async () => {
    const token = await serviceToken(API);
    expect((await call(token)).status).toBe(200);
    const revoked = await fetch(`${server.issuer}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: 'service', client_secret: 'service-secret' }),
    });
    expect(revoked.status).toBe(200);
    expect((await call(token)).status).toBe(200); // the cached answer, within the stated 30 s
    now += 30;
    const answer = await call(token);
    expect(answer.status).toBe(401);
    expect(await answer.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('answers 503 when the provider cannot be reached, and is not fooled into accepting', async () => {
    const down = introspectionVerifier({
      provider: discovery(server.issuer),
      client: { clientId: 'web' },
      clientAuth: clientSecretBasic('wrong-secret'),
      audience: API,
    });
    const guard = requireAccessToken({ verifier: down, origin: API });
    const result = await guard(new Request(`${API}/orders`, { headers: { authorization: `Bearer ${await serviceToken(API)}` } }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.response.status).toBe(503);
    expect(await result.response.json()).toMatchObject({ error: 'temporarily_unavailable', error_description: expect.stringContaining('introspection_failed') });
  });

  it('accepts a DPoP-bound token with a proof by its key, and refuses it as Bearer or with another key\'s proof', async () => {
    const [handle, stranger] = await Promise.all([dpop(), dpop()]);
    const service = createNodeClient({ ...serviceClientOptions(server), dpop: handle });
    const { accessToken } = await service.getClientCredentialsToken({ scope: 'api.read', resource: API });
    const withProof = async (key: typeof handle) => ({
      authorization: `DPoP ${accessToken}`,
      // htu is the API's public origin: the guard never builds the URL from the Host header.
      dpop: await createDpopProof(key, { htm: 'GET', htu: `${API}/orders`, accessToken }),
    });
    const ok = await fetch(`${api.origin}/orders`, { headers: await withProof(handle) });
    expect([ok.status, (await ok.json()).scheme]).toEqual([200, 'DPoP']);

    const asBearer = await call(accessToken);
    expect(asBearer.status).toBe(401);
    expect(await asBearer.json()).toMatchObject({ error: 'invalid_token' });
    const stolen = await fetch(`${api.origin}/orders`, { headers: await withProof(stranger) });
    expect(stolen.status).toBe(401);
    expect(stolen.headers.get('www-authenticate')).toMatch(/^DPoP .*error="invalid_dpop_proof"/);
  });
});
