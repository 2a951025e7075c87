// handleLogin / handleCallback: the sealed transaction cookie and the round trip through the
// reference server's real login forms with form_post.
import { completeLogin } from '@oidc-rp/reference-server/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type NodeClient, type NodeClientOptions, createNodeClient, serviceProvider } from '../src/index';
import { type RunningServer, startReferenceServer } from './support/reference-server';

const cookieSecret = 'test-cookie-AtAE9OxzcznqoR6nacFM-e9MnATZvZ-9';
let server: RunningServer;
let web: NodeClientOptions;

beforeAll(async () => {
  server = await startReferenceServer();
  web = {
    provider: serviceProvider(server.issuer),
    clientId: 'web',
    clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
    redirectUri: 'http://127.0.0.1:3000/callback',
    scope: 'openid profile',
    responseMode: 'form_post',
    cookieSecret,
  };
});
afterAll(() => server.close());
afterEach(() => {
  vi.useRealTimers();
});

interface Cookie {
  name: string;
  value: string;
  attributes: string[];
}

function parseSetCookie(header: string): Cookie {
  const [pair, ...attributes] = header.split(';').map((s) => s.trim());
  const eq = (pair as string).indexOf('=');
  return { name: (pair as string).slice(0, eq), value: (pair as string).slice(eq + 1), attributes };
}

/** handleLogin, then the login forms; returns the callback Request the browser would send. */
async function loginToCallback(client: NodeClient, options?: Parameters<NodeClient['handleLogin']>[1]) {
  const response = await client.handleLogin(new Request('http://127.0.0.1:3000/login'), options);
  const setCookies = response.headers.getSetCookie();
  const cookie = parseSetCookie(setCookies.at(-1) as string);
  const result = await completeLogin(response.headers.get('location') as string, { username: 'alice', password: 'wonderland' });
  if (result.type !== 'form_post') throw new Error('expected form_post');
  const callback = (cookieHeader: string) =>
    new Request(result.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader },
      body: result.body,
    });
  return { response, cookie, callback };
}

describe('handleLogin', () => {
  it('redirects to the provider and sets the sealed transaction as an HttpOnly Lax cookie (http loopback)', async () => {
    const client = createNodeClient(web);
    const response = await client.handleLogin(new Request('http://127.0.0.1:3000/login'));
    expect(response.status).toBe(302);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const location = new URL(response.headers.get('location') as string);
    expect(`${location.origin}${location.pathname}`).toBe(`${server.issuer}/oidc/authorize`);
    expect(location.searchParams.get('response_mode')).toBe('form_post');

    const setCookies = response.headers.getSetCookie();
    expect(setCookies).toHaveLength(1);
    const cookie = parseSetCookie(setCookies[0] as string);
    expect(cookie.name).toMatch(/^oidc-rp\.tx\.[0-9a-f]{24}$/);
    expect(cookie.attributes).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Lax', 'Max-Age=600']));
    expect(cookie.attributes).not.toContain('Secure');
    const transaction = await client.unsealTransaction(cookie.value);
    expect(location.searchParams.get('state')).toBe(transaction.state);
    expect(cookie.value).not.toContain(transaction.codeVerifier as string);
  });

  it('on https: Secure, __Host- prefix, SameSite=None for form_post and Lax for query', async () => {
    const client = createNodeClient({ ...web, redirectUri: 'https://app.example.com/callback' });
    const formPost = parseSetCookie((await client.handleLogin(new Request('https://app.example.com/login'))).headers.getSetCookie()[0] as string);
    expect(formPost.name).toMatch(/^__Host-oidc-rp\.tx\./);
    expect(formPost.attributes).toEqual(expect.arrayContaining(['Secure', 'SameSite=None', 'Path=/', 'HttpOnly']));
    const query = parseSetCookie(
      (await client.handleLogin(new Request('https://app.example.com/login'), { responseMode: 'query' })).headers.getSetCookie()[0] as string,
    );
    expect(query.attributes).toEqual(expect.arrayContaining(['Secure', 'SameSite=Lax']));
  });

  it('keeps at most five pending login cookies, clearing the oldest', async () => {
    const client = createNodeClient(web);
    const pending = Array.from({ length: 6 }, (_, i) => `oidc-rp.tx.${String(i).repeat(24)}=v${i}`);
    const request = new Request('http://127.0.0.1:3000/login', { headers: { cookie: ['theme=dark', ...pending].join('; ') } });
    const cookies = (await client.handleLogin(request)).headers.getSetCookie().map(parseSetCookie);
    const cleared = cookies.filter((c) => c.attributes.includes('Max-Age=0')).map((c) => c.name);
    expect(cleared).toEqual([0, 1].map((i) => `oidc-rp.tx.${String(i).repeat(24)}`));
    expect(cookies.filter((c) => !c.attributes.includes('Max-Age=0'))).toHaveLength(1);
  });
});

