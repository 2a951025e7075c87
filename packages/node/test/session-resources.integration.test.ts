// The session layer with RFC 8707 resource indicators over real HTTP: an app (node:http, the
// session layer) whose client logs in for two APIs and a third, and two APIs on their own ports
// guarded by @oidc-rp/node/api with their own audience and DPoP with server nonces. What a user
// relies on: each API gets a DPoP-bound token for itself alone, obtained by refresh (no new login)
// and kept in the session; the token of one API never reaches the other (nor the session's own,
// which names them all); a URL of no listed API gets nothing; a resource the provider refuses is
// invalid_target with the session unchanged; logout drops the tokens with the session.
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dpopNonces, dpopProofs, jwtAccessTokenVerifier, requireAccessToken, withAccessToken } from '../src/api/index';
import { type DpopHandle, MemorySessionStore, dpop } from '../src/index';
import { serveFetch } from './support/serve-fetch';
import { Agent, type SessionWorld, startSessionWorld } from './support/session-app';

interface Api {
  origin: string;
  resource: string;
  /** The access tokens that reached the API, in order. */
  tokens: string[];
  guard(issuer: string): void;
  close(): Promise<void>;
}

async function startApi(): Promise<Api> {
  let handler: ((request: Request) => Promise<Response>) | undefined;
  const tokens: string[] = [];
  const served = await serveFetch(async (request) => {
    const token = request.headers.get('authorization')?.split(' ')[1];
    if (token) tokens.push(token);
    return handler ? handler(request) : new Response(null, { status: 503 });
  });
  const resource = `${served.origin}/api`;
  return {
    origin: served.origin,
    resource,
    tokens,
    guard(issuer) {
      const guard = requireAccessToken({
        verifier: jwtAccessTokenVerifier({
          issuer,
          jwksUri: `${issuer}/oidc/jwks`,
          audience: resource,
          dpop: dpopProofs({ required: true, nonces: dpopNonces({ secret: `a-nonce-secret-for-this-test-only-${served.origin}` }) }),
        }),
        origin: served.origin,
      });
      handler = withAccessToken(guard, async (_request, token) =>
        Response.json({ aud: token.claims.aud, scheme: token.scheme, jkt: (token.claims.cnf as { jkt?: string } | undefined)?.jkt }),
      );
    },
    close: served.close,
  };
}

let world: SessionWorld;
let handle: DpopHandle;
let orders: Api;
let files: Api;
let retired: string;

beforeAll(async () => {
  handle = await dpop();
  orders = await startApi();
  files = await startApi();
  retired = `${orders.origin}/retired`;
  const all = [orders.resource, files.resource, retired];
  world = await startSessionWorld({ dpop: handle, resources: { client: all, provider: all } });
  orders.guard(world.issuer);
  files.guard(world.issuer);
});
afterAll(async () => {
  await world?.close();
  await orders?.close();
  await files?.close();
});

async function loggedIn(): Promise<Agent> {
  const agent = new Agent(world.appOrigin);
  expect((await agent.logIn()).status).toBe(303);
  return agent;
}

const call = (agent: Agent, url: string) => agent.json<{ status?: number; body?: unknown; error?: string }>(`/call?url=${encodeURIComponent(url)}`);
const token = (agent: Agent, resource: string, force = false) =>
  agent.json<{ accessToken?: string; error?: string; oauthError?: string }>(`/token?resource=${encodeURIComponent(resource)}${force ? '&force' : ''}`);

