// The example app in-process (app.request) against the reference server on a real port:
// a login through the server's HTML forms with form_post, the home page with the claims table
// and the session's expiry, the refresh button, logout, the 404 page, and the API route with a
// cached client-credentials token.
import { createReferenceServer, demoConfig } from '@oidc-rp/reference-server';
import { CookieJar, completeLogin } from '@oidc-rp/reference-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleApp } from '../src/app';

const BASE_URL = 'http://127.0.0.1:3000'; // the web client's registered callback; never listened on
let close: () => Promise<void>;
let issuer: string;
let app: ReturnType<typeof createExampleApp>;

beforeAll(async () => {
  const server = await createReferenceServer(demoConfig(), { logger: false });
  const listening = await server.listen({ port: 0, host: '127.0.0.1' });
  close = listening.close;
  issuer = `${listening.origin}/demo`;
  app = createExampleApp({
    issuer,
    baseUrl: BASE_URL,
    cookieSecret: 'node-demo-dev-Zf5QAQnqFwTRwgLVISw_mCxOJQEF2grF',
    web: { clientId: 'web', clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' },
    service: { clientId: 'service', clientSecret: 'service-secret', scope: 'api.read' },
  });
});
afterAll(() => close());

/** A browser stand-in for the in-process app: keeps its cookies. */
class Visitor {
  readonly jar = new CookieJar();
  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(path, BASE_URL);
    const headers = new Headers(init.headers);
    const cookie = this.jar.header(url);
    if (cookie && !headers.has('cookie')) headers.set('cookie', cookie);
    const response = await app.request(url.href, { ...init, headers });
    this.jar.store(url, response);
    return response;
  }
  async page(path = '/'): Promise<string> {
    return (await this.request(path)).text();
  }
  post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: BASE_URL, ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

async function loggedIn(): Promise<Visitor> {
  const visitor = new Visitor();
  const login = await visitor.request('/login');
  expect(login.status).toBe(302);
  const result = await completeLogin(login.headers.get('location') as string, { username: 'alice', password: 'wonderland' });
  if (result.type !== 'form_post') throw new Error(`expected a form_post response, got ${result.type}`);
  expect(result.action).toBe(`${BASE_URL}/callback`);
  const callback = await visitor.request('/callback', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: result.body.toString(),
  });
  expect(callback.status).toBe(303);
  expect(callback.headers.get('location')).toBe('/');
  const session = callback.headers.getSetCookie().find((c) => c.startsWith('oidc-rp.session='));
  expect(session).toContain('HttpOnly');
  return visitor;
}

const csrfOf = (page: string) => /name="csrf_token" value="([^"]+)"/.exec(page)?.[1] as string;

