// The example app in-process (app.fetch) against the reference server on a real port:
// a login through the server's HTML forms with form_post, the claims page, the API route
// with a cached client-credentials token, and logout.
import { createReferenceServer, demoConfig } from '@oidc-rp/reference-server';
import { completeLogin } from '@oidc-rp/reference-server/testing';
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
    cookieSecret: 'example-test-cookie-secret-0123456789abcdef',
    web: { clientId: 'web', clientSecret: 'web-secret' },
    service: { clientId: 'service', clientSecret: 'service-secret', scope: 'api.read' },
  });
});
afterAll(() => close());

const cookiePair = (setCookie: string) => setCookie.split(';')[0] as string;

async function logIn(): Promise<string> {
  const login = await app.request(`${BASE_URL}/login`);
  expect(login.status).toBe(302);
  const transactionCookie = cookiePair(login.headers.getSetCookie()[0] as string);
  const result = await completeLogin(login.headers.get('location') as string, { username: 'alice', password: 'wonderland' });
  if (result.type !== 'form_post') throw new Error(`expected a form_post response, got ${result.type}`);
  expect(result.action).toBe(`${BASE_URL}/callback`);

  const callback = await app.request(result.action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: transactionCookie },
    body: result.body.toString(),
  });
  expect(callback.status).toBe(303);
  expect(callback.headers.get('location')).toBe('/');
  const setCookies = callback.headers.getSetCookie();
  expect(setCookies.some((c) => c.startsWith(`${transactionCookie.split('=')[0]}=;`) && c.includes('Max-Age=0'))).toBe(true);
  const session = setCookies.find((c) => c.startsWith('example.sid='));
  expect(session).toContain('HttpOnly');
  return cookiePair(session as string);
}

describe('node example', () => {
  it('home page offers a login link when signed out', async () => {
    const home = await app.request(`${BASE_URL}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('href="/login"');
  });

  it('logs alice in through the reference server (form_post) and shows her ID token claims', async () => {
    const session = await logIn();
    const home = await app.request(`${BASE_URL}/`, { headers: { cookie: session } });
    const page = await home.text();
    expect(page).toContain('Hello, Alice Liddell');
    expect(page).toContain('&quot;sub&quot;: &quot;alice&quot;');
    expect(page).toContain('alice@example.com');
    expect(page).toContain(`&quot;iss&quot;: &quot;${issuer}&quot;`);
    expect(page).toContain('href="/logout"');
  });

  it('shows a clear error page for a callback without a pending login', async () => {
    const response = await app.request(`${BASE_URL}/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'code=x&state=y',
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('transaction_not_found');
  });

  it('/api/data reuses one cached client-credentials token', async () => {
    const first = (await (await app.request(`${BASE_URL}/api/data`)).json()) as Record<string, unknown>;
    const second = (await (await app.request(`${BASE_URL}/api/data`)).json()) as Record<string, unknown>;
    expect(first).toMatchObject({ client: 'service', requestedScope: 'api.read', tokenRequestsSoFar: 1 });
    expect(Date.parse(first.expiresAt as string)).toBeGreaterThan(Date.now());
    expect(second.tokenFingerprint).toBe(first.tokenFingerprint);
    expect(second.tokenRequestsSoFar).toBe(1);
  });

  it('logout ends the local session and sends the user to the provider with an id_token_hint', async () => {
    const session = await logIn();
    const logout = await app.request(`${BASE_URL}/logout`, { headers: { cookie: session } });
    expect(logout.status).toBe(302);
    const location = new URL(logout.headers.get('location') as string);
    expect(`${location.origin}${location.pathname}`).toBe(`${issuer}/oidc/logout`);
    expect(location.searchParams.get('id_token_hint')).toEqual(expect.any(String));
    expect(location.searchParams.get('post_logout_redirect_uri')).toBe(`${BASE_URL}/`);
    const home = await app.request(`${BASE_URL}/`, { headers: { cookie: session } });
    expect(await home.text()).toContain('href="/login"');
  });
});
