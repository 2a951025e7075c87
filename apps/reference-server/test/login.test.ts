import { beforeEach, describe, expect, it } from 'vitest';
import {
  authorizeUrl, browserOn, completeLogin, CookieJar, demoClient, hidden, ISSUER, login, setup, verifyJwt, webParams, WEB_REDIRECT, type Harness,
} from './helpers';

let h: Harness;
beforeEach(async () => {
  h = await setup((config) => {
    config.tenants[0]?.clients?.push({
      client_id: 'trusted',
      client_secret: 'trusted-secret',
      redirect_uris: ['https://trusted.example/cb'],
      scopes: ['openid', 'profile'],
      skip_consent: true,
    });
    demoClient(config, 'web').scopes = ['openid', 'profile', 'email', 'offline_access', 'api.read'];
  });
});

const browser = (jar = new CookieJar()) => browserOn(h, jar);

/** Authorize in a browser and return the login page's text and fields. */
async function openLogin(b: ReturnType<typeof browser>, params = webParams()) {
  const res = await b.go(authorizeUrl(params));
  expect(res.status).toBe(302);
  const page = await b.go(res.headers.get('location') ?? '');
  const text = await page.text();
  return { res: page, text, ...hidden(text) };
}

function redirectParams(res: Response): URLSearchParams {
  expect(res.status).toBe(302);
  const url = new URL(res.headers.get('location') ?? '');
  expect(`${url.origin}${url.pathname}`).not.toContain('/demo/oidc/');
  return url.hash ? new URLSearchParams(url.hash.slice(1)) : url.searchParams;
}

describe('login page', () => {
  it('is plain accessible HTML with labelled fields, hidden CSRF/interaction fields and a Cancel button', async () => {
    const { res, text } = await openLogin(browser());
    expect(res.status).toBe(200);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(text).toContain('<html lang="en">');
    expect(text).toContain('<label for="username">');
    expect(text).toContain('<input id="username" name="username"');
    expect(text).toContain('<label for="password">');
    expect(text).toContain('<input id="password" name="password" type="password"');
    expect(text).toMatch(/<form method="post" action="http:\/\/localhost\/demo\/oidc\/login">/);
    expect(text).toContain('name="action" value="cancel"');
    expect(text).toContain('<strong>Server-side example</strong>');
    // inline style only under the CSP nonce; no external resources
    const nonce = /style-src 'nonce-([^']+)'/.exec(res.headers.get('content-security-policy') ?? '')?.[1];
    expect(text).toContain(`<style nonce="${nonce}">`);
    expect(text).not.toMatch(/(src|href)="http/);
  });

  it('prefills login_hint, escaped', async () => {
    const { text } = await openLogin(browser(), webParams({ login_hint: '"><script>x</script>' }));
    expect(text).toContain('value="&#34;&#62;&#60;script&#62;x&#60;/script&#62;"');
    expect(text).not.toContain('<script>x');
  });
});

