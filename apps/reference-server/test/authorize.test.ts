import { beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, demoClient, exchangeWebCode, ISSUER, leftHalfHash, login, pkce, setup, spaParams, SPA_REDIRECT, verifyJwt, webParams, WEB_REDIRECT, completeLogin, type Harness } from './helpers';

let h: Harness;
beforeAll(async () => {
  h = await setup((config) => {
    // A client for the plain `token` response type, and one with a redirect URI that has a query.
    demoClient(config, 'spa').response_types = ['code', 'id_token token', 'token'];
    demoClient(config, 'web').redirect_uris = [WEB_REDIRECT, 'http://localhost:3000/callback', 'https://app.example/cb?tenant=acme'];
  });
});

async function authorize(params: Record<string, string | undefined>): Promise<Response> {
  return h.fetch(new Request(authorizeUrl(params)));
}

function expectNoRedirectPage(res: Response): void {
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
}

function errorRedirect(res: Response): { url: URL; params: URLSearchParams } {
  expect(res.status).toBe(302);
  const url = new URL(res.headers.get('location') ?? '');
  return { url, params: url.hash ? new URLSearchParams(url.hash.slice(1)) : url.searchParams };
}

describe('authorize: client and redirect_uri problems get a 400 page, never a redirect', () => {
  it.each<[string, Record<string, string | undefined>]>([
    ['missing client_id', webParams({ client_id: undefined })],
    ['unknown client_id', webParams({ client_id: 'nobody' })],
    ['missing redirect_uri', webParams({ redirect_uri: undefined })],
    ['unregistered redirect_uri', webParams({ redirect_uri: 'https://evil.example/callback' })],
    ['redirect_uri with a trailing slash', webParams({ redirect_uri: `${WEB_REDIRECT}/` })],
    ['redirect_uri differing in case', webParams({ redirect_uri: WEB_REDIRECT.replace('callback', 'Callback') })],
    ['redirect_uri with an extra query', webParams({ redirect_uri: `${WEB_REDIRECT}?x=1` })],
    ["another client's redirect_uri", webParams({ redirect_uri: SPA_REDIRECT })],
  ])('%s', async (_name, params) => {
    expectNoRedirectPage(await authorize(params));
  });

  it('repeated client_id or redirect_uri', async () => {
    const base = authorizeUrl(webParams());
    expectNoRedirectPage(await h.fetch(new Request(`${base}&client_id=web`)));
    expectNoRedirectPage(await h.fetch(new Request(`${base}&redirect_uri=${encodeURIComponent(WEB_REDIRECT)}`)));
  });

  it('escapes nothing it did not write: the page never echoes the client_id', async () => {
    const res = await authorize(webParams({ client_id: '<script>alert(1)</script>' }));
    expectNoRedirectPage(res);
    expect(await res.text()).not.toContain('<script>alert(1)</script>');
  });
});

