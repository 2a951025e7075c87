// Front-Channel Logout 1.0 and Session Management 1.0 from the provider's side, over the app's
// HTTP: the iframes page at logout (iss and sid only where registered, strict CSP, the next hop),
// the session_state of authorization responses and the browser-state cookie it hashes, the
// check_session_iframe page and who may frame it, the config and registration metadata.
import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { demoConfig, validateConfig } from '../src/index';
import { type Harness, CookieJar, ISSUER, WEB_REDIRECT, demoClient, demoTenant, exchangeWebCode, login, refusal, setup, webParams } from './helpers';

const WEB_FCL = 'http://127.0.0.1:3000/auth/frontchannel-logout';
const OTHER_FCL = 'http://127.0.0.1:3001/fcl?keep=1';

let h: Harness;

beforeEach(async () => {
  h = await setup((config) => {
    Object.assign(demoClient(config, 'web'), { frontchannel_logout_uri: WEB_FCL, frontchannel_logout_session_required: true });
    demoTenant(config).clients?.push({
      client_id: 'other',
      client_secret: 'other-secret-of-the-test-Zq7Xk2Lm9Vb4',
      redirect_uris: ['http://127.0.0.1:3001/callback'],
      scopes: ['openid'],
      skip_consent: true,
      frontchannel_logout_uri: OTHER_FCL,
    });
  });
});

function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1] as string, 'base64url').toString()) as Record<string, unknown>;
}

async function signIn(alsoOther = false) {
  const jar = new CookieJar();
  const { params } = await login(h, webParams(), { cookies: jar });
  const { id_token: idToken } = (await (await exchangeWebCode(h, params.get('code') as string)).json()) as { id_token: string };
  if (alsoOther) {
    const url = new URL(`${ISSUER}/oidc/authorize`);
    for (const [k, v] of Object.entries({ response_type: 'code', client_id: 'other', redirect_uri: 'http://127.0.0.1:3001/callback', scope: 'openid', state: 's' })) url.searchParams.set(k, v);
    const response = await h.fetch(new Request(url, { headers: { cookie: jar.header(url) ?? '' } }));
    expect(response.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1:3001\/callback\?code=/);
  }
  return { jar, idToken, sessionState: params.get('session_state') as string };
}

async function logout(jar: CookieJar, params: Record<string, string>): Promise<Response> {
  const url = new URL(`${ISSUER}/oidc/logout`);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const response = await h.fetch(new Request(url, { headers: { cookie: jar.header(url) ?? '' } }));
  jar.store(url, response);
  return response;
}

function iframeClients(body: string): Record<string, { origins: string[]; changed?: boolean }> {
  const match = /<script type="application\/json" id="clients"[^>]*>([^<]*)<\/script>/.exec(body);
  if (!match) throw new Error('no client data on the page');
  return JSON.parse(match[1] as string) as Record<string, { origins: string[]; changed?: boolean }>;
}

function pageData(body: string): { frames: string[]; next?: string; wait: number } {
  const match = /<script type="application\/json" id="frontchannel">([^<]*)<\/script>/.exec(body);
  if (!match) throw new Error('no front-channel data on the page');
  return JSON.parse(match[1] as string) as { frames: string[]; next?: string; wait: number };
}

describe('front-channel logout page', () => {
  it('loads every client of the sign-in: iss and sid only where registered, then the post-logout redirect with state', async () => {
    const { jar, idToken } = await signIn(true);
    const response = await logout(jar, { id_token_hint: idToken, post_logout_redirect_uri: 'http://127.0.0.1:3000/', state: 'bye' });
    expect(response.status).toBe(200);
    const data = pageData(await response.text());
    const sid = claimsOf(idToken).sid as string;
    expect(data.frames).toEqual([`${WEB_FCL}?iss=${encodeURIComponent(ISSUER)}&sid=${sid}`, OTHER_FCL]);
    expect(data.next).toBe('http://127.0.0.1:3000/?state=bye');
    expect(data.wait).toBeGreaterThan(0);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain('frame-src http://127.0.0.1:3000 http://127.0.0.1:3001');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.getSetCookie()).toEqual(['rs_session=; Path=/demo/; HttpOnly; SameSite=Lax; Max-Age=0', 'rs_opbs=; Path=/demo/; SameSite=Lax; Max-Age=0']);
    // The session is over: SSO asks for a login again.
    const url = new URL(`${ISSUER}/oidc/authorize`);
    for (const [k, v] of Object.entries(webParams({ prompt: 'none' }))) if (v !== undefined) url.searchParams.set(k, v);
    const again = await h.fetch(new Request(url, { headers: { cookie: jar.header(url) ?? '' } }));
    expect(new URL(again.headers.get('location') ?? '').searchParams.get('error')).toBe('login_required');
  });

  it('without a post_logout_redirect_uri (OP-initiated, confirmed by the user), the page ends at "signed out"', async () => {
    const { jar, idToken } = await signIn();
    const response = await logout(jar, { id_token_hint: idToken });
    expect(response.status).toBe(200);
    const data = pageData(await response.text());
    expect(data.frames).toHaveLength(1);
    expect(data.next).toBeUndefined();
  });

  it('a logout without a session renders no frames (nothing to tell) and a second logout tells nobody again', async () => {
    const { jar, idToken } = await signIn();
    expect((await logout(jar, { id_token_hint: idToken })).status).toBe(200);
    const second = await logout(jar, { id_token_hint: idToken, post_logout_redirect_uri: 'http://127.0.0.1:3000/' });
    expect(second.status).toBe(302);
  });

  it('a client without frontchannel_logout_uri gets no frame: the logout answers the plain redirect', async () => {
    const plain = await setup();
    const jar = new CookieJar();
    const { params } = await login(plain, webParams(), { cookies: jar });
    const { id_token: idToken } = (await (await exchangeWebCode(plain, params.get('code') as string)).json()) as { id_token: string };
    const url = new URL(`${ISSUER}/oidc/logout`);
    url.searchParams.set('id_token_hint', idToken);
    url.searchParams.set('post_logout_redirect_uri', 'http://127.0.0.1:3000/');
    const response = await plain.fetch(new Request(url, { headers: { cookie: jar.header(url) ?? '' } }));
    expect(response.status).toBe(302);
  });
});