describe('interactive login', () => {
  it('signs in, asks consent showing client and scopes, and returns a code; session cookie is HttpOnly SameSite=Lax', async () => {
    const b = browser();
    const { interaction, csrf } = await openLogin(b);
    const afterLogin = await b.go('/oidc/login', { form: { interaction, csrf, username: 'alice', password: 'wonderland', action: 'login' } });
    expect(afterLogin.status).toBe(302);
    const [session, binding] = afterLogin.headers.getSetCookie();
    expect(session).toMatch(/^rs_session=[A-Za-z0-9_-]{43}; Path=\/demo\/; HttpOnly; SameSite=Lax$/);
    // The browser binding is rotated at sign-in.
    expect(binding).toMatch(/^rs_browser=[A-Za-z0-9_-]{43}; Path=\/demo\/; HttpOnly; SameSite=Lax$/);
    const consent = await b.go(afterLogin.headers.get('location') ?? '');
    const text = await consent.text();
    expect(text).toContain('<strong>Server-side example</strong> is asking to:');
    for (const scope of ['openid', 'profile', 'email', 'offline_access']) expect(text).toContain(`(${scope})`);
    expect(text).toContain('name="decision" value="allow"');
    expect(text).toContain('name="decision" value="deny"');
    const done = await b.go('/oidc/consent', { form: { ...hidden(text), decision: 'allow' } });
    const params = redirectParams(done);
    expect(params.get('code')).toBeTruthy();
    expect(params.get('state')).toBe('st-1');
    expect(params.get('iss')).toBe(ISSUER);
  });

  it('SSO: the second authorize with the same cookies answers at once, with the same sid and auth_time', async () => {
    const cookies = new CookieJar();
    const first = await login(h, webParams({ response_type: 'code id_token' }), { cookies });
    const firstClaims = await verifyJwt(h, first.params.get('id_token') ?? '');
    h.clock.advance(120);
    const url = authorizeUrl(webParams({ response_type: 'code id_token', state: 'second' }));
    const res = await h.fetch(new Request(url, { headers: { cookie: cookies.header(url) ?? '' } }));
    const params = redirectParams(res);
    expect(params.get('state')).toBe('second');
    const claims = await verifyJwt(h, params.get('id_token') ?? '');
    expect(claims.sid).toBe(firstClaims.sid);
    expect(claims.auth_time).toBe(firstClaims.auth_time);
    expect(claims.iat).toBe((firstClaims.iat ?? 0) + 120);
  });

  it('remembers consent per user and client, and asks again for new scopes', async () => {
    const b = browser();
    await completeLogin(authorizeUrl(webParams({ scope: 'openid profile' })), { fetch: h.fetch, cookies: b.jar });
    const same = await b.go(authorizeUrl(webParams({ scope: 'profile openid' })));
    expect(redirectParams(same).get('code')).toBeTruthy();
    const more = await b.go(authorizeUrl(webParams({ scope: 'openid profile email' })));
    expect(new URL(more.headers.get('location') ?? '').pathname).toBe('/demo/oidc/consent');
    const consent = await (await b.go(more.headers.get('location') ?? '')).text();
    expect(consent).toContain('(email)');
  });

  it('prompt=consent asks again even when consent is remembered', async () => {
    const b = browser();
    await completeLogin(authorizeUrl(webParams()), { fetch: h.fetch, cookies: b.jar });
    const res = await b.go(authorizeUrl(webParams({ prompt: 'consent' })));
    expect(new URL(res.headers.get('location') ?? '').pathname).toBe('/demo/oidc/consent');
  });

  it('skip_consent clients never show the consent page', async () => {
    const b = browser();
    const { interaction, csrf } = await openLogin(b, { response_type: 'code', client_id: 'trusted', redirect_uri: 'https://trusted.example/cb', scope: 'openid profile', state: 's' });
    const res = await b.go('/oidc/login', { form: { interaction, csrf, username: 'alice', password: 'wonderland' } });
    expect(redirectParams(res).get('code')).toBeTruthy();
    expect(res.headers.get('set-cookie')).toMatch(/^rs_session=/);
    const again = await b.go(authorizeUrl({ response_type: 'code', client_id: 'trusted', redirect_uri: 'https://trusted.example/cb', scope: 'openid profile', state: 's', prompt: 'consent' }));
    expect(redirectParams(again).get('code')).toBeTruthy();
  });

  it('wrong credentials re-render the form with a message; the right password then succeeds', async () => {
    const b = browser();
    const { interaction, csrf } = await openLogin(b);
    const wrong = await b.go('/oidc/login', { form: { interaction, csrf, username: 'alice', password: 'nope' } });
    expect(wrong.status).toBe(200);
    const text = await wrong.text();
    expect(text).toContain('role="alert"');
    expect(text).toContain('Wrong username or password. 2 attempts left.');
    expect(text).toContain('value="alice"');
    const unknown = await (await b.go('/oidc/login', { form: { interaction, csrf, username: '<b>bob</b>', password: 'x' } })).text();
    expect(unknown).toContain('1 attempt left.');
    expect(unknown).not.toContain('<b>bob</b>');
    const ok = await b.go('/oidc/login', { form: { interaction, csrf, username: 'alice', password: 'wonderland' } });
    expect(new URL(ok.headers.get('location') ?? '').pathname).toBe('/demo/oidc/consent');
  });

  it('completeLogin with two wrong passwords still signs in', async () => {
    const { params } = await login(h, webParams(), { failPasswordTimes: 2 });
    expect(params.get('code')).toBeTruthy();
  });

  it('the third wrong password ends with an access_denied error redirect', async () => {
    const { params } = await login(h, webParams(), { failPasswordTimes: 3 });
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('error_description')).toMatch(/^Too many failed sign-in attempts/);
    expect(params.get('state')).toBe('st-1');
    expect(params.get('iss')).toBe(ISSUER);
    expect(params.has('code')).toBe(false);
  });

  it('a missing password re-renders the form without counting a failure', async () => {
    const b = browser();
    const { interaction, csrf } = await openLogin(b);
    const res = await b.go('/oidc/login', { form: { interaction, csrf, username: 'alice' } });
    expect(await res.text()).toContain('Enter your username and password.');
  });

  it('Cancel ends with an access_denied error redirect', async () => {
    const b = browser();
    const { interaction, csrf } = await openLogin(b, webParams({ response_type: 'code id_token' }));
    const res = await b.go('/oidc/login', { form: { interaction, csrf, action: 'cancel' } });
    const params = redirectParams(res);
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('error_description')).toMatch(/cancelled/);
    expect(params.get('state')).toBe('st-1');
    expect(params.get('iss')).toBe(ISSUER);
  });

  it('Deny ends with access_denied', async () => {
    const { params } = await login(h, webParams(), { consent: 'deny' });
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('state')).toBe('st-1');
    expect(params.get('iss')).toBe(ISSUER);
  });

  it('deny in form_post mode posts the error', async () => {
    const result = await completeLogin(authorizeUrl(webParams({ response_mode: 'form_post' })), { fetch: h.fetch, consent: 'deny' });
    expect(result.type === 'form_post' && result.body.get('error')).toBe('access_denied');
  });
});

