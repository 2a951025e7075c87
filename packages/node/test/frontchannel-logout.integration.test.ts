// Front-channel logout at the session layer, over real HTTP: the reference server's logout page
// names the app's frontchannel_logout_uri with iss and sid; loading it without any cookie (a
// third-party frame in a browser that blocks them) ends that provider session's sessions, in a
// memory store and for cookie-only sessions. A wrong or missing iss, a missing sid, another
// method end nothing; an unknown sid ends nothing else.
import { completeLogin } from '@oidc-rp/reference-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySessionStore, isOidcError } from '../src/index';
import { type AppInstance, type BackchannelWorld, startBackchannelWorld, stateAt } from './support/backchannel-world';
import { Agent } from './support/session-app';

let world: BackchannelWorld;

beforeAll(async () => {
  world = await startBackchannelWorld((config, origins) => {
    const web = config.tenants[0]?.clients?.find((c) => c.client_id === 'web');
    Object.assign(web ?? {}, { frontchannel_logout_uri: `${origins[0]}/auth/frontchannel-logout`, frontchannel_logout_session_required: true });
  });
});
afterAll(() => world?.close());

/** Logs a browser in at `app`, keeping the provider's cookies in the same jar (for its logout page). */
async function signIn(app: AppInstance, username = 'alice'): Promise<Agent> {
  const agent = new Agent(app.origin);
  const login = await agent.request('/auth/login');
  const result = await completeLogin(login.headers.get('location') as string, { username, password: 'wonderland', cookies: agent.jar });
  if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
  const target = new URL(result.location);
  expect((await agent.request(target.pathname + target.search)).status).toBe(303);
  return agent;
}

/** The front-channel URL with these query parameters, fetched with no cookie at all. */
function frontchannel(app: AppInstance, query: Record<string, string>, method = 'GET'): Promise<Response> {
  return fetch(`${app.origin}/auth/frontchannel-logout?${new URLSearchParams(query)}`, { method });
}

describe('through the provider\u2019s logout page', () => {
  it('the page names the app\u2019s URI with iss and sid; loading it without cookies ends that session only', async () => {
    const [app] = world.apps;
    app.use({ store: new MemorySessionStore(), backchannelLogout: { clientId: 'web' }, frontchannelLogout: {} });
    const agent = await signIn(app);
    const bystander = await signIn(app);
    const { idToken, sid } = await stateAt(app, agent);

    const logout = new URL(`${world.issuer}/oidc/logout`);
    logout.searchParams.set('id_token_hint', idToken as string);
    const page = await agent.request(logout.href);
    expect(page.status).toBe(200);
    const data = JSON.parse(/id="frontchannel">([^<]*)</.exec(await page.text())?.[1] ?? 'null') as { frames: string[] };
    expect(data.frames).toEqual([`${app.origin}/auth/frontchannel-logout?iss=${encodeURIComponent(world.issuer)}&sid=${sid}`]);

    // The browser loads the frame; a third-party frame gets no cookie: none is sent here.
    const framed = await fetch(data.frames[0] as string);
    expect(framed.status).toBe(200);
    expect(framed.headers.get('cache-control')).toBe('no-store');
    expect(framed.headers.get('content-type')).toMatch(/^text\/html/);
    expect(framed.headers.get('content-security-policy')).toBe(`default-src 'none'; frame-ancestors ${new URL(world.issuer).origin}`);
    expect(framed.headers.get('set-cookie')).toBeNull();
    expect(await stateAt(app, agent)).toMatchObject({ signedIn: false, reason: 'revoked' });
    expect(await stateAt(app, bystander)).toMatchObject({ signedIn: true });
  });
});

