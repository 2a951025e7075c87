// Where the server says it is, and the cookies it sets, over real HTTP: a forged Host header
// cannot change the issuer or any URL (items 7 and 8 of the security review); behind a
// TLS-terminating proxy the cookies are Secure and __Host- prefixed; a planted browser-binding
// cookie is never adopted and a login form posted from a sibling origin is refused (item 5).
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createReferenceServer, demoConfig, type ReferenceServer, type ServerConfig } from '../src/index';
import { CookieJar } from '../src/testing';
import { authorizeUrl, webParams } from './helpers';
import { browser, hiddenFields, openLogin, redirectTo } from './support/http-browser';

let server: ReferenceServer | undefined;
const logs: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  // No log line carries a password, or anything shaped like a code, token or cookie value.
  for (const line of logs) expect(line).not.toMatch(/wonderland|mallory-password|[A-Za-z0-9_-]{43}/);
  logs.length = 0;
});

async function serve(change?: (config: ServerConfig) => void, options: { publicOrigin?: string; trustProxy?: boolean } = {}) {
  const config = demoConfig();
  config.tenants[0]?.users?.push({ username: 'mallory', password: 'mallory-password' });
  // Password-less demo sign-in is refused next to a public origin, trusted hosts or a proxy.
  for (const tenant of config.tenants) tenant.demo_login = false;
  change?.(config);
  const log = (m: string) => logs.push(m);
  server = await createReferenceServer(config, { logger: { info: log, warn: log, error: log }, ...options });
  const listening = await server.listen({ port: 0 });
  return { origin: listening.origin, port: listening.port, issuer: `${listening.origin}/demo` };
}

/** A GET with exactly these headers (fetch would not send a Host of our choosing). */
function raw(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the issuer does not follow a forged Host header', () => {
  it('Host: evil.example gets 400 in the endpoint shape: JSON for discovery, an HTML page for authorize', async () => {
    const { port } = await serve();
    const discovery = await raw(port, '/demo/.well-known/openid-configuration', { host: 'evil.example' });
    expect(discovery.status).toBe(400);
    expect(discovery.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(discovery.body)).toMatchObject({ error: 'invalid_request' });
    expect(discovery.body).not.toContain('"issuer"');
    const page = await raw(port, `/demo/oidc/authorize?${authorizeUrl(webParams()).searchParams}`, { host: 'evil.example' });
    expect(page.status).toBe(400);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers.location).toBeUndefined();
    expect(page.body).toContain('trusted_hosts');
    // Nor does a host with a path or credentials smuggled in.
    expect((await raw(port, '/demo/oidc/jwks', { host: 'evil.example@127.0.0.1' })).status).toBe(400);
  });

  it('loopback hosts are served as they are asked for', async () => {
    const { port } = await serve();
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const res = await raw(port, '/demo/.well-known/openid-configuration', { host });
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body).issuer).toBe(`http://${host}/demo`);
    }
  });

  it('a configured trusted host is accepted', async () => {
    const { port } = await serve((config) => {
      config.trusted_hosts = ['login.internal'];
    });
    const res = await raw(port, '/demo/.well-known/openid-configuration', { host: `login.internal:${port}` });
    expect(JSON.parse(res.body).issuer).toBe(`http://login.internal:${port}/demo`);
    expect((await raw(port, '/demo/oidc/jwks', { host: 'other.internal' })).status).toBe(400);
  });

  it('a public origin wins over any Host header, and proxy headers are ignored unless trusted', async () => {
    const { port } = await serve((config) => {
      config.public_origin = 'https://login.example.com';
    });
    for (const host of ['evil.example', `127.0.0.1:${port}`]) {
      const res = await raw(port, '/demo/.well-known/openid-configuration', { host, 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' });
      expect(res.status).toBe(200);
      const doc = JSON.parse(res.body) as Record<string, string>;
      expect(doc.issuer).toBe('https://login.example.com/demo');
      expect(doc.authorization_endpoint).toBe('https://login.example.com/demo/oidc/authorize');
    }
  });

  it('X-Forwarded-* are used only with trust_proxy', async () => {
    const plain = await serve();
    const ignored = await raw(plain.port, '/demo/.well-known/openid-configuration', { host: `127.0.0.1:${plain.port}`, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'localhost' });
    expect(JSON.parse(ignored.body).issuer).toBe(`http://127.0.0.1:${plain.port}/demo`);
    await server?.close();
    const proxied = await serve((config) => {
      config.trusted_hosts = ['login.example.com'];
    }, { trustProxy: true });
    const used = await raw(proxied.port, '/demo/.well-known/openid-configuration', { host: `127.0.0.1:${proxied.port}`, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'login.example.com' });
    expect(JSON.parse(used.body).issuer).toBe('https://login.example.com/demo');
    const untrusted = await raw(proxied.port, '/demo/oidc/jwks', { host: `127.0.0.1:${proxied.port}`, 'x-forwarded-host': 'evil.example' });
    expect(untrusted.status).toBe(400);
  });
});

