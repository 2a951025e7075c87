// The session layer's pages over real HTTP (the app and the reference server on port 0): what a
// person sees after pressing Cancel, after a lockout, after an unknown failure, and after signing
// out; a forged callback that tries to inject markup through error_description; and the
// `pages` option that replaces them.
import { createHash } from 'node:crypto';
import { CookieJar } from '@oidc-rp/reference-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionAuth } from '../src/index';
import { Agent, SECRET, type SessionWorld, startSessionWorld } from './support/session-app';

let world: SessionWorld;
beforeAll(async () => {
  world = await startSessionWorld();
});
afterAll(() => world.close());

/** Starts a login at the app (its transaction cookie kept by `agent`); returns the authorize URL. */
async function startLogin(agent: Agent, returnTo = '/orders?id=7'): Promise<URL> {
  const login = await agent.request(`/auth/login?returnTo=${encodeURIComponent(returnTo)}`);
  expect(login.status).toBe(302);
  return new URL(login.headers.get('location') as string);
}

/** A callback carrying a provider error for the login `agent` started, as a forged link would. */
async function forgedErrorCallback(agent: Agent, authorize: URL, params: Record<string, string>): Promise<Response> {
  const query = new URLSearchParams({ state: authorize.searchParams.get('state') as string, iss: world.issuer, ...params });
  return agent.request(`/auth/callback?${query}`);
}