describe('createSessionAuth with resources: a token per API in the session', () => {
  it('each API gets a DPoP-bound token of its own audience, obtained once by refresh and kept in the session; no other token ever reaches it', async () => {
    world.use();
    const agent = await loggedIn();
    const { body: me } = await agent.json<{ accessToken: string }>('/me');
    expect(decodeJwt(me.accessToken).aud).toEqual([orders.resource, files.resource, retired]);

    const refreshes = world.count('POST', '/oauth/token');
    expect((await call(agent, `${orders.origin}/api/orders/7`)).body).toEqual({ status: 200, body: { aud: orders.resource, scheme: 'DPoP', jkt: handle.jkt } });
    expect((await call(agent, `${files.origin}/api`)).body).toEqual({ status: 200, body: { aud: files.resource, scheme: 'DPoP', jkt: handle.jkt } });
    expect(world.count('POST', '/oauth/token')).toBe(refreshes + 2);
    // From the session now: no further refresh.
    expect((await call(agent, `${orders.origin}/api/orders`)).body).toMatchObject({ status: 200, body: { aud: orders.resource } });
    expect((await call(agent, `${files.origin}/api/files/1`)).body).toMatchObject({ status: 200, body: { aud: files.resource } });
    expect(world.count('POST', '/oauth/token')).toBe(refreshes + 2);
    // The attack: another audience's token (the other API's, or the session's naming all) at an API.
    for (const api of [orders, files]) {
      expect(api.tokens.length).toBeGreaterThanOrEqual(2);
      for (const sent of api.tokens) expect(decodeJwt(sent).aud).toBe(api.resource);
      expect(api.tokens).not.toContain(me.accessToken);
    }
    // The session's own token is untouched by the refreshes for the APIs.
    expect((await agent.json<{ accessToken: string }>('/me')).body.accessToken).toBe(me.accessToken);
  });

  it('sends nothing to a URL of no listed API, and refuses a token for an unlisted resource; the session stays', async () => {
    world.use();
    const agent = await loggedIn();
    const before = orders.tokens.length;
    const refreshes = world.count('POST', '/oauth/token');
    expect((await call(agent, `${orders.origin}/admin`)).body).toEqual({ error: 'resource_not_configured' });
    expect((await call(agent, `${orders.origin}/apix`)).body).toEqual({ error: 'resource_not_configured' });
    expect((await token(agent, 'https://elsewhere.example/api')).body).toEqual({ error: 'resource_not_configured' });
    expect(orders.tokens.length).toBe(before);
    expect(world.count('POST', '/oauth/token')).toBe(refreshes);
    expect((await agent.json('/state')).body).toMatchObject({ signedIn: true });
  });

  it('a resource the provider no longer allows: invalid_target, and the session and its other tokens stay as they were', async () => {
    world.use();
    const agent = await loggedIn();
    const ordersToken = (await token(agent, orders.resource)).body.accessToken;
    expect(ordersToken).toEqual(expect.any(String));
    await world.control.clients.update('web', { resources: [orders.resource, files.resource] });
    try {
      expect((await token(agent, retired)).body).toEqual({ error: 'token_endpoint_error', oauthError: 'invalid_target' });
      expect((await agent.json('/state')).body).toMatchObject({ signedIn: true });
      expect((await token(agent, orders.resource)).body.accessToken).toBe(ordersToken);
      // The refresh token was not spent by the refusal: the other API's token is still issued.
      expect((await call(agent, `${files.origin}/api`)).body).toMatchObject({ status: 200, body: { aud: files.resource } });
    } finally {
      await world.control.clients.update('web', { resources: [orders.resource, files.resource, retired] });
    }
  });

  it('forceRefresh renews one API’s token; logout drops the tokens with the session (a copied cookie gets none)', async () => {
    world.use({ store: new MemorySessionStore() });
    const agent = await loggedIn();
    const first = (await token(agent, orders.resource)).body.accessToken;
    const renewed = (await token(agent, orders.resource, true)).body.accessToken;
    expect(renewed).toEqual(expect.any(String));
    expect(renewed).not.toBe(first);
    expect(decodeJwt(renewed as string).aud).toBe(orders.resource);

    const copied = agent.cookieHeader();
    const { body: me } = await agent.json<{ csrfToken: string }>('/me');
    const logout = await agent.request('/auth/logout', {
      method: 'POST',
      body: new URLSearchParams({ csrf_token: me.csrfToken }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: world.appOrigin },
    });
    expect(logout.status).toBe(303);
    const replay = await fetch(`${world.appOrigin}/token?resource=${encodeURIComponent(orders.resource)}`, { headers: { cookie: copied } });
    expect(await replay.json()).toEqual({ error: 'login_required' });
  });
});