describe('cookies behind a TLS-terminating proxy', () => {
  /** A browser that addresses the public origin while the requests reach the listener. */
  function behindProxy(listener: string, jar = new CookieJar()) {
    return browser(jar, (request) => {
      const url = new URL(request.url);
      const target = new URL(`${url.pathname}${url.search}`, listener);
      return fetch(new Request(target, request));
    });
  }

  it('with an https public origin: __Host- cookies, Secure, Path=/, and the whole sign-in works', async () => {
    const { origin } = await serve(undefined, { publicOrigin: 'https://login.example.com' });
    const b = behindProxy(origin);
    const start = await b.go(authorizeUrl(webParams(), 'https://login.example.com/demo'));
    expect(start.headers.getSetCookie()).toEqual([expect.stringMatching(/^__Host-rs_browser\.demo=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Secure$/)]);
    const login = await b.go(start.headers.get('location') ?? '');
    const fields = hiddenFields(await login.text());
    const signedIn = await b.go('https://login.example.com/demo/oidc/login', {
      form: { ...fields, username: 'alice', password: 'wonderland', action: 'login' },
      headers: { origin: 'https://login.example.com' },
    });
    expect(signedIn.status).toBe(302);
    const cookies = signedIn.headers.getSetCookie();
    expect(cookies[0]).toMatch(/^__Host-rs_session\.demo=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
    expect(cookies[1]).toMatch(/^__Host-rs_browser\.demo=.*; Secure$/);
    // The session-management browser state: readable by the check_session_iframe (no HttpOnly), __Host- and Secure too.
    expect(cookies[2]).toMatch(/^__Host-rs_opbs\.demo=[A-Za-z0-9_-]{43}; Path=\/; SameSite=Lax; Secure$/);
    const consent = await b.go(signedIn.headers.get('location') ?? '');
    const done = await b.go('https://login.example.com/demo/oidc/consent', { form: { ...hiddenFields(await consent.text()), decision: 'allow' } });
    expect(redirectTo(done).searchParams.get('code')).toBeTruthy();
    expect(redirectTo(done).searchParams.get('iss')).toBe('https://login.example.com/demo');
  });

  it('with trust_proxy and X-Forwarded-Proto: https the cookies are Secure too', async () => {
    const { port } = await serve(undefined, { trustProxy: true });
    const res = await raw(port, `/demo/oidc/authorize?${authorizeUrl(webParams()).searchParams}`, { host: `localhost:${port}`, 'x-forwarded-proto': 'https' });
    expect(res.status).toBe(302);
    expect(String(res.headers['set-cookie'])).toMatch(/^__Host-rs_browser\.demo=.*; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
    expect(res.headers.location).toMatch(new RegExp(`^https://localhost:${port}/demo/oidc/login\\?`));
  });
});

describe('login CSRF through a planted browser-binding cookie', () => {
  const binding = (res: Response) => /rs_browser=([^;]+)/.exec(res.headers.getSetCookie().join('\n'))?.[1];

  it('a binding value the server never issued is not adopted: /authorize plants a fresh one', async () => {
    const { issuer } = await serve();
    const planted = 'planted-by-a-sibling-origin-0123456789';
    const jar = new CookieJar();
    const victim = browser(jar);
    const start = await victim.go(authorizeUrl(webParams(), issuer), { headers: { cookie: `rs_browser=${planted}` } });
    const fresh = binding(start);
    expect(fresh).toBeTruthy();
    expect(fresh).not.toBe(planted);
    // The interaction is bound to the server's value: the planted one cannot open it.
    const login = redirectTo(start);
    const withPlanted = await victim.go(login, { headers: { cookie: `rs_browser=${planted}` } });
    expect(withPlanted.status).toBe(403);
  });

  it("the attacker's own login form, posted by the victim's browser from a sibling origin with his issued binding planted, is refused", async () => {
    const { issuer, origin } = await serve();
    // The attacker gets a binding issued to himself and starts a sign-in bound to it.
    const attacker = browser();
    const { interaction, csrf, action } = await openLogin(attacker, authorizeUrl(webParams(), issuer));
    const issued = attacker.jar.header(new URL(action)) ?? '';
    expect(issued).toMatch(/^rs_browser=/);
    // A page on a sibling origin plants that cookie in the victim's browser and submits the form.
    const sibling = origin.replace('127.0.0.1', 'evil.localhost');
    const victim = browser();
    const attempts: Record<string, string>[] = [
      { origin: sibling },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'null', 'sec-fetch-site': 'same-site' },
      { origin, 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of attempts) {
      const res = await victim.go(action, { form: { interaction, csrf, username: 'mallory', password: 'mallory-password', action: 'login' }, headers: { cookie: issued, ...headers } });
      expect(res.status).toBe(403);
      expect(res.headers.getSetCookie()).toEqual([]);
      expect(await res.text()).toContain('posted from another site');
    }
    // The same form from the server's own page works: Chromium sends `Origin: null` there (the
    // page's Referrer-Policy is no-referrer) with `Sec-Fetch-Site: same-origin`.
    const own = await attacker.go(action, { form: { interaction, csrf, username: 'mallory', password: 'mallory-password', action: 'login' }, headers: { origin: 'null', 'sec-fetch-site': 'same-origin' } });
    expect(own.status).toBe(302);
  });

  it('the binding is rotated at sign-in: a value someone learnt before no longer binds anything', async () => {
    const { issuer } = await serve();
    const victim = browser();
    const { interaction, csrf, action } = await openLogin(victim, authorizeUrl(webParams(), issuer));
    const before = victim.jar.header(new URL(action)) ?? '';
    const signedIn = await victim.go(action, { form: { interaction, csrf, username: 'alice', password: 'wonderland', action: 'login' } });
    const after = binding(signedIn);
    expect(after).toBeTruthy();
    expect(`rs_browser=${after}`).not.toBe(before.match(/rs_browser=[^;]+/)?.[0]);
    // The consent step continues with the new value only.
    const consentUrl = new URL(signedIn.headers.get('location') ?? '');
    const old = await browser().go(consentUrl, { headers: { cookie: before } });
    expect(old.status).toBe(403);
    const consent = await victim.go(consentUrl);
    expect(consent.status).toBe(200);
    // Someone holding the old value is given a fresh binding, not the old one.
    const reuse = await browser().go(authorizeUrl(webParams(), issuer), { headers: { cookie: before } });
    expect(binding(reuse)).toBeTruthy();
  });
});