describe('login protections', () => {
  it('refuses a post without the CSRF token or with a wrong one', async () => {
    const b = browser();
    const { interaction, csrf } = await openLogin(b);
    const none = await b.go('/oidc/login', { form: { interaction, username: 'alice', password: 'wonderland' } });
    expect(none.status).toBe(403);
    const wrong = await b.go('/oidc/login', { form: { interaction, csrf: `${csrf}x`, username: 'alice', password: 'wonderland' } });
    expect(wrong.status).toBe(403);
    expect(wrong.headers.get('set-cookie')).toBeNull();
  });

  it('refuses a post from another browser (login CSRF), even with the right CSRF token', async () => {
    const { interaction, csrf } = await openLogin(browser());
    const other = browser();
    const res = await other.go('/oidc/login', { form: { interaction, csrf, username: 'alice', password: 'wonderland' } });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('another browser');
    const page = await other.go(`/oidc/login?interaction=${interaction}`);
    expect(page.status).toBe(403);
  });

  it('an interaction completes once; replaying the final post gets a 400 page', async () => {
    const b = browser();
    const { interaction, csrf } = await openLogin(b);
    await b.go('/oidc/login', { form: { interaction, csrf, username: 'alice', password: 'wonderland' } });
    const first = await b.go('/oidc/consent', { form: { interaction, csrf, decision: 'allow' } });
    expect(redirectParams(first).get('code')).toBeTruthy();
    const replay = await b.go('/oidc/consent', { form: { interaction, csrf, decision: 'allow' } });
    expect(replay.status).toBe(400);
    expect(replay.headers.get('location')).toBeNull();
  });

  it('unknown or expired interactions get a 400 page', async () => {
    const b = browser();
    expect((await b.go('/oidc/login?interaction=doesnotexist')).status).toBe(400);
    expect((await b.go('/oidc/login')).status).toBe(400);
    const { interaction, csrf } = await openLogin(b);
    h.clock.advance(601);
    const res = await b.go('/oidc/login', { form: { interaction, csrf, username: 'alice', password: 'wonderland' } });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('expired');
  });

  it('consent cannot be posted before signing in', async () => {
    const b = browser();
    const { interaction, csrf } = await openLogin(b);
    const res = await b.go('/oidc/consent', { form: { interaction, csrf, decision: 'allow' } });
    expect(res.status).toBe(400);
    const page = await b.go(`/oidc/consent?interaction=${interaction}`);
    expect(await page.text()).toContain('name="password"');
  });

  it('an invalid decision value is refused', async () => {
    const b = browser();
    const { interaction, csrf } = await openLogin(b);
    await b.go('/oidc/login', { form: { interaction, csrf, username: 'alice', password: 'wonderland' } });
    expect((await b.go('/oidc/consent', { form: { interaction, csrf, decision: 'maybe' } })).status).toBe(400);
  });

  it('a new login replaces the session cookie (no fixation)', async () => {
    const b = browser();
    await completeLogin(authorizeUrl(webParams()), { fetch: h.fetch, cookies: b.jar });
    const before = b.jar.header(new URL(`${ISSUER}/oidc/authorize`));
    const { interaction, csrf } = await openLogin(b, webParams({ prompt: 'login' }));
    await b.go('/oidc/login', { form: { interaction, csrf, username: 'alice', password: 'wonderland' } });
    const after = b.jar.header(new URL(`${ISSUER}/oidc/authorize`));
    const session = (header?: string) => /rs_session=([^;]+)/.exec(header ?? '')?.[1];
    expect(session(after)).toBeTruthy();
    expect(session(after)).not.toBe(session(before));
    // the old session value no longer signs anybody in
    const url = authorizeUrl(webParams({ prompt: 'none' }));
    const old = await h.fetch(new Request(url, { headers: { cookie: `rs_session=${session(before)}` } }));
    expect(redirectParams(old).get('error')).toBe('login_required');
  });
});

