// The whole path over real HTTP: a user's session at the provider ends (RP-initiated logout, or
// the sessions.end control call), the provider POSTs its logout token to one instance of the app,
// and the session is gone on every instance sharing the Redis store before the provider answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, completeLogin } from '@oidc-rp/reference-server/testing';
import { RedisSessionStore } from '../src/redis/index';
import { type AppInstance, type BackchannelWorld, startBackchannelWorld, stateAt } from './support/backchannel-world';
import { Agent } from './support/session-app';

let world: BackchannelWorld;

beforeAll(async () => {
  // The provider tells instance B (index 1) of the app; sessions are started at instance A.
  world = await startBackchannelWorld((config, origins) => {
    const web = config.tenants[0]?.clients?.find((c) => c.client_id === 'web');
    Object.assign(web ?? {}, { backchannel_logout_uri: `${origins[1]}/auth/backchannel-logout`, backchannel_logout_session_required: true });
  });
  for (const app of world.apps) app.use({ store: new RedisSessionStore({ redis: world.redis, keyPrefix: 'fleet-bcl:' }), backchannelLogout: { clientId: 'web' } });
});
afterAll(() => world?.close());

/** Logs a new app session in at `app`, with `providerJar` as the browser's cookies at the provider (SSO when reused). */
async function signIn(app: AppInstance, providerJar: CookieJar, username = 'alice'): Promise<Agent> {
  const agent = new Agent(app.origin);
  const login = await agent.request('/auth/login');
  const result = await completeLogin(login.headers.get('location') as string, { cookies: providerJar, username, password: 'wonderland' });
  if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
  const target = new URL(result.location);
  expect((await agent.request(target.pathname + target.search)).status).toBe(303);
  return agent;
}

describe('back-channel logout across a fleet on one Redis store', () => {
  it('RP-initiated logout at the provider ends every app session of that provider session, on every instance, within the logout request', async () => {
    const [a, b] = world.apps;
    const browser = new CookieJar();
    const tab1 = await signIn(a, browser);
    const tab2 = await signIn(a, browser); // SSO: the same provider session
    const elsewhere = await signIn(a, new CookieJar()); // another provider session of the same user
    const first = await stateAt(b, tab1);
    expect(first.signedIn).toBe(true);
    expect((await stateAt(a, tab2)).sid).toBe(first.sid);
    expect((await stateAt(a, elsewhere)).sid).not.toBe(first.sid);

    const logout = new URL(`${world.issuer}/oidc/logout`);
    logout.searchParams.set('id_token_hint', first.idToken as string);
    const answer = await fetch(logout, { headers: { cookie: browser.header(logout) ?? '' }, redirect: 'manual' });
    expect(answer.status).toBe(200);

    // No waiting: the provider answered after instance B had ended the sessions in Redis.
    for (const app of [a, b]) {
      expect(await stateAt(app, tab1)).toMatchObject({ signedIn: false, reason: 'revoked' });
      expect(await stateAt(app, tab2)).toMatchObject({ signedIn: false, reason: 'revoked' });
      expect(await stateAt(app, elsewhere)).toMatchObject({ signedIn: true });
    }
    const delivered = world.provider.requests({ path: `${b.origin}/auth/backchannel-logout` });
    expect(delivered).toEqual([expect.objectContaining({ client_id: 'web', status: 200, outbound: { attempt: 1 } })]);
  });

  it('the sessions.end control call ends all of the user\u2019s sessions on every instance before it resolves', async () => {
    const [a, b] = world.apps;
    const agents = [await signIn(a, new CookieJar()), await signIn(b, new CookieJar()), await signIn(a, new CookieJar())];
    const carol = await signIn(a, new CookieJar(), 'carol');
    const result = await world.provider.control.sessions.end('alice');
    expect(result.deliveries.length).toBeGreaterThanOrEqual(3);
    expect(result.deliveries.every((d) => d.delivered)).toBe(true);
    for (const agent of agents) {
      expect(await stateAt(a, agent)).toMatchObject({ signedIn: false });
      expect(await stateAt(b, agent)).toMatchObject({ signedIn: false });
    }
    expect(await stateAt(b, carol)).toMatchObject({ signedIn: true });
  });
});