describe('handleCallback', () => {
  it('finishes a form_post login from the callback request and its cookie', async () => {
    const client = createNodeClient(web);
    const { cookie, callback } = await loginToCallback(client, { appState: { returnTo: '/orders' } });
    const result = await client.handleCallback(callback(`other=1; ${cookie.name}=${cookie.value}`));
    expect(result.tokens.claims).toMatchObject({ sub: 'alice', name: 'Alice Liddell' });
    expect(result.appState).toEqual({ returnTo: '/orders' });
    expect(result.transaction.clientId).toBe('web');
    const clear = parseSetCookie(result.clearCookie);
    expect(clear.name).toBe(cookie.name);
    expect(clear.value).toBe('');
    expect(clear.attributes).toContain('Max-Age=0');
  });

  it('keeps parallel logins apart: each callback finds its own cookie', async () => {
    const client = createNodeClient(web);
    const first = await loginToCallback(client, { appState: 'first' });
    const second = await loginToCallback(client, { appState: 'second' });
    const jar = `${first.cookie.name}=${first.cookie.value}; ${second.cookie.name}=${second.cookie.value}`;
    expect((await client.handleCallback(second.callback(jar))).appState).toBe('second');
    expect((await client.handleCallback(first.callback(jar))).appState).toBe('first');
  });

  it('works on another instance sharing the cookie secret (no sticky sessions)', async () => {
    const { cookie, callback } = await loginToCallback(createNodeClient(web));
    const otherInstance = createNodeClient(web);
    await expect(otherInstance.handleCallback(callback(`${cookie.name}=${cookie.value}`))).resolves.toMatchObject({
      tokens: { claims: { sub: 'alice' } },
    });
  });

  it('without the cookie: transaction_not_found, and no token request', async () => {
    const client = createNodeClient(web);
    const { callback } = await loginToCallback(client);
    const before = server.count('POST', '/oidc/token');
    const error = await client.handleCallback(callback('unrelated=1')).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'transaction_not_found', message: expect.stringContaining('Start a new login') });
    expect(server.count('POST', '/oidc/token')).toBe(before);
  });

  it('with a tampered cookie: transaction_invalid', async () => {
    const client = createNodeClient(web);
    const { cookie, callback } = await loginToCallback(client);
    const parts = cookie.value.split('.');
    parts[3] = `${(parts[3] as string).slice(0, -2)}${(parts[3] as string).endsWith('AA') ? 'BB' : 'AA'}`;
    const error = await client.handleCallback(callback(`${cookie.name}=${parts.join('.')}`)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'transaction_invalid' });
  });

  it('with a cookie sealed under another secret: transaction_invalid', async () => {
    const other = createNodeClient({ ...web, cookieSecret: 'test-different-qozQHmqBJQpd3nMPVyZvk2p9YyvJkTi7' });
    const { cookie, callback } = await loginToCallback(other);
    const error = await createNodeClient(web)
      .handleCallback(callback(`${cookie.name}=${cookie.value}`))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'transaction_invalid', message: expect.stringContaining('different cookieSecret') });
  });

  it('with an expired cookie: transaction_expired', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const client = createNodeClient({ ...web, transactionMaxAge: 120 });
    const { cookie, callback } = await loginToCallback(client);
    vi.setSystemTime(Date.now() + 121_000);
    const before = server.count('POST', '/oidc/token');
    const error = await client.handleCallback(callback(`${cookie.name}=${cookie.value}`)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'transaction_expired' });
    expect(server.count('POST', '/oidc/token')).toBe(before);
  });

  it('refuses a callback whose state has no cookie even when another login is pending (login CSRF)', async () => {
    const client = createNodeClient(web);
    const victim = await loginToCallback(client);
    const attacker = await loginToCallback(client);
    // The victim's browser holds its own cookie only; the attacker's callback must not use it.
    const error = await client.handleCallback(attacker.callback(`${victim.cookie.name}=${victim.cookie.value}`)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'transaction_not_found' });
  });

  it('refuses a callback without state', async () => {
    const client = createNodeClient(web);
    const request = new Request('http://127.0.0.1:3000/callback?code=abc');
    await expect(client.handleCallback(request)).rejects.toMatchObject({ code: 'state_missing' });
  });

  it('finishes a query-mode login from a GET callback', async () => {
    const client = createNodeClient({ ...web, responseMode: 'query' });
    const response = await client.handleLogin(new Request('http://127.0.0.1:3000/login'));
    const cookie = parseSetCookie(response.headers.getSetCookie()[0] as string);
    const result = await completeLogin(response.headers.get('location') as string, { username: 'alice', password: 'wonderland' });
    if (result.type !== 'redirect') throw new Error('expected a redirect');
    const callback = new Request(result.location, { headers: { cookie: `${cookie.name}=${cookie.value}` } });
    await expect(client.handleCallback(callback)).resolves.toMatchObject({ tokens: { claims: { sub: 'alice' } } });
  });
});
