// The pages people meet on the server: the tenant start page, the branded login page with its
// one-click demo users, login_hint sign-in on demo_login tenants, the page for an ended sign-in
// (browser Back), forgetting consent, and the icon. All through the real handler.
import { beforeEach, describe, expect, it } from 'vitest';
import {
  authorizeUrl, browserOn, CookieJar, demoClient, exchangeWebCode, hidden, ISSUER, ORIGIN, setup, verifyJwt, webParams, WEB_REDIRECT, type Harness,
} from './helpers';

let h: Harness;
beforeEach(async () => {
  h = await setup((config) => {
    // A tenant that is not for development, and a development tenant without demo_login.
    config.tenants.push({
      id: 'prod',
      name: 'Acme <Production>',
      clients: [{ client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4', redirect_uris: ['https://app.example/cb'], scopes: ['openid'] }],
      users: [{ username: 'bob', password: 'prod-password' }],
    });
    config.tenants.push({
      id: 'dev',
      development: true,
      clients: [{ client_id: 'plain', client_secret: 's', redirect_uris: ['http://dev.example/cb'], scopes: ['openid'], skip_consent: true }],
      users: [{ username: 'bob', password: 'dev-password' }],
    });
    demoClient(config, 'web').client_name = 'Server-side <example>';
  });
});

const browser = (jar = new CookieJar()) => browserOn(h, jar);
const at = (tenant: string, path: string) => `${ORIGIN}/${tenant}${path}`;

/** Opens the login page of an authorize request in browser `b`. */
async function openLogin(b: ReturnType<typeof browser>, url: URL) {
  const res = await b.go(url);
  expect(res.status).toBe(302);
  const page = await b.go(res.headers.get('location') ?? '');
  return { page, text: await page.text() };
}

function code(res: Response): string {
  expect(res.status).toBe(302);
  const value = new URL(res.headers.get('location') ?? '').searchParams.get('code');
  if (!value) throw new Error(`no code in ${res.headers.get('location')}`);
  return value;
}

async function idTokenSub(codeValue: string): Promise<unknown> {
  const tokens = (await (await exchangeWebCode(h, codeValue)).json()) as { id_token: string };
  return (await verifyJwt(h, tokens.id_token)).sub;
}

describe('the tenant start page', () => {
  it('GET {base} redirects to {base}/, the path the tenant\'s cookies are scoped to', async () => {
    const res = await h.get('?consent=forgotten');
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe(`${ISSUER}/?consent=forgotten`);
  });

  it('GET {base}/ answers a page: name, discovery URL, users with passwords, clients with names and redirect URIs', async () => {
    const res = await h.get('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const text = await res.text();
    expect(text).toContain('<title>oidc-rp demo · oidc-rp reference server</title>');
    expect(text).toContain(`href="${ISSUER}/.well-known/openid-configuration"`);
    expect(text).toContain('<td><code>alice</code></td><td>Alice Liddell</td><td><code>wonderland</code></td>');
    expect(text).toContain('<td><code>bob</code></td><td>Bob Builder</td><td><code>builder</code></td>');
    expect(text).toContain('<td><code>spa</code></td><td>React example (SPA)</td><td>public</td>');
    expect(text).toContain('<code>http://127.0.0.1:5173/callback</code>');
    expect(text).toContain('Server-side &#60;example&#62;'); // the name is escaped, never markup
    expect(text).not.toContain('web-secret-of-the-demo-Zq7Xk2Lm9Vb4');
    expect(text).not.toContain('Signed in as');
  });

  it('a tenant that is not for development shows its name and discovery URL only', async () => {
    const res = await h.fetch(new Request(at('prod', '/')));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('<h1>Acme &#60;Production&#62;</h1>');
    expect(text).toContain(`${ORIGIN}/prod/.well-known/openid-configuration`);
    expect(text).not.toMatch(/bob|prod-password|app\.example|<table/);
  });

  it('a development tenant without demo_login lists users without passwords', async () => {
    const text = await (await h.fetch(new Request(at('dev', '/')))).text();
    expect(text).toContain('<code>bob</code>');
    expect(text).toContain('<code>http://dev.example/cb</code>');
    expect(text).not.toContain('dev-password');
    expect(text).not.toContain('<th>Password</th>');
  });

  it('an unknown tenant is a 404 page; other methods 405', async () => {
    const res = await h.fetch(new Request(`${ORIGIN}/nobody`));
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const post = await h.fetch(new Request(`${ISSUER}/`, { method: 'POST' }));
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });
});

describe('the icon', () => {
  it('/favicon.ico is served, and every page carries an inline icon the CSP allows', async () => {
    const icon = await h.fetch(new Request(`${ORIGIN}/favicon.ico`));
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toMatch(/^<svg /);
    const page = await h.get('/');
    expect(await page.text()).toContain('<link rel="icon" href="data:image/svg+xml,');
    expect(page.headers.get('content-security-policy')).toContain('img-src data:');
  });
});

describe('the login page', () => {
  it("names the tenant and the client by their display names, and offers the demo users as buttons", async () => {
    const { text } = await openLogin(browser(), authorizeUrl(webParams()));
    expect(text).toContain('<p class="muted" id="tenant-name">oidc-rp demo</p>');
    expect(text).toContain('to continue to <strong>Server-side &#60;example&#62;</strong>');
    expect(text).toContain('<button type="submit" name="login_as" value="alice">Continue as alice</button>');
    expect(text).toContain('<button type="submit" name="login_as" value="bob">Continue as bob</button>');
  });

  it('falls back to the client_id, and shows no demo users on tenants without demo_login', async () => {
    for (const tenant of ['prod', 'dev']) {
      const params = tenant === 'prod'
        ? { response_type: 'code', client_id: 'web', redirect_uri: 'https://app.example/cb', scope: 'openid', state: 's' }
        : { response_type: 'code', client_id: 'plain', redirect_uri: 'http://dev.example/cb', scope: 'openid', state: 's' };
      const { text } = await openLogin(browser(), authorizeUrl(params, `${ORIGIN}/${tenant}`));
      expect(text, tenant).toContain(`to continue to <strong>${params.client_id}</strong>`);
      expect(text, tenant).not.toContain('login_as');
    }
  });

  it('a demo user button signs that user in without a password (consent rules unchanged)', async () => {
    const b = browser();
    const { text } = await openLogin(b, authorizeUrl(webParams()));
    const { interaction, csrf } = hidden(text);
    const res = await b.go('/oidc/login', { form: { interaction, csrf, login_as: 'bob' } });
    expect(res.status).toBe(302);
    expect(res.headers.get('set-cookie')).toMatch(/rs_session=/);
    expect(new URL(res.headers.get('location') ?? '').pathname).toBe('/demo/oidc/consent');
    const consent = await b.go(res.headers.get('location') ?? '');
    expect(await consent.text()).toContain('signed in as <strong>bob</strong>');
    const done = await b.go('/oidc/consent', { form: { interaction, csrf, decision: 'allow' } });
    expect(await idTokenSub(code(done))).toBe('bob');
  });

  it('a demo user post is CSRF-checked like every post, and refused for unknown users', async () => {
    const b = browser();
    const { interaction, csrf } = hidden((await openLogin(b, authorizeUrl(webParams()))).text);
    const none = await b.go('/oidc/login', { form: { interaction, login_as: 'bob' } });
    expect(none.status).toBe(403);
    const wrong = await b.go('/oidc/login', { form: { interaction, csrf: `${csrf}x`, login_as: 'bob' } });
    expect(wrong.status).toBe(403);
    const unknown = await b.go('/oidc/login', { form: { interaction, csrf, login_as: 'mallory' } });
    expect(unknown.status).toBe(403);
    for (const res of [none, wrong, unknown]) expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('refuses login_as on tenants without demo_login: no session, no code', async () => {
    for (const [tenant, params] of [
      ['prod', { response_type: 'code', client_id: 'web', redirect_uri: 'https://app.example/cb', scope: 'openid', state: 's' }],
      ['dev', { response_type: 'code', client_id: 'plain', redirect_uri: 'http://dev.example/cb', scope: 'openid', state: 's' }],
    ] as const) {
      const b = browser();
      const { interaction, csrf } = hidden((await openLogin(b, authorizeUrl(params, `${ORIGIN}/${tenant}`))).text);
      const res = await b.go(at(tenant, '/oidc/login'), { form: { interaction, csrf, login_as: 'bob' } });
      expect(res.status, tenant).toBe(403);
      expect(res.headers.get('set-cookie'), tenant).toBeNull();
      expect(res.headers.get('location'), tenant).toBeNull();
    }
  });
});

describe('login_hint on a demo_login tenant', () => {
  it('signs the hinted user in without a password, then asks for consent as usual', async () => {
    const b = browser();
    const start = await b.go(authorizeUrl(webParams({ login_hint: 'bob' })));
    const login = await b.go(start.headers.get('location') ?? '');
    expect(login.status).toBe(302);
    expect(login.headers.get('set-cookie')).toMatch(/rs_session=/);
    const consentUrl = new URL(login.headers.get('location') ?? '');
    expect(consentUrl.pathname).toBe('/demo/oidc/consent');
    const { interaction, csrf } = hidden(await (await b.go(consentUrl)).text());
    const done = await b.go('/oidc/consent', { form: { interaction, csrf, decision: 'allow' } });
    expect(await idTokenSub(code(done))).toBe('bob');
  });

  it('switches from the signed-in user to the hinted one', async () => {
    const b = browser();
    const first = await b.go(authorizeUrl(webParams({ login_hint: 'alice', prompt: 'consent' })));
    const toConsent = await b.go(first.headers.get('location') ?? '');
    const { interaction, csrf } = hidden(await (await b.go(toConsent.headers.get('location') ?? '')).text());
    expect(await idTokenSub(code(await b.go('/oidc/consent', { form: { interaction, csrf, decision: 'allow' } })))).toBe('alice');

    const again = await b.go(authorizeUrl(webParams({ login_hint: 'bob' })));
    expect(new URL(again.headers.get('location') ?? '').pathname).toBe('/demo/oidc/login');
    const asBob = await b.go(again.headers.get('location') ?? '');
    expect(new URL(asBob.headers.get('location') ?? '').pathname).toBe('/demo/oidc/consent');
  });

  it('an unknown hinted user gets the password form, pre-filled', async () => {
    const { page, text } = await openLogin(browser(), authorizeUrl(webParams({ login_hint: 'mallory' })));
    expect(page.status).toBe(200);
    expect(text).toContain('value="mallory"');
    expect(page.headers.get('set-cookie')).toBeNull();
  });

  it('is only a pre-filled user name on tenants without demo_login', async () => {
    for (const [tenant, params] of [
      ['prod', { response_type: 'code', client_id: 'web', redirect_uri: 'https://app.example/cb', scope: 'openid', state: 's', login_hint: 'bob' }],
      ['dev', { response_type: 'code', client_id: 'plain', redirect_uri: 'http://dev.example/cb', scope: 'openid', state: 's', login_hint: 'bob' }],
    ] as const) {
      const { page, text } = await openLogin(browser(), authorizeUrl(params, `${ORIGIN}/${tenant}`));
      expect(page.status, tenant).toBe(200);
      expect(page.headers.get('set-cookie'), tenant).toBeNull();
      expect(text, tenant).toContain('name="password"');
      expect(text, tenant).toContain('value="bob"');
    }
  });
});

describe('a sign-in page requested again after it ended (browser Back)', () => {
  async function finished(redirectUri = WEB_REDIRECT) {
    const b = browser();
    const { text } = await openLogin(b, authorizeUrl(webParams({ redirect_uri: redirectUri })));
    const { interaction, csrf } = hidden(text);
    await b.go('/oidc/login', { form: { interaction, csrf, username: 'alice', password: 'wonderland' } });
    code(await b.go('/oidc/consent', { form: { interaction, csrf, decision: 'allow' } }));
    return { b, interaction, csrf };
  }

  it('answers 200 "already complete" with a link back to the client, on the login and the consent page', async () => {
    const { b, interaction } = await finished();
    for (const page of ['login', 'consent']) {
      const res = await b.go(`/oidc/${page}?interaction=${interaction}`);
      expect(res.status, page).toBe(200);
      const text = await res.text();
      expect(text).toContain('This sign-in is already complete');
      expect(text).toContain('<a href="http://127.0.0.1:3000/" id="back-to-client">Back to Server-side &#60;example&#62;</a>');
      expect(text).not.toContain('name="password"');
    }
  });

  it('links to the origin of the redirect URI that sign-in used', async () => {
    const { b, interaction } = await finished('http://localhost:3000/callback');
    expect(await (await b.go(`/oidc/login?interaction=${interaction}`)).text()).toContain('href="http://localhost:3000/"');
  });

  it('after Cancel too', async () => {
    const b = browser();
    const { interaction, csrf } = hidden((await openLogin(b, authorizeUrl(webParams()))).text);
    await b.go('/oidc/login', { form: { interaction, csrf, action: 'cancel' } });
    const res = await b.go(`/oidc/login?interaction=${interaction}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Back to Server-side');
  });

  it('an expired or unknown sign-in gets the same kind of page without a link; a malformed one 400', async () => {
    const { b, interaction } = await finished();
    h.clock.advance(601);
    const expired = await b.go(`/oidc/login?interaction=${interaction}`);
    expect(expired.status).toBe(200);
    const text = await expired.text();
    expect(text).toContain('already complete or has expired');
    expect(text).not.toContain('<a href');
    expect((await b.go(`/oidc/login?interaction=${'A'.repeat(43)}`)).status).toBe(200);
    expect((await b.go('/oidc/login?interaction=short')).status).toBe(400);
  });

  it('its record can never continue a sign-in: the ended marker is not a valid interaction id', async () => {
    const { b, interaction, csrf } = await finished();
    expect((await b.go(`/oidc/login?interaction=${interaction}.ended`)).status).toBe(400);
    const replay = await b.go('/oidc/consent', { form: { interaction: `${interaction}.ended`, csrf: '', decision: 'allow' } });
    expect(replay.status).toBe(400);
    expect(replay.headers.get('location')).toBeNull();
    const again = await b.go('/oidc/consent', { form: { interaction, csrf, decision: 'allow' } });
    expect(again.status).toBe(400);
    expect(again.headers.get('location')).toBeNull();
  });
});

describe('forgetting consent (development tenants)', () => {
  async function signedIn() {
    const b = browser();
    const { text } = await openLogin(b, authorizeUrl(webParams({ prompt: 'consent' })));
    const { interaction, csrf } = hidden(text);
    await b.go('/oidc/login', { form: { interaction, csrf, username: 'alice', password: 'wonderland' } });
    code(await b.go('/oidc/consent', { form: { interaction, csrf, decision: 'allow' } }));
    return b;
  }

  const formToken = (page: string) => /action="[^"]*\/revoke-consent">\s*<input type="hidden" name="csrf" value="([^"]+)"/.exec(page)?.[1];

  it('the start page shows the signed-in user and the remembered consent; the button forgets it and the consent page comes back', async () => {
    const b = await signedIn();
    expect(new URL((await b.go(authorizeUrl(webParams()))).headers.get('location') ?? '').searchParams.get('code')).toBeTruthy();

    const home = await (await b.go('/')).text();
    expect(home).toContain('Signed in as <strong id="signed-in-user">alice</strong>');
    expect(home).toContain('<li>Server-side &#60;example&#62;: <code>openid profile email offline_access</code></li>');
    const csrf = formToken(home);
    expect(csrf).toBeTruthy();

    const res = await b.go('/revoke-consent', { form: { csrf: csrf ?? '' } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${ISSUER}/?consent=forgotten`);
    const after = await (await b.go(res.headers.get('location') ?? '')).text();
    expect(after).toContain('Your consents are forgotten');
    expect(after).toContain('No consent is remembered');

    const next = await b.go(authorizeUrl(webParams()));
    expect(new URL(next.headers.get('location') ?? '').pathname).toBe('/demo/oidc/consent');
  });

  it('refuses a post without the token, with a wrong one, with another session\'s, or without a session', async () => {
    const b = await signedIn();
    const other = await signedIn();
    const otherToken = formToken(await (await other.go('/')).text()) ?? '';
    const mine = formToken(await (await b.go('/')).text()) ?? '';
    expect(otherToken).not.toBe(mine);
    for (const form of [{}, { csrf: `${mine}x` }, { csrf: otherToken }] as Record<string, string>[]) {
      expect((await b.go('/revoke-consent', { form })).status).toBe(403);
    }
    expect((await browser().go('/revoke-consent', { form: { csrf: mine } })).status).toBe(403);
    // Nothing was forgotten: the next sign-in is still answered at once.
    expect(new URL((await b.go(authorizeUrl(webParams()))).headers.get('location') ?? '').searchParams.get('code')).toBeTruthy();
  });

  it('is not offered on tenants that are not for development', async () => {
    const res = await h.fetch(new Request(at('prod', '/revoke-consent'), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'csrf=x' }));
    expect(res.status).toBe(403);
  });
});
