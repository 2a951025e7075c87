import { beforeEach, describe, expect, it } from 'vitest';
import { authorizeUrl, completeLogin, CookieJar, demoClient, exchangeWebCode, ISSUER, login, setup, webCode, webParams, type Harness } from './helpers';

let h: Harness;
beforeEach(async () => {
  h = await setup((config) => {
    demoClient(config, 'web').post_logout_redirect_uris = ['http://127.0.0.1:3000/', 'https://app.example/bye?x=1'];
  });
});

async function tokens(scope = 'openid profile email offline_access'): Promise<{ access_token: string; refresh_token: string; id_token: string }> {
  return (await (await exchangeWebCode(h, await webCode(h, { scope }))).json()) as { access_token: string; refresh_token: string; id_token: string };
}

describe('/oidc/userinfo', () => {
  it('GET with a Bearer header returns the claims of the granted scopes', async () => {
    const { access_token } = await tokens('openid email');
    const res = await h.get('/oidc/userinfo', { authorization: `Bearer ${access_token}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ sub: 'alice', email: 'alice@example.com', email_verified: true });
  });

  it('POST with the header, or with access_token in a form body', async () => {
    const { access_token } = await tokens('openid profile');
    const header = await h.fetch(new Request(`${ISSUER}/oidc/userinfo`, { method: 'POST', headers: { authorization: `Bearer ${access_token}` } }));
    expect(await header.json()).toEqual({ sub: 'alice', name: 'Alice Liddell' });
    const form = await h.post('/oidc/userinfo', { access_token });
    expect(form.status).toBe(200);
  });

  it('no token → 401 with a bare Bearer challenge', async () => {
    const res = await h.get('/oidc/userinfo');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="demo"');
  });

  it('unknown, revoked or expired tokens → 401 invalid_token with WWW-Authenticate', async () => {
    const res = await h.get('/oidc/userinfo', { authorization: 'Bearer not-a-token' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="demo", error="invalid_token", error_description="[^"]+"$/);
    expect(await res.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('malformed requests → 400 invalid_request', async () => {
    const { access_token } = await tokens();
    expect((await h.get('/oidc/userinfo', { authorization: `Basic ${access_token}` })).status).toBe(400);
    expect((await h.post('/oidc/userinfo', { access_token }, { authorization: `Bearer ${access_token}` })).status).toBe(400);
    expect((await h.get(`/oidc/userinfo?access_token=${access_token}`)).status).toBe(400);
  });

  it('a token without openid → 403 insufficient_scope', async () => {
    const { access_token } = (await (await exchangeWebCode(h, await webCode(h, { scope: 'api.read' }))).json()) as { access_token: string };
    const res = await h.get('/oidc/userinfo', { authorization: `Bearer ${access_token}` });
    expect(res.status).toBe(403);
  });
});

describe('POST /oauth/revoke (RFC 7009)', () => {
  it('revokes an access token', async () => {
    const { access_token, refresh_token } = await tokens();
    const res = await h.post('/oauth/revoke', { token: access_token, token_type_hint: 'access_token', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
    expect(res.status).toBe(200);
    expect((await h.get('/oidc/userinfo', { authorization: `Bearer ${access_token}` })).status).toBe(401);
    // the refresh token is untouched
    expect((await h.post('/oauth/token', { grant_type: 'refresh_token', refresh_token, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' })).status).toBe(200);
  });

  it('revoking a refresh token revokes its grant, access tokens included', async () => {
    const { access_token, refresh_token } = await tokens();
    expect((await h.post('/oauth/revoke', { token: refresh_token, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' })).status).toBe(200);
    expect((await h.post('/oauth/token', { grant_type: 'refresh_token', refresh_token, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' })).status).toBe(400);
    expect((await h.get('/oidc/userinfo', { authorization: `Bearer ${access_token}` })).status).toBe(401);
  });

  it('answers 200 for unknown tokens and for tokens of other clients, without revoking the latter', async () => {
    expect((await h.post('/oauth/revoke', { token: 'unknown', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' })).status).toBe(200);
    const { access_token } = await tokens();
    expect((await h.post('/oauth/revoke', { token: access_token, client_id: 'spa' })).status).toBe(200);
    expect((await h.get('/oidc/userinfo', { authorization: `Bearer ${access_token}` })).status).toBe(200);
  });

  it('confidential clients must authenticate; public clients send client_id', async () => {
    const { access_token } = await tokens();
    const res = await h.post('/oauth/revoke', { token: access_token, client_id: 'web' });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'invalid_client' });
    expect((await h.post('/oauth/revoke', { token: access_token })).status).toBe(401);
    expect((await h.get('/oidc/userinfo', { authorization: `Bearer ${access_token}` })).status).toBe(200);
  });

  it('a missing token → 400 invalid_request', async () => {
    const res = await h.post('/oauth/revoke', { client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('/oidc/logout (RP-initiated)', () => {
  async function signedIn(): Promise<{ cookies: CookieJar; idToken: string }> {
    const cookies = new CookieJar();
    const { params } = await login(h, webParams({ response_type: 'code id_token' }), { cookies });
    return { cookies, idToken: params.get('id_token') ?? '' };
  }

  async function isSignedIn(cookies: CookieJar): Promise<boolean> {
    const url = authorizeUrl(webParams({ prompt: 'none' }));
    const res = await h.fetch(new Request(url, { headers: { cookie: cookies.header(url) ?? '' } }));
    return new URL(res.headers.get('location') ?? '').searchParams.has('code');
  }

  async function logout(cookies: CookieJar, params: Record<string, string>): Promise<Response> {
    const url = new URL(`${ISSUER}/oidc/logout`);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const res = await h.fetch(new Request(url, { headers: { cookie: cookies.header(url) ?? '' } }));
    cookies.store(url, res);
    return res;
  }

  it('ends the session and returns to the registered post_logout_redirect_uri with state', async () => {
    const { cookies, idToken } = await signedIn();
    expect(await isSignedIn(cookies)).toBe(true);
    const res = await logout(cookies, { id_token_hint: idToken, post_logout_redirect_uri: 'http://127.0.0.1:3000/', state: 'bye' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('http://127.0.0.1:3000/?state=bye');
    expect(res.headers.getSetCookie()).toEqual(['rs_session=; Path=/demo/; HttpOnly; SameSite=Lax; Max-Age=0', 'rs_opbs=; Path=/demo/; SameSite=Lax; Max-Age=0']);
    expect(await isSignedIn(cookies)).toBe(false);
  });

  it('accepts client_id instead of id_token_hint (after the user confirms), keeps a registered query, and works by POST', async () => {
    const { cookies } = await signedIn();
    const ask = await logout(cookies, { client_id: 'web', post_logout_redirect_uri: 'https://app.example/bye?x=1', state: 's' });
    expect(ask.status).toBe(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await ask.text())?.[1] ?? '';
    const url = new URL(`${ISSUER}/oidc/logout`);
    const res = await h.post(url.href, { client_id: 'web', post_logout_redirect_uri: 'https://app.example/bye?x=1', state: 's', csrf, confirm: 'yes' }, { cookie: cookies.header(url) ?? '' });
    expect(res.headers.get('location')).toBe('https://app.example/bye?x=1&state=s');
    const post = await h.post('/oidc/logout', { client_id: 'web', post_logout_redirect_uri: 'http://127.0.0.1:3000/' });
    expect(post.status).toBe(302);
  });

  it('accepts an expired id_token_hint', async () => {
    const { cookies, idToken } = await signedIn();
    h.clock.advance(7200);
    const res = await logout(cookies, { id_token_hint: idToken, post_logout_redirect_uri: 'http://127.0.0.1:3000/' });
    expect(res.status).toBe(302);
  });

  it('without post_logout_redirect_uri shows a signed-out page', async () => {
    const { cookies, idToken } = await signedIn();
    const res = await logout(cookies, { id_token_hint: idToken });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('You are signed out');
    expect(await isSignedIn(cookies)).toBe(false);
  });

  it.each([
    ['an unregistered post_logout_redirect_uri', { client_id: 'web', post_logout_redirect_uri: 'https://evil.example/' }],
    ['a near-miss post_logout_redirect_uri', { client_id: 'web', post_logout_redirect_uri: 'http://127.0.0.1:3000' }],
    ["another client's post_logout_redirect_uri", { client_id: 'web', post_logout_redirect_uri: 'http://127.0.0.1:5173/' }],
    ['a post_logout_redirect_uri without client', { post_logout_redirect_uri: 'http://127.0.0.1:3000/' }],
    ['an unknown client_id', { client_id: 'ghost' }],
    ['a forged id_token_hint', { id_token_hint: 'eyJhbGciOiJub25lIn0.eyJhdWQiOiJ3ZWIifQ.', post_logout_redirect_uri: 'http://127.0.0.1:3000/' }],
  ])('refuses %s with a 400 page and no redirect', async (_name, params) => {
    const { cookies } = await signedIn();
    const res = await logout(cookies, params);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(await isSignedIn(cookies)).toBe(true);
  });

  it('refuses a client_id that differs from the id_token_hint audience', async () => {
    const { cookies, idToken } = await signedIn();
    const res = await logout(cookies, { id_token_hint: idToken, client_id: 'spa', post_logout_redirect_uri: 'http://127.0.0.1:5173/' });
    expect(res.status).toBe(400);
  });

  it('refuses an id_token_hint signed by another server', async () => {
    const other = await setup(undefined, { generateKeys: true }); // a key of its own, not the shared development key
    const { params } = await login(other, webParams({ response_type: 'code id_token' }));
    const { cookies } = await signedIn();
    const res = await logout(cookies, { id_token_hint: params.get('id_token') ?? '' });
    expect(res.status).toBe(400);
  });

  it('completeLogin after logout asks for the password again', async () => {
    const { cookies, idToken } = await signedIn();
    await logout(cookies, { id_token_hint: idToken });
    const url = authorizeUrl(webParams());
    const res = await h.fetch(new Request(url, { headers: { cookie: cookies.header(url) ?? '' } }));
    expect(new URL(res.headers.get('location') ?? '').pathname).toBe('/demo/oidc/login');
    const again = await completeLogin(url, { fetch: h.fetch, cookies });
    expect(again.type).toBe('redirect');
  });
});