describe('authorize: other problems redirect with error, error_description, state and iss', () => {
  it.each<[string, string, Record<string, string | undefined>]>([
    ['missing response_type', 'invalid_request', webParams({ response_type: undefined })],
    ['unknown response_type', 'unsupported_response_type', webParams({ response_type: 'code refresh_token' })],
    ['unknown response_mode', 'invalid_request', webParams({ response_mode: 'web_message' })],
    ['missing scope', 'invalid_request', webParams({ scope: undefined })],
    ['scope not allowed for the client', 'invalid_scope', webParams({ scope: 'openid api.write' })],
    ['code_challenge_method plain', 'invalid_request', webParams({ code_challenge: pkce().challenge, code_challenge_method: 'plain' })],
    ['code_challenge without method', 'invalid_request', webParams({ code_challenge: pkce().challenge })],
    ['code_challenge_method without challenge', 'invalid_request', webParams({ code_challenge_method: 'S256' })],
    ['code_challenge too short', 'invalid_request', webParams({ code_challenge: 'abc', code_challenge_method: 'S256' })],
    ['code_challenge too long', 'invalid_request', webParams({ code_challenge: 'a'.repeat(129), code_challenge_method: 'S256' })],
    ['public client without PKCE', 'invalid_request', spaParams(pkce().challenge, { code_challenge: undefined, code_challenge_method: undefined })],
    ['unknown prompt', 'invalid_request', webParams({ prompt: 'sometimes' })],
    ['prompt=none with login', 'invalid_request', webParams({ prompt: 'none login' })],
    ['bad max_age', 'invalid_request', webParams({ max_age: '-5' })],
    ['prompt=none without a session', 'login_required', webParams({ prompt: 'none' })],
  ])('%s → %s in the query', async (_name, error, params) => {
    const res = await authorize(params);
    const { url, params: p } = errorRedirect(res);
    expect(`${url.origin}${url.pathname}`).toBe(params.redirect_uri);
    expect(url.hash).toBe('');
    expect(p.get('error')).toBe(error);
    expect(p.get('error_description')).toBeTruthy();
    expect(p.get('state')).toBe(params.state);
    expect(p.get('iss')).toBe(ISSUER);
  });

  it.each<[string, string, Record<string, string | undefined>]>([
    ['nonce missing for code id_token', 'invalid_request', webParams({ response_type: 'code id_token', nonce: undefined })],
    ['nonce missing for id_token token', 'invalid_request', spaParams('', { response_type: 'id_token token', code_challenge: undefined, code_challenge_method: undefined, state: 's' })],
    ['openid missing for an ID token', 'invalid_scope', webParams({ response_type: 'code id_token', scope: 'profile' })],
    ['response_mode=query for tokens (error goes to the fragment)', 'invalid_request', webParams({ response_type: 'code id_token', response_mode: 'query' })],
    ['response type not registered for the client', 'unauthorized_client', spaParams(pkce().challenge, { response_type: 'code id_token', nonce: 'n' })],
    ['PKCE with an implicit response type', 'invalid_request', spaParams(pkce().challenge, { response_type: 'id_token token', nonce: 'n' })],
  ])('%s → %s in the fragment', async (_name, error, params) => {
    const { url, params: p } = errorRedirect(await authorize(params));
    expect(url.search).toBe('');
    expect(p.get('error')).toBe(error);
    expect(p.get('state')).toBe(params.state);
    expect(p.get('iss')).toBe(ISSUER);
  });

  it('response_type code token: tokens never in the query', async () => {
    const { url, params } = errorRedirect(await authorize(webParams({ response_type: 'token code', response_mode: 'query' })));
    expect(url.search).toBe('');
    expect(params.get('error')).toBe('invalid_request');
  });

  it('a client not registered for code token gets unauthorized_client', async () => {
    const { params } = errorRedirect(await authorize(spaParams('c'.repeat(43), { response_type: 'code token', nonce: 'n' })));
    expect(params.get('error')).toBe('unauthorized_client');
  });

  it('missing state: error without state', async () => {
    const { params } = errorRedirect(await authorize(webParams({ state: undefined })));
    expect(params.get('error')).toBe('invalid_request');
    expect(params.get('error_description')).toMatch(/state/);
    expect(params.has('state')).toBe(false);
  });

  it('empty parameters count as missing (RFC 6749 3.1)', async () => {
    const { params } = errorRedirect(await authorize(webParams({ state: '' })));
    expect(params.get('error')).toBe('invalid_request');
    expect(params.has('state')).toBe(false);
  });

  it('repeated or oversized parameters → invalid_request naming the parameter', async () => {
    const base = authorizeUrl(webParams());
    const repeated = errorRedirect(await h.fetch(new Request(`${base}&scope=openid`))).params;
    expect(repeated.get('error')).toBe('invalid_request');
    expect(repeated.get('error_description')).toMatch(/scope is repeated/);
    const big = errorRedirect(await authorize(webParams({ nonce: 'n'.repeat(4097) }))).params;
    expect(big.get('error')).toBe('invalid_request');
    expect(big.get('error_description')).toMatch(/nonce is longer than 4096/);
    expect(big.get('state')).toBe('st-1');
  });

  it('form_post errors arrive as an auto-submitted form', async () => {
    const res = await authorize(webParams({ response_mode: 'form_post', scope: 'openid nope' }));
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain(`action="${WEB_REDIRECT}"`);
    expect(page).toContain('name="error" value="invalid_scope"');
    expect(page).toContain('name="state" value="st-1"');
    expect(page).toContain(`name="iss" value="${ISSUER}"`);
  });
});

describe('authorize: a valid request goes to the login page', () => {
  it('302 to the server login page with a browser-binding cookie', async () => {
    const res = await authorize(webParams());
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location') ?? '');
    expect(location.href.startsWith(`${ISSUER}/oidc/login?interaction=`)).toBe(true);
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^rs_browser=[A-Za-z0-9_-]{43}; Path=\/demo\/; HttpOnly; SameSite=Lax/);
    expect(cookie).not.toContain('Secure');
  });

  it('sets Secure on cookies when served over https', async () => {
    const res = await h.fetch(new Request(authorizeUrl(webParams(), 'https://localhost/demo')));
    expect(res.headers.get('set-cookie')).toContain('Secure');
  });

  it('accepts response type words in any order', async () => {
    const res = await authorize(webParams({ response_type: 'id_token code' }));
    expect(new URL(res.headers.get('location') ?? '').pathname).toBe('/demo/oidc/login');
  });
});