describe('session management', () => {
  it('each authorization response carries session_state: SHA-256 of client_id, the redirect origin, the browser state cookie and the salt', async () => {
    const { jar, sessionState, idToken } = await signIn();
    const [hash, salt] = sessionState.split('.') as [string, string];
    expect(salt.length).toBeGreaterThanOrEqual(16);
    const browserState = jar.header(new URL(`${ISSUER}/oidc/check-session`))?.match(/rs_opbs=([^;]+)/)?.[1];
    expect(browserState).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const expected = createHash('sha256').update(`web ${new URL(WEB_REDIRECT).origin} ${browserState} ${salt}`).digest('base64url');
    expect(hash).toBe(expected);
    // The browser state is not the session cookie, nor derived from the sid alone by anyone without it.
    expect(browserState).not.toBe(jar.header(new URL(`${ISSUER}/oidc/check-session`))?.match(/rs_session=([^;]+)/)?.[1]);
    expect(claimsOf(idToken).sid).toBeTruthy();
  });

  it('the salt differs per response, so two clients or two logins never share a state', async () => {
    const a = await signIn();
    const b = await signIn();
    expect(a.sessionState).not.toBe(b.sessionState);
  });

  it('the check_session_iframe may be framed by registered client origins only, and is advertised', async () => {
    const doc = (await (await h.get('/.well-known/openid-configuration')).json()) as Record<string, unknown>;
    expect(doc.check_session_iframe).toBe(`${ISSUER}/oidc/check-session`);
    expect(doc.frontchannel_logout_supported).toBe(true);
    expect(doc.frontchannel_logout_session_supported).toBe(true);
    const page = await h.get('/oidc/check-session');
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBeNull();
    const csp = page.headers.get('content-security-policy') ?? '';
    const ancestors = /frame-ancestors ([^;]+)/.exec(csp)?.[1]?.split(' ') ?? [];
    expect(ancestors).toEqual(expect.arrayContaining(['http://127.0.0.1:3000', 'http://127.0.0.1:3001', 'http://127.0.0.1:5173']));
    expect(ancestors).not.toContain('*');
    expect(csp).toContain("default-src 'none'");
    const body = await page.text();
    expect(iframeClients(body).web).toEqual({ origins: ['http://127.0.0.1:3000', 'http://localhost:3000'] });
    expect(body).not.toContain('secret');
  });

  it('the check_session_changed fault marks its client only', async () => {
    const faulty = await setup((config) => {
      Object.assign(demoClient(config, 'web'), { fault: 'check_session_changed' });
    });
    const body = await (await faulty.get('/oidc/check-session')).text();
    expect(iframeClients(body).web?.changed).toBe(true);
    expect(iframeClients(body).spa?.changed).toBeUndefined();
  });
});

describe('configuration', () => {
  it('refuses a frontchannel_logout_uri over http off loopback, with a fragment, or not absolute; and a non-boolean session flag', () => {
    const withUri = (uri: unknown) => {
      const config = demoConfig();
      Object.assign(demoClient(config, 'web'), { frontchannel_logout_uri: uri });
      return config;
    };
    expect(() => validateConfig(withUri('https://app.example/fcl'))).not.toThrow();
    expect(() => validateConfig(withUri('http://127.0.0.1:3000/fcl'))).not.toThrow();
    for (const uri of ['http://app.example/fcl', 'https://app.example/fcl#x', 'not a uri', '/relative', 7]) {
      expect(refusal(withUri(uri)).field, String(uri)).toBe('tenants[0].clients[1].frontchannel_logout_uri');
    }
    const flag = demoConfig();
    Object.assign(demoClient(flag, 'web'), { frontchannel_logout_session_required: 'yes' });
    expect(refusal(flag).field).toBe('tenants[0].clients[1].frontchannel_logout_session_required');
  });
});
