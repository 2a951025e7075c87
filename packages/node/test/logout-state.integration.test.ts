// RP-initiated logout with `state` (OpenID Connect RP-Initiated Logout 1.0), over real HTTP: the
// session layer's logout sends a state to the reference server's end_session_endpoint and keeps
// it in a short-lived cookie; the provider sends the browser back to the post-logout route with
// it; the route sends the user on only when it is the state this browser's logout sent, once.
// A forged, missing, replayed or other browser's state gets a 400 page, and goes nowhere.
import { CookieJar, completeLogin } from '@oidc-rp/reference-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, type SessionWorld, startSessionWorld } from './support/session-app';

let world: SessionWorld;
const POST_LOGOUT = '/auth/logged-out';

beforeAll(async () => {
  world = await startSessionWorld();
  await world.control.clients.update('web', { post_logout_redirect_uris: [`${world.appOrigin}/`, `${world.appOrigin}${POST_LOGOUT}`] });
});
afterAll(() => world.close());

/** Signs in at the app with `browser` as the provider's cookies; returns the app agent and its CSRF token. */
async function signIn(browser: CookieJar): Promise<{ agent: Agent; csrfToken: string }> {
  const agent = new Agent(world.appOrigin);
  const login = await agent.request('/auth/login');
  const result = await completeLogin(login.headers.get('location') as string, { cookies: browser, username: 'alice', password: 'wonderland' });
  if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
  const callback = new URL(result.location);
  expect((await agent.request(callback.pathname + callback.search)).status).toBe(303);
  const { body } = await agent.json<{ csrfToken: string }>('/me');
  return { agent, csrfToken: body.csrfToken };
}

/** Logs out at the app, then at the provider; returns the app's logout redirect and the provider's redirect back. */
async function logOut(agent: Agent, csrfToken: string, browser: CookieJar): Promise<{ endSession: URL; back: URL }> {
  const response = await agent.request('/auth/logout', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: world.appOrigin },
    body: new URLSearchParams({ csrf_token: csrfToken }).toString(),
  });
  expect(response.status).toBe(303);
  const endSession = new URL(response.headers.get('location') as string);
  const provider = await fetch(endSession, { headers: { cookie: browser.header(endSession) ?? '' }, redirect: 'manual' });
  expect(provider.status).toBe(302);
  return { endSession, back: new URL(provider.headers.get('location') as string) };
}

describe('RP-initiated logout with state (routes.postLogout)', () => {
  it('sends a fresh state, the provider returns it on the post-logout redirect, and the route sends the user on once', async () => {
    world.use({ routes: { postLogout: POST_LOGOUT }, postLogoutRedirect: '/bye' });
    const browser = new CookieJar();
    const { agent, csrfToken } = await signIn(browser);
    const { endSession, back } = await logOut(agent, csrfToken, browser);

    const state = endSession.searchParams.get('state') as string;
    expect(state).toMatch(/^[\w-]{43}$/);
    expect(endSession.searchParams.get('post_logout_redirect_uri')).toBe(`${world.appOrigin}${POST_LOGOUT}`);
    expect(agent.cookieHeader()).toContain(`oidc-rp.session-logout-state=${state}`);
    expect(`${back.origin}${back.pathname}`).toBe(`${world.appOrigin}${POST_LOGOUT}`);
    expect(back.searchParams.get('state')).toBe(state);

    const landed = await agent.request(back.pathname + back.search);
    expect(landed.status).toBe(303);
    expect(landed.headers.get('location')).toBe(`${world.appOrigin}/bye`);
    expect(landed.headers.getSetCookie()).toContainEqual(expect.stringMatching(/^oidc-rp\.session-logout-state=; .*Max-Age=0/));
    expect((await agent.json('/state')).body).toMatchObject({ signedIn: false });

    // Used once: the same response again is refused.
    const replayed = await agent.request(back.pathname + back.search);
    expect(replayed.status).toBe(400);
    expect(await replayed.text()).toContain('logout_state_mismatch');
  });

  it('refuses a post-logout redirect with another state, none, or in a browser that did not log out: 400, no redirect', async () => {
    world.use({ routes: { postLogout: POST_LOGOUT }, postLogoutRedirect: '/bye' });
    const browser = new CookieJar();
    const { agent, csrfToken } = await signIn(browser);
    const { back } = await logOut(agent, csrfToken, browser);
    const state = back.searchParams.get('state') as string;

    for (const [name, who, query] of [
      ['another state', agent, `?state=${'x'.repeat(43)}`],
      ['no state', agent, ''],
      ['the right state in another browser', new Agent(world.appOrigin), `?state=${state}`],
    ] as const) {
      const response = await who.request(`${POST_LOGOUT}${query}`);
      expect(response.status, name).toBe(400);
      expect(response.headers.get('location'), name).toBeNull();
      expect(await response.text(), name).toContain('logout_state_mismatch');
    }
    expect((await agent.request(`${POST_LOGOUT}?state=${state}`)).status).toBe(400); // the mismatch above spent it
  });

  it('without routes.postLogout, the logout goes back to postLogoutRedirect as before, without state', async () => {
    world.use();
    const browser = new CookieJar();
    const { agent, csrfToken } = await signIn(browser);
    const { endSession, back } = await logOut(agent, csrfToken, browser);
    expect(endSession.searchParams.has('state')).toBe(false);
    expect(back.href).toBe(`${world.appOrigin}/`);
    expect((await agent.request(POST_LOGOUT)).status).toBe(404);
  });
});
