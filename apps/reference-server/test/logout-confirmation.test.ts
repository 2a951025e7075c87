// RP-Initiated Logout 1.0 §2: a logout request without an id_token_hint must not end a
// signed-in user's session without asking. Over real HTTP: a cross-site link logs nobody out,
// the confirmation's post is CSRF-protected and same-origin only, and a valid hint still logs
// out at once (the SDKs' logout depends on it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReferenceServer, demoConfig, type ReferenceServer } from '../src/index';
import { completeLogin, CookieJar } from '../src/testing';
import { authorizeUrl, webParams } from './helpers';
import { browser, redirectTo, type Browser } from './support/http-browser';

let server: ReferenceServer;
let issuer: string;
let origin: string;
const logs: string[] = [];
beforeAll(async () => {
  const config = demoConfig();
  const web = config.tenants[0]?.clients?.find((c) => c.client_id === 'web');
  if (web) web.post_logout_redirect_uris = ['http://127.0.0.1:3000/'];
  const log = (m: string) => logs.push(m);
  server = await createReferenceServer(config, { logger: { info: log, warn: log, error: log }, developmentKeys: true });
  ({ origin } = await server.listen({ port: 0 }));
  issuer = `${origin}/demo`;
});
afterAll(async () => {
  await server.close();
  // No log line carries a password, or anything shaped like a token, code or cookie value.
  expect(logs.length).toBeGreaterThan(0);
  for (const line of logs) expect(line).not.toMatch(/wonderland|[A-Za-z0-9_-]{43}/);
});

async function signedIn(username = 'alice', password = 'wonderland'): Promise<{ b: Browser; idToken: string }> {
  const jar = new CookieJar();
  const result = await completeLogin(authorizeUrl(webParams({ response_type: 'code id_token' }), issuer), { cookies: jar, username, password });
  if (result.type !== 'redirect') throw new Error('no redirect');
  const idToken = new URLSearchParams(new URL(result.location).hash.slice(1)).get('id_token') ?? '';
  return { b: browser(jar), idToken };
}

async function isSignedIn(b: Browser): Promise<boolean> {
  const res = await b.go(authorizeUrl(webParams({ prompt: 'none' }), issuer));
  return redirectTo(res).searchParams.has('code');
}

const logoutUrl = (params: Record<string, string>) => `${issuer}/oidc/logout?${new URLSearchParams(params)}`;

describe('logout without id_token_hint asks the user', () => {
  it('a cross-site GET (an <img>, a link) shows a confirmation page and logs nobody out', async () => {
    const { b } = await signedIn();
    const res = await b.go(logoutUrl({ client_id: 'web', post_logout_redirect_uri: 'http://127.0.0.1:3000/', state: 's1' }), { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie()).toEqual([]);
    const page = await res.text();
    expect(page).toContain('Sign out?');
    expect(page).toContain('name="confirm" value="yes"');
    expect(res.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:3000");
    expect(await isSignedIn(b)).toBe(true);
    // Even without any parameter.
    expect((await b.go(`${issuer}/oidc/logout`)).status).toBe(200);
    expect(await isSignedIn(b)).toBe(true);
  });

  it('confirming logs out and returns to the registered URI with state; "Stay signed in" keeps the session', async () => {
    const { b } = await signedIn();
    const params = { client_id: 'web', post_logout_redirect_uri: 'http://127.0.0.1:3000/', state: 's2' };
    const page = await (await b.go(logoutUrl(params))).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const stay = await b.go(`${issuer}/oidc/logout`, { form: { ...params, csrf, confirm: 'no' }, headers: { origin } });
    expect(stay.status).toBe(200);
    expect(await stay.text()).toContain('still signed in');
    expect(await isSignedIn(b)).toBe(true);
    const done = await b.go(`${issuer}/oidc/logout`, { form: { ...params, csrf, confirm: 'yes' }, headers: { origin } });
    expect(done.headers.get('location')).toBe('http://127.0.0.1:3000/?state=s2');
    expect(await isSignedIn(b)).toBe(false);
  });

  it('a forged confirmation (no or wrong CSRF token, or posted from another site) is refused and changes nothing', async () => {
    const { b } = await signedIn();
    const page = await (await b.go(logoutUrl({}))).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    for (const [form, headers] of [
      [{ confirm: 'yes' }, {}],
      [{ confirm: 'yes', csrf: `${csrf}x` }, {}],
      [{ confirm: 'yes', csrf }, { origin: 'http://evil.localhost' }],
      [{ confirm: 'yes', csrf }, { 'sec-fetch-site': 'same-site' }],
    ] as [Record<string, string>, Record<string, string>][]) {
      const res = await b.go(`${issuer}/oidc/logout`, { form, headers });
      expect(res.status).toBe(403);
      expect(res.headers.getSetCookie()).toEqual([]);
    }
    expect(await isSignedIn(b)).toBe(true);
    // Another browser's token does not work for this one.
    const other = await signedIn();
    const otherCsrf = /name="csrf" value="([^"]+)"/.exec(await (await other.b.go(logoutUrl({}))).text())?.[1] ?? '';
    expect((await b.go(`${issuer}/oidc/logout`, { form: { confirm: 'yes', csrf: otherCsrf } })).status).toBe(403);
    expect(await isSignedIn(b)).toBe(true);
  });

  it('with a valid id_token_hint it logs out at once, as before', async () => {
    const { b, idToken } = await signedIn();
    const res = await b.go(logoutUrl({ id_token_hint: idToken, post_logout_redirect_uri: 'http://127.0.0.1:3000/', state: 's3' }));
    expect(res.headers.get('location')).toBe('http://127.0.0.1:3000/?state=s3');
    expect(await isSignedIn(b)).toBe(false);
  });

  it("another user's id_token_hint (the attacker's own) does not end the victim's session: the user is asked (§2)", async () => {
    const victim = await signedIn('alice', 'wonderland');
    const attacker = await signedIn('bob', 'builder');
    const params = { id_token_hint: attacker.idToken, post_logout_redirect_uri: 'http://127.0.0.1:3000/', state: 's4' };
    const res = await victim.b.go(logoutUrl(params), { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie()).toEqual([]);
    const page = await res.text();
    expect(page).toContain('Sign out?');
    expect(page).toContain('Server-side example');
    expect(await isSignedIn(victim.b)).toBe(true);
    // Confirming on the page (same origin, CSRF token) goes ahead, to the hint's client's URI.
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const done = await victim.b.go(`${issuer}/oidc/logout`, { form: { ...params, csrf, confirm: 'yes' }, headers: { origin } });
    expect(done.headers.get('location')).toBe('http://127.0.0.1:3000/?state=s4');
    expect(await isSignedIn(victim.b)).toBe(false);
    expect(await isSignedIn(attacker.b)).toBe(true);
  });

  it('a browser without a session has nothing to confirm: it is sent to the registered URI', async () => {
    const res = await browser().go(logoutUrl({ client_id: 'web', post_logout_redirect_uri: 'http://127.0.0.1:3000/' }));
    expect(res.headers.get('location')).toBe('http://127.0.0.1:3000/');
  });
});
