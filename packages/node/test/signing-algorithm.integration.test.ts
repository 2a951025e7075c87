// The client's pinned signing algorithm (`signingAlgorithm`, its registered
// id_token_signed_response_alg), over real HTTP against the reference server, whose
// wrong-algorithm faults sign with a key it publishes, of another type and algorithm (ES256 for
// this RS256 tenant), and list that algorithm in discovery, as the OpenID conformance suite's
// provider does (oidcc-client-test-rp-backchannel-rpinitlogout-wrong-alg). Instance A pins RS256;
// instance B does not, and shows what the pin stops: B takes both tokens.
import { type Server, createServer } from 'node:http';
import { once } from 'node:events';
import { CookieJar, completeLogin } from '@oidc-rp/reference-server/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemorySessionStore, createNodeClient, serviceProvider } from '../src/index';
import { type AppInstance, type BackchannelWorld, startBackchannelWorld, stateAt } from './support/backchannel-world';
import { Agent } from './support/session-app';

let world: BackchannelWorld;
let relay: Server;
let relayOrigin: string;
/** Where the relay forwards logout tokens, and what the app answered each. */
let target: AppInstance;
const answers: Array<{ status: number; cacheControl: string | null; body: string }> = [];

beforeAll(async () => {
  world = await startBackchannelWorld(undefined, (index) => (index === 0 ? { signingAlgorithm: 'RS256' } : {}));
  // The provider's back-channel POSTs go through this relay to the instance under test, so the
  // test sees the app's whole answer (the provider's journal keeps only the status).
  relay = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const response = await fetch(`${target.origin}/auth/backchannel-logout`, {
      method: 'POST',
      headers: { 'content-type': req.headers['content-type'] ?? '' },
      body: Buffer.concat(chunks),
    });
    answers.push({ status: response.status, cacheControl: response.headers.get('cache-control'), body: await response.text() });
    res.statusCode = response.status;
    res.end();
  });
  relay.listen(0, '127.0.0.1');
  await once(relay, 'listening');
  relayOrigin = `http://127.0.0.1:${(relay.address() as { port: number }).port}`;
  await world.provider.control.clients.update('web', { backchannel_logout_uri: `${relayOrigin}/bcl`, backchannel_logout_session_required: true });
});
afterAll(async () => {
  relay?.closeAllConnections();
  relay?.close();
  await world?.close();
});
beforeEach(async () => {
  answers.length = 0;
  await world.provider.control.faults.clear();
  for (const app of world.apps) app.use({ store: new MemorySessionStore(), backchannelLogout: { clientId: 'web' } });
});

/** Signs in at `app` through the provider's login form, with `browser` as the provider's cookies. */
async function signIn(app: AppInstance, browser: CookieJar): Promise<Agent> {
  const agent = new Agent(app.origin);
  const login = await agent.request('/auth/login');
  const result = await completeLogin(login.headers.get('location') as string, { cookies: browser, username: 'alice', password: 'wonderland' });
  if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
  const callback = new URL(result.location);
  expect((await agent.request(callback.pathname + callback.search)).status).toBe(303);
  return agent;
}

/** RP-initiated logout at the provider, which then sends its logout token. */
async function logOutAtProvider(browser: CookieJar, idToken: string): Promise<void> {
  const logout = new URL(`${world.issuer}/oidc/logout`);
  logout.searchParams.set('id_token_hint', idToken);
  const answer = await fetch(logout, { headers: { cookie: browser.header(logout) ?? '' }, redirect: 'manual' });
  expect(answer.status).toBe(200);
}