describe('authorize: responses of every response type and mode', () => {
  it('code → query with code, state, iss and nothing else', async () => {
    const { location, query } = await login(h, webParams());
    expect(location.hash).toBe('');
    expect([...query.keys()].sort()).toEqual(['code', 'iss', 'state']);
    expect(query.get('state')).toBe('st-1');
    expect(query.get('iss')).toBe(ISSUER);
  });

  it('code keeps the registered query of the redirect URI', async () => {
    const { location } = await login(h, webParams({ redirect_uri: 'https://app.example/cb?tenant=acme' }));
    expect(location.searchParams.get('tenant')).toBe('acme');
    expect(location.searchParams.get('code')).toBeTruthy();
  });

  it('code with response_mode=fragment', async () => {
    const { location, fragment } = await login(h, webParams({ response_mode: 'fragment' }));
    expect(location.search).toBe('');
    expect(fragment.get('code')).toBeTruthy();
    expect(fragment.get('iss')).toBe(ISSUER);
  });

  it('code with response_mode=form_post', async () => {
    const result = await completeLogin(authorizeUrl(webParams({ response_mode: 'form_post' })), { fetch: h.fetch });
    expect(result.type).toBe('form_post');
    if (result.type !== 'form_post') return;
    expect(result.action).toBe(WEB_REDIRECT);
    expect([...result.body.keys()].sort()).toEqual(['code', 'iss', 'state']);
  });

  it('code id_token → fragment only, ID token with c_hash and nonce', async () => {
    const { location, fragment } = await login(h, webParams({ response_type: 'code id_token', nonce: 'nonce-h1' }));
    expect(location.search).toBe('');
    const code = fragment.get('code') ?? '';
    const claims = await verifyJwt(h, fragment.get('id_token') ?? '', { audience: 'web' });
    expect(claims).toMatchObject({ iss: ISSUER, aud: 'web', sub: 'alice', nonce: 'nonce-h1', c_hash: leftHalfHash(code) });
    expect(claims.at_hash).toBeUndefined();
    expect(fragment.has('access_token')).toBe(false);
    expect(fragment.get('state')).toBe('st-1');
    expect(fragment.get('iss')).toBe(ISSUER);
  });

  it('code token id_token → fragment with code, Bearer access token, expires_in, ID token with c_hash and at_hash', async () => {
    const { location, fragment } = await login(h, webParams({ response_type: 'code token id_token' }));
    expect(location.search).toBe('');
    const code = fragment.get('code') ?? '';
    const accessToken = fragment.get('access_token') ?? '';
    expect(fragment.get('token_type')).toBe('Bearer');
    expect(fragment.get('expires_in')).toBe('3600');
    const claims = await verifyJwt(h, fragment.get('id_token') ?? '', { audience: 'web' });
    expect(claims.c_hash).toBe(leftHalfHash(code));
    expect(claims.at_hash).toBe(leftHalfHash(accessToken));
    expect(fragment.has('refresh_token')).toBe(false);
  });

  it('code token → fragment with code and Bearer access token, no ID token; the code redeems as for hybrid', async () => {
    const { location, fragment } = await login(h, webParams({ response_type: 'code token' }));
    expect(location.search).toBe('');
    expect([...fragment.keys()].sort()).toEqual(['access_token', 'code', 'expires_in', 'iss', 'state', 'token_type']);
    expect(fragment.get('token_type')).toBe('Bearer');
    const exchanged = await exchangeWebCode(h, fragment.get('code') ?? '');
    expect(exchanged.status).toBe(200);
    const body = (await exchanged.json()) as { access_token: string; id_token: string };
    const claims = await verifyJwt(h, body.id_token, { audience: 'web' });
    expect(claims.at_hash).toBe(leftHalfHash(body.access_token));
    expect(claims.c_hash).toBeUndefined();
  });

  it('id_token → the fragment by default (OIDC Core 3.2.2.5), the ID token alone, no access token', async () => {
    const { location, fragment } = await login(h, webParams({ response_type: 'id_token', nonce: 'n-frag' }));
    expect(location.search).toBe('');
    expect([...fragment.keys()].sort()).toEqual(['id_token', 'iss', 'state']);
    const claims = await verifyJwt(h, fragment.get('id_token') ?? '', { audience: 'web' });
    expect(claims.nonce).toBe('n-frag');
    expect(claims.at_hash).toBeUndefined();
  });

  it('id_token with response_mode=query is refused: tokens never travel in the query', async () => {
    const { url, params } = errorRedirect(await authorize(webParams({ response_type: 'id_token', response_mode: 'query' })));
    expect(url.search).toBe('');
    expect(params.get('error')).toBe('invalid_request');
  });

  it('hybrid with form_post puts everything in the form', async () => {
    const result = await completeLogin(authorizeUrl(webParams({ response_type: 'code id_token', response_mode: 'form_post' })), { fetch: h.fetch });
    expect(result.type).toBe('form_post');
    if (result.type === 'form_post') expect([...result.body.keys()].sort()).toEqual(['code', 'id_token', 'iss', 'state']);
  });

  it('token → fragment with access token, no ID token, never a refresh token', async () => {
    const { location, fragment } = await login(h, { response_type: 'token', client_id: 'spa', redirect_uri: SPA_REDIRECT, scope: 'api.read offline_access', state: 's-t' });
    expect(location.search).toBe('');
    expect(fragment.get('access_token')).toBeTruthy();
    expect(fragment.get('token_type')).toBe('Bearer');
    expect(fragment.has('id_token')).toBe(false);
    expect(fragment.has('refresh_token')).toBe(false);
    expect(fragment.get('state')).toBe('s-t');
  });

  it('id_token token → fragment with access token and ID token carrying at_hash and nonce', async () => {
    const { location, fragment } = await login(h, { response_type: 'id_token token', client_id: 'spa', redirect_uri: SPA_REDIRECT, scope: 'openid email', state: 's-i', nonce: 'n-i' });
    expect(location.search).toBe('');
    const accessToken = fragment.get('access_token') ?? '';
    const claims = await verifyJwt(h, fragment.get('id_token') ?? '', { audience: 'spa' });
    expect(claims).toMatchObject({ nonce: 'n-i', at_hash: leftHalfHash(accessToken), email: 'alice@example.com' });
    expect(claims.c_hash).toBeUndefined();
    expect(fragment.has('code')).toBe(false);
  });

  it('id_token with form_post → auto-submitting form with the ID token only', async () => {
    const result = await completeLogin(authorizeUrl(webParams({ response_type: 'id_token', response_mode: 'form_post', nonce: 'n-f' })), { fetch: h.fetch });
    expect(result.type).toBe('form_post');
    if (result.type !== 'form_post') return;
    expect([...result.body.keys()].sort()).toEqual(['id_token', 'iss', 'state']);
    const claims = await verifyJwt(h, result.body.get('id_token') ?? '', { audience: 'web' });
    expect(claims.nonce).toBe('n-f');
  });

  it('the form_post page auto-submits under a CSP nonce and cannot be framed', async () => {
    const cookies = new (await import('./helpers')).CookieJar();
    await login(h, webParams(), { cookies }); // signed in and consented: the next authorize answers at once
    const url = authorizeUrl(webParams({ response_mode: 'form_post' }));
    const res = await h.fetch(new Request(url, { headers: { cookie: cookies.header(url) ?? '' } }));
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const page = await res.text();
    expect(page).toContain(`<script nonce="${nonce}">document.forms[0].submit();</script>`);
    expect(page).toContain(`<form method="post" action="${WEB_REDIRECT}">`);
  });

  it('ID tokens carry iss, aud, sub, iat, exp, auth_time, sid and scope claims, signed with a published kid', async () => {
    const { fragment } = await login(h, webParams({ response_type: 'code id_token', scope: 'openid profile email' }));
    const idToken = fragment.get('id_token') ?? '';
    const header = JSON.parse(Buffer.from(idToken.split('.')[0] ?? '', 'base64url').toString()) as Record<string, unknown>;
    expect(header.alg).toBe('RS256');
    expect(typeof header.kid).toBe('string');
    const claims = await verifyJwt(h, idToken, { audience: 'web' });
    const now = Math.floor(h.clock.ms / 1000);
    expect(claims).toMatchObject({ iss: ISSUER, aud: 'web', sub: 'alice', iat: now, exp: now + 3600, auth_time: now, name: 'Alice Liddell', email: 'alice@example.com', email_verified: true });
    expect(typeof claims.sid).toBe('string');
  });
});