describe('node example', () => {
  it('home page offers a login button when signed out, styled like the SPA example', async () => {
    const page = await new Visitor().page('/');
    expect(page).toContain('href="/login"');
    expect(page).toContain('data-testid="login-button"');
    expect(page).toContain('.claims th'); // the SPA's stylesheet
    expect(page).toContain('Signed out');
  });

  it('shows alice\u2019s claims as a table, without nonce or at_hash, and the session\u2019s expiry', async () => {
    const visitor = await loggedIn();
    const page = await visitor.page('/');
    expect(page).toContain('Hello, Alice Liddell');
    expect(page).toMatch(/<tr data-claim="sub">.*<td data-testid="claim-sub">alice<\/td>/);
    expect(page).toContain('<td data-testid="claim-email">alice@example.com</td>');
    expect(page).toContain(`<td data-testid="claim-iss">${issuer}</td>`);
    expect(page).toMatch(/data-testid="claim-exp">\d+ \(\d{4}-\d\d-\d\dT/);
    expect(page).not.toContain('claim-nonce');
    expect(page).not.toContain('claim-at_hash');
    expect(page).not.toContain('{&quot;'); // no raw JSON dump
    expect(page).toMatch(/data-testid="session-expires">\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ</);
    expect(page).toMatch(/data-testid="access-token-expires">\d{4}-/);
    expect(page).toContain('data-testid="refresh-button"');
  });

  it('the refresh button refreshes the tokens (with the csrf token only)', async () => {
    const visitor = await loggedIn();
    const before = await visitor.page('/');
    expect((await visitor.post('/refresh', {})).status).toBe(403);
    const refreshed = await visitor.post('/refresh', { csrf_token: csrfOf(before) });
    expect(refreshed.status).toBe(303);
    expect(refreshed.headers.get('location')).toBe('/?refreshed');
    expect(refreshed.headers.getSetCookie().some((c) => c.startsWith('oidc-rp.session='))).toBe(true);
    const after = await visitor.page('/?refreshed');
    expect(after).toContain('Tokens refreshed.');
    expect(after).toContain('Hello, Alice Liddell');
  });

  it('logout is a POST with the csrf token; it ends the session and the provider\u2019s', async () => {
    const visitor = await loggedIn();
    const page = await visitor.page('/');
    expect((await visitor.post('/logout', { csrf_token: 'forged' })).status).toBe(403);
    const logout = await visitor.post('/logout', { csrf_token: csrfOf(page) });
    expect(logout.status).toBe(303);
    const location = new URL(logout.headers.get('location') as string);
    expect(`${location.origin}${location.pathname}`).toBe(`${issuer}/oidc/logout`);
    expect(location.searchParams.get('id_token_hint')).toEqual(expect.any(String));
    expect(location.searchParams.get('post_logout_redirect_uri')).toBe(`${BASE_URL}/`);
    expect(await visitor.page('/')).toContain('data-testid="login-button"');
  });

  it('says why when the session cookie cannot be trusted', async () => {
    const visitor = await loggedIn();
    const cookie = visitor.jar.header(new URL(BASE_URL)) as string;
    const tampered = cookie.replace(/(oidc-rp\.session=[^.]*\.[^.]*\.[^.]*\.)(.)/, (_, head: string, c: string) => head + (c === 'A' ? 'B' : 'A'));
    const response = await app.request(`${BASE_URL}/`, { headers: { cookie: tampered } });
    const page = await response.text();
    expect(page).toContain('data-testid="signed-out-reason"');
    expect(page).toContain('could not be read');
  });

  it('answers an unknown path with a real 404 page', async () => {
    const response = await new Visitor().request('/no/such/page');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('text/html');
    const page = await response.text();
    expect(page).toContain('Page not found');
    expect(page).toContain('<code>/no/such/page</code>');
    expect(page).toContain('.claims th');
  });

  it('shows a clear error page for a callback without a pending login', async () => {
    const response = await new Visitor().post('/callback', { code: 'x', state: 'y' });
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toContain('<h1>Sign-in failed</h1>');
    expect(page).toContain('<code>transaction_not_found</code>');
  });

  /** What the provider posts back when the person does not sign in (form_post), for a login this visitor started. */
  async function refusedLogin(description: string): Promise<Response> {
    const visitor = new Visitor();
    const login = await visitor.request('/login?returnTo=%2Fapi%2Fdata');
    const state = new URL(login.headers.get('location') as string).searchParams.get('state') as string;
    return visitor.post('/callback', { error: 'access_denied', error_description: description, state, iss: issuer });
  }

  it('a cancelled sign-in shows the library’s page for a person: not completed, Try again, Home', async () => {
    const response = await refusedLogin('The user cancelled the sign-in');
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toContain('<h1>Sign-in not completed</h1>');
    expect(page).toContain('<p class="said">The user cancelled the sign-in</p>');
    expect(page).toContain('href="/login?returnTo=%2Fapi%2Fdata">Try again</a>');
    expect(page).toContain('href="/">Home</a>');
    expect(page).not.toContain('client registration');
    expect(response.headers.get('content-security-policy')).toMatch(/style-src 'sha256-/);
  });

  it('a lockout says so in the provider’s words, not "cancelled"', async () => {
    const page = await (await refusedLogin('Too many failed sign-in attempts. Try again in 15 minutes.')).text();
    expect(page).toContain('Too many failed sign-in attempts. Try again in 15 minutes.');
    expect(page).not.toMatch(/cancel/i);
  });

  it('opened at localhost, the login moves to 127.0.0.1 first (where the provider returns)', async () => {
    const response = await app.request('http://localhost:3000/login?returnTo=%2F');
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${BASE_URL}/login?returnTo=%2F`);
    expect(response.headers.getSetCookie()).toEqual([]);
  });

  it('the logout route without a session says "You are signed out"', async () => {
    const page = await new Visitor().page('/logout');
    expect(page).toContain('<h1>You are signed out</h1>');
    expect(page).toContain('href="/">Home</a>');
  });

  it('/api/data reuses one cached client-credentials token', async () => {
    const first = (await (await app.request(`${BASE_URL}/api/data`)).json()) as Record<string, unknown>;
    const second = (await (await app.request(`${BASE_URL}/api/data`)).json()) as Record<string, unknown>;
    expect(first).toMatchObject({ client: 'service', requestedScope: 'api.read', tokenRequestsSoFar: 1 });
    expect(Date.parse(first.expiresAt as string)).toBeGreaterThan(Date.now());
    expect(second.tokenFingerprint).toBe(first.tokenFingerprint);
    expect(second.tokenRequestsSoFar).toBe(1);
  });

  it('/api/data calls the protected /api/me with the service token, which introspection accepts', async () => {
    const data = (await (await app.request(`${BASE_URL}/api/data`)).json()) as Record<string, unknown>;
    expect(data.protectedApi).toMatchObject({
      status: 200,
      body: { checkedBy: 'introspection', scheme: 'Bearer', sub: 'service', client_id: 'service', aud: `${BASE_URL}/api`, scopes: ['api.read'] },
    });
  });

  it('/api/me refuses a missing or foreign token with RFC 6750 challenges naming its RFC 9728 metadata', async () => {
    const missing = await app.request(`${BASE_URL}/api/me`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${BASE_URL}/.well-known/oauth-protected-resource/api"`);
    const metadata = await (await app.request(`${BASE_URL}/.well-known/oauth-protected-resource/api`)).json();
    expect(metadata).toMatchObject({ resource: `${BASE_URL}/api`, authorization_servers: [issuer], bearer_methods_supported: ['header'] });
    // A token of the service for no particular resource: its audience is the issuer, not this API.
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret', scope: 'api.read' });
    const { access_token } = (await (await fetch(`${issuer}/oauth/token`, { method: 'POST', body: form })).json()) as { access_token: string };
    const foreign = await app.request(`${BASE_URL}/api/me`, { headers: { authorization: `Bearer ${access_token}` } });
    expect(foreign.status).toBe(401);
    expect(foreign.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await foreign.text()).not.toContain(access_token);
  });

  it('/api/me lets the SPA origin call it cross-origin with the Authorization header', async () => {
    const preflight = await app.request(`${BASE_URL}/api/me`, {
      method: 'OPTIONS',
      headers: { origin: 'http://127.0.0.1:5173', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:5173');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    const other = await app.request(`${BASE_URL}/api/me`, { headers: { origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});
