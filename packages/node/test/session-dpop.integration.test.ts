// The session layer with DPoP (RFC 9449) against the reference server requiring DPoP for the
// web client, over real HTTP: the login's code exchange, the session's refreshes and its API
// calls all carry proofs by the app's key, and the session's tokens are bound to it, so a copy
// of the access token is useless without the key (sent as Bearer, or with another key's proof).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDpopProof, dpop, type DpopHandle, isOidcError } from '../src/index';
import { Agent, type SessionWorld, startSessionWorld } from './support/session-app';

let world: SessionWorld;
let handle: DpopHandle;
let userinfo: string;

beforeAll(async () => {
  handle = await dpop();
  world = await startSessionWorld({ dpop: handle });
  await world.control.clients.update('web', { require_dpop: true });
  userinfo = `${world.issuer}/oidc/userinfo`;
});
afterAll(() => world?.close());

function jwtPayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString());
}

describe('createSessionAuth with a DPoP key on its client', () => {
  it('logs in, refreshes and calls an API with proofs; the session says DPoP and its token is bound to the key', async () => {
    world.use();
    const agent = new Agent(world.appOrigin);
    expect((await agent.logIn()).status).toBe(303);
    const { body: me } = await agent.json<{ accessToken: string }>('/me');
    const api = await agent.json<{ status: number; tokenType: string; body: { sub: string } }>(`/api?url=${encodeURIComponent(userinfo)}`);
    expect(api.body).toEqual({ status: 200, tokenType: 'DPoP', body: expect.objectContaining({ sub: 'alice' }) });

    const refreshes = world.count('POST', '/oauth/token');
    const { body: refreshed } = await agent.json<{ accessToken: string }>('/token?force');
    expect(world.count('POST', '/oauth/token')).toBe(refreshes + 1);
    expect(refreshed.accessToken).not.toBe(me.accessToken);
    // Bound to the app's key before and after the refresh: as Bearer, either is refused.
    for (const token of [me.accessToken, refreshed.accessToken]) {
      expect((await fetch(userinfo, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    }
    // The journal has the proof's traces: the refresh grant was accepted with the DPoP scheme required.
    const grants = await world.control.requests.list({ path: '/oauth/token', grant_type: 'refresh_token' });
    expect(grants.at(-1)?.status).toBe(200);
    const again = await agent.json<{ status: number }>(`/api?url=${encodeURIComponent(userinfo)}`);
    expect(again.body.status).toBe(200);
  });

  it('a copy of the session token is refused without the key: as Bearer, or with a proof by another key', async () => {
    world.use();
    const agent = new Agent(world.appOrigin);
    await agent.logIn();
    const { body } = await agent.json<{ accessToken: string }>('/me');
    const asBearer = await fetch(userinfo, { headers: { authorization: `Bearer ${body.accessToken}` } });
    expect(asBearer.status).toBe(401);
    const thief = await dpop();
    const proof = await createDpopProof(thief, { htm: 'GET', htu: userinfo, accessToken: body.accessToken });
    const otherKey = await fetch(userinfo, { headers: { authorization: `DPoP ${body.accessToken}`, dpop: proof } });
    expect(otherKey.status).toBe(401);
    expect(otherKey.headers.get('www-authenticate')).toContain('invalid_dpop_proof');
  });

  it('createDpopProof makes a proof for the session token that the API accepts', async () => {
    const auth = world.use();
    const agent = new Agent(world.appOrigin);
    await agent.logIn();
    const { session } = await auth.getSession(new Request(`${world.appOrigin}/x`, { headers: { cookie: agent.cookieHeader() } }));
    if (!session) throw new Error('no session');
    const proof = await auth.createDpopProof(session, { method: 'get', url: userinfo });
    expect(jwtPayload(proof)).toMatchObject({ htm: 'GET', htu: userinfo, ath: expect.any(String) });
    const response = await fetch(userinfo, { headers: { authorization: `DPoP ${session.accessToken}`, dpop: proof } });
    expect(response.status).toBe(200);
  });

  it('without a key, a client the provider requires DPoP of cannot log in, and createDpopProof says what to configure', async () => {
    const plain = await startSessionWorld();
    try {
      await plain.control.clients.update('web', { require_dpop: true });
      const auth = plain.use();
      const agent = new Agent(plain.appOrigin);
      const callback = await agent.logIn();
      expect(callback.status).toBe(400); // the error page: the code exchange was refused
      const session = { accessToken: 'x', tokenType: 'Bearer' } as Parameters<typeof auth.createDpopProof>[0];
      const error = await auth.createDpopProof(session, { method: 'GET', url: userinfo }).catch((e: unknown) => e);
      expect(isOidcError(error) && error.code).toBe('invalid_options');
    } finally {
      await plain.close();
    }
  });
});