/** Opens the provider's login page from the authorize URL and presses Cancel; returns the callback URL it redirects to. */
async function pressCancel(authorize: URL): Promise<URL> {
  const jar = new CookieJar();
  let url = authorize;
  for (let step = 0; step < 5; step++) {
    const headers = new Headers();
    const cookie = jar.header(url);
    if (cookie) headers.set('cookie', cookie);
    const response = await fetch(url, { headers, redirect: 'manual' });
    jar.store(url, response);
    const location = response.headers.get('location');
    if (location) {
      url = new URL(location, url);
      if (url.origin === world.appOrigin) return url;
      continue;
    }
    const page = await response.text();
    const form = /<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(page);
    if (!form?.[2]?.includes('value="cancel"')) throw new Error('no login form with a Cancel button');
    const fields = new URLSearchParams({ action: 'cancel' });
    for (const [, name, value] of form[2].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields.set(name as string, value as string);
    url = new URL((form[1] as string).replace(/&amp;/g, '&'), url);
    const posted = new Headers({ 'content-type': 'application/x-www-form-urlencoded' });
    const jarCookie = jar.header(url);
    if (jarCookie) posted.set('cookie', jarCookie);
    const answer = await fetch(url, { method: 'POST', headers: posted, body: fields.toString(), redirect: 'manual' });
    return new URL(answer.headers.get('location') as string, url);
  }
  throw new Error('the login page never came');
}

/** The style element's content must be what the page's CSP allows by hash, and nothing else runs. */
function expectStyledUnderCsp(response: Response, page: string): void {
  const style = /<style>([\s\S]*?)<\/style>/.exec(page)?.[1];
  expect(style).toBeDefined();
  const hash = createHash('sha256')
    .update(style as string)
    .digest('base64');
  const csp = response.headers.get('content-security-policy') ?? '';
  expect(csp).toContain(`style-src 'sha256-${hash}'`);
  expect(csp).toContain("default-src 'none'");
  expect(page).not.toMatch(/<script/i);
  expect(response.headers.get('cache-control')).toBe('no-store');
}

const hrefs = (page: string) => [...page.matchAll(/<a class="button[^"]*" href="([^"]*)">([^<]*)<\/a>/g)].map((m) => [m[2], m[1]]);

describe('the default pages', () => {
  it('Cancel at the provider: "did not complete", in the provider\u2019s words, with Try again (keeping returnTo) and Home', async () => {
    world.use();
    const agent = new Agent(world.appOrigin);
    const callbackUrl = await pressCancel(await startLogin(agent));
    expect(callbackUrl.searchParams.get('error')).toBe('access_denied');
    const response = await agent.request(callbackUrl.pathname + callbackUrl.search);
    const page = await response.text();
    expect(response.status).toBe(400);
    expect(page).toContain('<h1>Sign-in not completed</h1>');
    expect(page).toContain('The sign-in did not complete');
    expect(page).toContain(`<p class="said">${callbackUrl.searchParams.get('error_description')}</p>`);
    expect(page).not.toContain('client registration');
    expect(hrefs(page)).toEqual([
      ['Try again', '/auth/login?returnTo=%2Forders%3Fid%3D7'],
      ['Home', '/'],
    ]);
    expectStyledUnderCsp(response, page);
    // "Try again" starts a new login that returns to the same page.
    const again = await agent.request('/auth/login?returnTo=%2Forders%3Fid%3D7');
    expect(again.status).toBe(302);
  });

  it('a lockout shows the provider\u2019s description, not "cancelled"', async () => {
    world.use();
    const agent = new Agent(world.appOrigin);
    const description = 'Too many failed sign-in attempts. Try again in 15 minutes.';
    const response = await forgedErrorCallback(agent, await startLogin(agent, '/'), { error: 'access_denied', error_description: description });
    const page = await response.text();
    expect(response.status).toBe(400);
    expect(page).toContain('Sign-in not completed');
    expect(page).toContain(`<p class="said">${description}</p>`);
    expect(page).not.toMatch(/cancel/i);
    expect(hrefs(page)[0]).toEqual(['Try again', '/auth/login?returnTo=%2F']);
  });

  it('any other error: a generic "Sign-in failed" with the stable code for support, without the provider\u2019s text', async () => {
    world.use();
    const agent = new Agent(world.appOrigin);
    const response = await forgedErrorCallback(agent, await startLogin(agent), {
      error: 'server_error',
      error_description: 'db01.internal refused the connection',
    });
    const page = await response.text();
    expect(response.status).toBe(400);
    expect(page).toContain('<h1>Sign-in failed</h1>');
    expect(page).toContain('<code>authorization_error: server_error</code>');
    const [visible, forDevelopers] = page.split('<details>') as [string, string];
    expect(visible).not.toContain('db01.internal');
    expect(forDevelopers).toContain('Details for developers'); // a loopback origin: development
    expect(hrefs(page)).toEqual([
      ['Try again', '/auth/login?returnTo=%2Forders%3Fid%3D7'],
      ['Home', '/'],
    ]);
    expectStyledUnderCsp(response, page);
  });

  it('a callback without a pending login: the code, and the developer message only on a loopback origin', async () => {
    world.use();
    const local = await new Agent(world.appOrigin).request('/auth/callback?code=x&state=y');
    const localPage = await local.text();
    expect(local.status).toBe(400);
    expect(localPage).toContain('<code>transaction_not_found</code>');
    expect(localPage).toContain('Details for developers');
    expect(hrefs(localPage)[0]).toEqual(['Try again', '/auth/login']);

    world.use({ baseUrl: 'https://app.example.com' }); // a deployment: no developer text for the public
    const deployed = await (await new Agent(world.appOrigin).request('/auth/callback?code=x&state=y')).text();
    expect(deployed).toContain('<code>transaction_not_found</code>');
    expect(deployed).not.toContain('Details for developers');
    expect(deployed).not.toContain('No login transaction cookie');
  });

  it('attack: markup in a forged error_description or error is shown as text, never run', async () => {
    world.use();
    const agent = new Agent(world.appOrigin);
    const authorize = await startLogin(agent);
    const hostile = '<script>alert(document.cookie)</script><img src=x onerror=alert(1)>"\'&';
    const denied = await forgedErrorCallback(agent, authorize, { error: 'access_denied', error_description: hostile });
    const deniedPage = await denied.text();
    expect(deniedPage).not.toContain('<script>alert');
    expect(deniedPage).not.toContain('<img src=x');
    expect(deniedPage).toContain('&#60;script&#62;alert(document.cookie)&#60;/script&#62;&#60;img src=x onerror=alert(1)&#62;&#34;&#39;&#38;');
    expectStyledUnderCsp(denied, deniedPage);

    const strange = await forgedErrorCallback(agent, authorize, { error: '<script>x()</script>' });
    const strangePage = await strange.text();
    expect(strangePage).toContain('Sign-in failed');
    expect(strangePage).not.toContain('<script>x()');
  });

  it('the logout route without a session says "You are signed out" with a link home', async () => {
    world.use({ postLogoutRedirect: '/welcome' });
    const response = await new Agent(world.appOrigin).request('/auth/logout', { headers: { accept: 'text/html' } });
    const page = await response.text();
    expect(response.status).toBe(200);
    expect(page).toContain('<h1>You are signed out</h1>');
    expect(hrefs(page)).toEqual([
      ['Home', '/welcome'],
      ['Sign in again', '/auth/login'],
    ]);
    expectStyledUnderCsp(response, page);
  });

  it('the logout confirmation is styled, with a Cancel link home', async () => {
    world.use();
    const agent = new Agent(world.appOrigin);
    await agent.logIn();
    const response = await agent.request('/auth/logout');
    const page = await response.text();
    expect(page).toContain('<h1>Sign out?</h1>');
    expect(page).toMatch(/<button type="submit" class="button primary">Sign out<\/button>/);
    expect(hrefs(page)).toEqual([['Cancel', '/']]);
    expectStyledUnderCsp(response, page);
  });
});

describe('the pages option', () => {
  it('pages.error receives a typed info and may answer with HTML text', async () => {
    const seen: unknown[] = [];
    world.use({
      pages: {
        error: (info) => {
          seen.push({ ...info, cause: info.cause.code, request: info.request.url });
          return `<p>custom: ${info.code}</p>`;
        },
      },
    });
    const agent = new Agent(world.appOrigin);
    const response = await forgedErrorCallback(agent, await startLogin(agent), { error: 'access_denied', error_description: 'nope' });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBeNull(); // the app's own styles apply
    expect(await response.text()).toBe('<p>custom: authorization_error</p>');
    expect(seen).toEqual([
      {
        code: 'authorization_error',
        error: 'access_denied',
        description: 'nope',
        loginUrl: '/auth/login?returnTo=%2Forders%3Fid%3D7',
        homeUrl: '/',
        returnTo: '/orders?id=7',
        status: 400,
        cause: 'authorization_error',
        request: expect.stringContaining('/auth/callback?'),
      },
    ]);
  });

  it('pages.error and pages.signedOut may answer with a Response, sent as it is', async () => {
    world.use({
      pages: {
        error: (info) => Response.json({ failed: info.code }, { status: 418 }),
        signedOut: async (info) => Response.redirect(new URL(info.homeUrl, world.appOrigin).href, 303),
      },
    });
    const failed = await new Agent(world.appOrigin).request('/auth/callback?code=x&state=y');
    expect(failed.status).toBe(418);
    expect(await failed.json()).toEqual({ failed: 'transaction_not_found' });
    const signedOut = await new Agent(world.appOrigin).request('/auth/logout');
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get('location')).toBe(`${world.appOrigin}/`);
  });

  it('refuses a pages option that is not functions, and the replaced onCallbackError, naming the fix', () => {
    const attempts: Array<[unknown, RegExp]> = [
      [{ pages: 'none' }, /`pages` must be an object/],
      [{ pages: { error: '<p>x</p>' } }, /`pages.error` must be a function/],
      [{ onCallbackError: () => new Response('x') }, /replaced by `pages: \{ error\(info\) \}`/],
    ];
    for (const [extra, message] of attempts) {
      expect(() => createSessionAuth({ client: world.client, secret: SECRET, ...(extra as object) })).toThrow(
        expect.objectContaining({ code: 'invalid_options', message: expect.stringMatching(message) }),
      );
    }
  });
});