describe('a logout token signed with another algorithm by a published key (logout_token_wrong_alg)', () => {
  it('pinned to RS256: the back-channel route answers 400 with no-store and the session goes on', async () => {
    const [a] = world.apps;
    target = a;
    const browser = new CookieJar();
    const agent = await signIn(a, browser);
    const state = await stateAt(a, agent);
    await world.provider.control.faults.set('web', 'logout_token_wrong_alg');
    await logOutAtProvider(browser, state.idToken as string);

    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ status: 400, cacheControl: 'no-store' });
    expect(JSON.parse(answers[0]?.body ?? '')).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('logout_token_alg_not_allowed') });
    expect(await stateAt(a, agent)).toMatchObject({ signedIn: true });
    // The provider was told no, once (a 400 is not retried).
    expect(world.provider.requests({ path: `${relayOrigin}/bcl` }).map((r) => r.status)).toEqual([400]);
  });

  it('the same token ends the session of a client that pins nothing (the provider lists ES256): why the option exists', async () => {
    const [, b] = world.apps;
    target = b;
    const browser = new CookieJar();
    const agent = await signIn(b, browser);
    const state = await stateAt(b, agent);
    await world.provider.control.faults.set('web', 'logout_token_wrong_alg');
    await logOutAtProvider(browser, state.idToken as string);
    expect(answers).toEqual([expect.objectContaining({ status: 200 })]);
    expect(await stateAt(b, agent)).toMatchObject({ signedIn: false, reason: 'revoked' });
  });

  it('pinned, a logout token in the registered algorithm still ends the session', async () => {
    const [a] = world.apps;
    target = a;
    const browser = new CookieJar();
    const agent = await signIn(a, browser);
    await logOutAtProvider(browser, (await stateAt(a, agent)).idToken as string);
    expect(answers).toEqual([expect.objectContaining({ status: 200 })]);
    expect(await stateAt(a, agent)).toMatchObject({ signedIn: false, reason: 'revoked' });
  });
});

describe('an ID token signed with another algorithm by a published key (id_token_wrong_alg)', () => {
  it('pinned to RS256: the callback refuses it with id_token_alg_not_allowed, no session, no userinfo call', async () => {
    const [a] = world.apps;
    await world.provider.control.faults.set('web', 'id_token_wrong_alg');
    await world.provider.control.requests.clear();
    const agent = new Agent(a.origin);
    const callback = await agent.logIn();
    expect(callback.status).toBe(400);
    expect(await callback.text()).toContain('id_token_alg_not_allowed');
    expect(await stateAt(a, agent)).toMatchObject({ signedIn: false });
    const paths = world.provider.requests().map((r) => r.path);
    expect(paths.filter((p) => p.endsWith('/oidc/token'))).toHaveLength(1);
    expect(paths.filter((p) => p.endsWith('/oidc/userinfo'))).toEqual([]);
  });

  it('through the client: finishLogin rejects with a typed error naming both algorithms', async () => {
    const client = createNodeClient({
      provider: serviceProvider(world.issuer),
      clientId: 'web',
      clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
      redirectUri: `${world.apps[0].origin}/auth/callback`,
      scope: 'openid',
      signingAlgorithm: 'RS256',
    });
    expect(client.signingAlgorithm).toBe('RS256');
    const login = async () => {
      const { url, transaction } = await client.startLogin();
      const result = await completeLogin(url, { username: 'alice', password: 'wonderland' });
      if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
      return client.finishLogin(result.location, transaction);
    };
    await world.provider.control.faults.set('web', 'id_token_wrong_alg', { times: 1 });
    const error = (await login().catch((e: unknown) => e)) as Error & { code: string };
    expect(error).toMatchObject({ name: 'OidcError', code: 'id_token_alg_not_allowed' });
    expect(error.message).toMatch(/"alg" is "ES256", but the client is registered for "RS256"/);

    // The fault was spent: the next login's RS256 token passes.
    expect((await login()).claims?.sub).toBe('alice');
  });

  it('a client that pins nothing takes the ES256 token (the provider lists it)', async () => {
    const [, b] = world.apps;
    await world.provider.control.faults.set('web', 'id_token_wrong_alg');
    const agent = new Agent(b.origin);
    expect((await agent.logIn()).status).toBe(303);
    expect(await stateAt(b, agent)).toMatchObject({ signedIn: true });
  });

  it('refuses a signingAlgorithm that is not one asymmetric algorithm at creation', () => {
    const base = { provider: serviceProvider(world.issuer), clientId: 'web', clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' };
    for (const signingAlgorithm of ['HS256', 'none', 'rs256']) {
      expect(() => createNodeClient({ ...base, signingAlgorithm })).toThrow(expect.objectContaining({ code: 'invalid_options' }));
    }
  });
});