describe('refusals and attacks', () => {
  it('a wrong, missing or repeated iss, or no sid, is refused with 400 and no-store, and ends nothing', async () => {
    const [app] = world.apps;
    app.use({ store: new MemorySessionStore(), backchannelLogout: { clientId: 'web' }, frontchannelLogout: {} });
    const agent = await signIn(app);
    const { sid } = await stateAt(app, agent);
    const attacks: Record<string, Record<string, string>> = {
      'another issuer naming the victim\u2019s sid': { iss: 'https://evil.example/demo', sid: sid as string },
      'the issuer with a trailing slash': { iss: `${world.issuer}/`, sid: sid as string },
      'no iss': { sid: sid as string },
      'no sid ("log out whoever is signed in")': { iss: world.issuer },
      'an empty sid': { iss: world.issuer, sid: '' },
    };
    for (const [name, query] of Object.entries(attacks)) {
      const response = await frontchannel(app, query);
      expect(response.status, name).toBe(400);
      expect(response.headers.get('cache-control'), name).toBe('no-store');
      expect(await stateAt(app, agent), name).toMatchObject({ signedIn: true });
    }
    const repeated = await fetch(`${app.origin}/auth/frontchannel-logout?iss=${encodeURIComponent(world.issuer)}&iss=${encodeURIComponent(world.issuer)}&sid=${sid}`);
    expect(repeated.status).toBe(400);
    // With the browser's own cookie, a request without sid still ends nothing (no "current session" logout).
    const withCookie = await agent.request(`/auth/frontchannel-logout?iss=${encodeURIComponent(world.issuer)}`);
    expect(withCookie.status).toBe(400);
    expect(await stateAt(app, agent)).toMatchObject({ signedIn: true });
  });

  it('an unknown (guessed) sid ends nothing; a POST is 405', async () => {
    const [app] = world.apps;
    app.use({ store: new MemorySessionStore(), backchannelLogout: { clientId: 'web' }, frontchannelLogout: {} });
    const agent = await signIn(app);
    const guessed = await frontchannel(app, { iss: world.issuer, sid: 'guessed-sid-0000' });
    expect(guessed.status).toBe(200);
    expect(await stateAt(app, agent)).toMatchObject({ signedIn: true });
    const { sid } = await stateAt(app, agent);
    const post = await frontchannel(app, { iss: world.issuer, sid: sid as string }, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(await stateAt(app, agent)).toMatchObject({ signedIn: true });
  });

  it('answers only when configured, at its path', async () => {
    const [app] = world.apps;
    app.use({ store: new MemorySessionStore(), backchannelLogout: { clientId: 'web' } });
    expect((await frontchannel(app, { iss: world.issuer, sid: 'x' })).status).toBe(404);
    app.use({ store: new MemorySessionStore(), backchannelLogout: { clientId: 'web' }, frontchannelLogout: { path: '/hooks/fcl' } });
    expect((await fetch(`${app.origin}/hooks/fcl?iss=${encodeURIComponent(world.issuer)}&sid=x`)).status).toBe(200);
  });
});

describe('with cookie-only sessions', () => {
  it('a revocation record by sid ends the session at its next read', async () => {
    const [app] = world.apps;
    app.use({ backchannelLogout: { clientId: 'web', store: new MemorySessionStore() }, frontchannelLogout: {} });
    const agent = await signIn(app);
    const other = await signIn(app);
    const { sid } = await stateAt(app, agent);
    expect((await frontchannel(app, { iss: world.issuer, sid: sid as string })).status).toBe(200);
    expect(await stateAt(app, agent)).toMatchObject({ signedIn: false, reason: 'revoked' });
    expect(await stateAt(app, other)).toMatchObject({ signedIn: true });
  });
});

describe('options', () => {
  it('needs backchannelLogout (its sid index), a valid path, and another path than the back-channel route', () => {
    const [app] = world.apps;
    const codeOf = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return isOidcError(error) ? error.code : 'other';
      }
      return undefined;
    };
    expect(codeOf(() => app.use({ store: new MemorySessionStore(), frontchannelLogout: {} }))).toBe('invalid_options');
    expect(codeOf(() => app.use({ store: new MemorySessionStore(), backchannelLogout: { clientId: 'web' }, frontchannelLogout: { path: 'no-slash' } }))).toBe('invalid_options');
    expect(codeOf(() => app.use({ store: new MemorySessionStore(), backchannelLogout: { clientId: 'web' }, frontchannelLogout: { path: '/auth/backchannel-logout' } }))).toBe('invalid_options');
  });
});