describe('prompt and max_age', () => {
  it('prompt=none answers silently with a session and remembered consent, else login_required / consent_required', async () => {
    const b = browser();
    await completeLogin(authorizeUrl(webParams({ scope: 'openid' })), { fetch: h.fetch, cookies: b.jar });
    expect(redirectParams(await b.go(authorizeUrl(webParams({ scope: 'openid', prompt: 'none' })))).get('code')).toBeTruthy();
    expect(redirectParams(await b.go(authorizeUrl(webParams({ scope: 'openid email', prompt: 'none' })))).get('error')).toBe('consent_required');
    expect(redirectParams(await browser().go(authorizeUrl(webParams({ prompt: 'none' })))).get('error')).toBe('login_required');
  });

  it('prompt=login shows the login page despite a session', async () => {
    const b = browser();
    await completeLogin(authorizeUrl(webParams()), { fetch: h.fetch, cookies: b.jar });
    const res = await b.go(authorizeUrl(webParams({ prompt: 'login' })));
    expect(new URL(res.headers.get('location') ?? '').pathname).toBe('/demo/oidc/login');
  });

  it('max_age: SSO within it, a new login after it', async () => {
    const b = browser();
    await completeLogin(authorizeUrl(webParams()), { fetch: h.fetch, cookies: b.jar });
    h.clock.advance(100);
    expect(redirectParams(await b.go(authorizeUrl(webParams({ max_age: '300' })))).get('code')).toBeTruthy();
    const res = await b.go(authorizeUrl(webParams({ max_age: '60' })));
    expect(new URL(res.headers.get('location') ?? '').pathname).toBe('/demo/oidc/login');
  });

  it('the session ends after 24 hours', async () => {
    const b = browser();
    await completeLogin(authorizeUrl(webParams()), { fetch: h.fetch, cookies: b.jar });
    h.clock.advance(24 * 3600 + 1);
    const res = await b.go(authorizeUrl(webParams()));
    expect(new URL(res.headers.get('location') ?? '').pathname).toBe('/demo/oidc/login');
  });
});

describe('completeLogin', () => {
  it('reports a 400 page as an error with its message', async () => {
    await expect(completeLogin(authorizeUrl(webParams({ redirect_uri: 'https://evil.example/' })), { fetch: h.fetch })).rejects.toThrow(
      /400 .*redirect_uri is not registered/,
    );
  });

  it('follows the flow to the client for a redirect URI on the same host', async () => {
    const result = await completeLogin(authorizeUrl(webParams()), { fetch: h.fetch });
    expect(result.type === 'redirect' && result.location.startsWith(`${WEB_REDIRECT}?code=`)).toBe(true);
  });
});
