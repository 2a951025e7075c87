import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, exchangeWebCode, ISSUER, login, setup, webCode, webParams, WEB_REDIRECT, type Harness } from './helpers';

let h: Harness;
beforeAll(async () => {
  h = await setup((config) => {
    config.tenants.push({
      id: 'acme',
      clients: [{ client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4', redirect_uris: [WEB_REDIRECT], scopes: ['openid'], grant_types: ['authorization_code', 'refresh_token'] }],
      users: [{ username: 'alice', password: 'wonderland' }],
    });
  });
});

const ENDPOINTS: [string, string[], 'json' | 'html'][] = [
  ['', ['GET'], 'html'],
  ['/revoke-consent', ['POST'], 'html'],
  ['/.well-known/openid-configuration', ['GET'], 'json'],
  ['/oidc/jwks', ['GET'], 'json'],
  ['/oidc/authorize', ['GET'], 'html'],
  ['/oidc/login', ['GET', 'POST'], 'html'],
  ['/oidc/consent', ['GET', 'POST'], 'html'],
  ['/oidc/token', ['POST'], 'json'],
  ['/oauth/token', ['POST'], 'json'],
  ['/oidc/userinfo', ['GET', 'POST'], 'json'],
  ['/oauth/revoke', ['POST'], 'json'],
  ['/oidc/logout', ['GET', 'POST'], 'html'],
];

describe('unknown tenants, paths and methods', () => {
  it.each(ENDPOINTS)('%s under an unknown tenant → 404 in the endpoint shape', async (path, methods, kind) => {
    const res = await h.fetch(new Request(`http://localhost/nobody${path}`, { method: methods[0] }));
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(kind === 'json' ? /^application\/json/ : /^text\/html/);
  });

  it.each(ENDPOINTS)('%s with a wrong method → 405 with Allow', async (path, methods, kind) => {
    for (const method of ['PUT', 'DELETE', 'PATCH', 'HEAD', ...(['GET', 'POST'].filter((m) => !methods.includes(m)))]) {
      const res = await h.fetch(new Request(`${ISSUER}${path}`, { method }));
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('allow')).toBe(methods.join(', '));
      if (kind === 'json' && method !== 'HEAD') expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
    }
  });

  it('unknown paths → 404 JSON', async () => {
    for (const path of ['/', '/demo//', '/demo/oidc/authorize/', '/demo//oidc/token', '/demo/oidc/nothing', '/%FF/oidc/jwks']) {
      const res = await h.fetch(new Request(`http://localhost${path}`));
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
    }
  });
});

describe('tenants are isolated', () => {
  it("a code or token of one tenant means nothing to another with the same client ids", async () => {
    const code = await webCode(h, { scope: 'openid' });
    const res = await h.fetch(
      new Request('http://localhost/acme/oidc/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' }),
      }),
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_grant');
    const { access_token } = (await (await exchangeWebCode(h, await webCode(h, { scope: 'openid' }))).json()) as { access_token: string };
    const userinfo = await h.fetch(new Request('http://localhost/acme/oidc/userinfo', { headers: { authorization: `Bearer ${access_token}` } }));
    expect(userinfo.status).toBe(401);
  });

  it('sessions are per tenant', async () => {
    const { CookieJar } = await import('./helpers');
    const cookies = new CookieJar();
    await login(h, webParams({ scope: 'openid' }), { cookies });
    const url = authorizeUrl({ ...webParams({ scope: 'openid' }), prompt: 'none' }, 'http://localhost/acme');
    const res = await h.fetch(new Request(url, { headers: { cookie: cookies.header(new URL(`${ISSUER}/oidc/authorize`)) ?? '' } }));
    expect(new URL(res.headers.get('location') ?? '').searchParams.get('error')).toBe('login_required');
  });
});

describe('malformed input is a 4xx, never a 5xx', () => {
  const tokenPost = (body: BodyInit, contentType: string | null = 'application/x-www-form-urlencoded', path = '/oidc/token') =>
    h.fetch(new Request(`${ISSUER}${path}`, { method: 'POST', headers: contentType ? { 'content-type': contentType } : {}, body }));

  it('broken percent-encoding or UTF-8 in the authorize query → invalid_request redirect, or a page for client_id', async () => {
    const base = authorizeUrl(webParams({ state: undefined }));
    for (const bad of ['%ZZ', '%E2%82', '%FF', '%', '%C0%AF']) {
      const res = await h.fetch(new Request(`${base}&state=${bad}`));
      expect(res.status).toBe(302);
      const params = new URL(res.headers.get('location') ?? '').searchParams;
      expect(params.get('error')).toBe('invalid_request');
      expect(params.get('error_description')).toMatch(/state is not valid percent-encoded UTF-8/);
      const page = await h.fetch(new Request(`${ISSUER}/oidc/authorize?client_id=${bad}&redirect_uri=x`));
      expect(page.status).toBe(400);
    }
  });

  it('token endpoint bodies: wrong or missing content type, invalid UTF-8, too large, too many parameters', async () => {
    const cases: [BodyInit, string | null][] = [
      ['grant_type=authorization_code', 'application/json'],
      ['grant_type=authorization_code', 'text/plain'],
      ['grant_type=authorization_code', null],
      [new Uint8Array([0x67, 0x3d, 0xff, 0xfe]), 'application/x-www-form-urlencoded'],
      ['grant_type=authorization_code&code=%FF', 'application/x-www-form-urlencoded'],
      [`grant_type=authorization_code&code=${'a'.repeat(70_000)}`, 'application/x-www-form-urlencoded'],
      [`grant_type=authorization_code&code=${'a'.repeat(5000)}`, 'application/x-www-form-urlencoded'],
      [Array.from({ length: 70 }, (_, i) => `p${i}=1`).join('&'), 'application/x-www-form-urlencoded'],
      ['=&=&&&=', 'application/x-www-form-urlencoded'],
    ];
    for (const path of ['/oidc/token', '/oauth/token', '/oauth/revoke']) {
      for (const [body, type] of cases) {
        const res = await tokenPost(body, type, path);
        expect(res.status, `${path} ${String(type)}`).toBe(400);
        expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
      }
    }
  });

  it('a streamed body over the limit is cut off with 400', async () => {
    const chunk = new TextEncoder().encode('a'.repeat(16 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 10) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await h.fetch(new Request(`${ISSUER}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: stream, duplex: 'half' } as RequestInit));
    expect(res.status).toBe(400);
    expect(sent).toBeLessThan(10);
  });

  it('login, consent and logout posts with broken bodies get a 400 page', async () => {
    for (const path of ['/oidc/login', '/oidc/consent', '/oidc/logout']) {
      const wrongType = await tokenPost('x=1', 'application/json', path);
      expect(wrongType.status).toBe(400);
      expect(wrongType.headers.get('content-type')).toMatch(/^text\/html/);
      const dup = await tokenPost('interaction=a&interaction=b', 'application/x-www-form-urlencoded', path);
      expect(dup.status).toBe(400);
    }
    const logout = await h.fetch(new Request(`${ISSUER}/oidc/logout?state=a&state=b`));
    expect(logout.status).toBe(400);
  });

  it('an Authorization header that is not Basic at the token endpoint → 401 invalid_client', async () => {
    const res = await h.post('/oauth/token', { grant_type: 'client_credentials' }, { authorization: 'Bearer abc' });
    expect(res.status).toBe(401);
    const bad = await h.post('/oauth/token', { grant_type: 'client_credentials' }, { authorization: `Basic ${Buffer.from([0xff, 0x3a, 0x41]).toString('base64')}` });
    expect(bad.status).toBe(401);
  });

  it('cookies with junk values are ignored', async () => {
    const res = await h.fetch(new Request(authorizeUrl(webParams()), { headers: { cookie: 'rs_session=<script>; rs_browser=%%%; =;;' } }));
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location') ?? '').pathname).toBe('/demo/oidc/login');
  });

  it('property: arbitrary query strings and form bodies never produce a 5xx', async () => {
    const piece = fc.oneof(
      fc.constantFrom('client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'nonce', 'code', 'grant_type', 'token', 'interaction', 'csrf', 'id_token_hint', 'post_logout_redirect_uri', 'code_verifier', 'refresh_token', 'web', 'spa', 'openid', 'code id_token', WEB_REDIRECT, 'authorization_code', 'refresh_token', 'client_credentials'),
      fc.string({ maxLength: 12 }),
      fc.constantFrom('%', '%FF', '%E2%82', '%00', '+', '&', '=', '%26', '%3D', '#', '\u00e9', '\ud83d\ude00'),
    );
    const pair = fc.tuple(piece, piece).map(([k, v]) => `${encodeURIComponent(k).replace(/%25/g, '%')}=${v}`);
    const query = fc.array(fc.oneof(pair, piece), { maxLength: 10 }).map((parts) => parts.join('&'));
    const method = fc.constantFrom('GET', 'POST');
    const endpoint = fc.constantFrom(...ENDPOINTS.map(([path]) => path));
    const auth = fc.option(fc.oneof(fc.constant('Basic d2ViOndlYi1zZWNyZXQ='), fc.constant('Bearer x'), fc.string({ maxLength: 30 }).map((s) => s.replace(/[^\x20-\x7e]/g, ''))), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(endpoint, method, query, query, auth, async (path, m, q, body, authorization) => {
        const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://127.0.0.1:5173' };
        if (authorization) headers.authorization = authorization;
        let url: string;
        try {
          url = new URL(`${ISSUER}${path}?${q}`).href;
        } catch {
          return;
        }
        const res = await h.fetch(new Request(url, { method: m, headers, ...(m === 'POST' ? { body } : {}) }));
        expect(res.status, `${m} ${url}`).toBeGreaterThanOrEqual(200);
        expect(res.status, `${m} ${url}`).toBeLessThan(500);
      }),
      { numRuns: 400 },
    );
  });
});

describe('parameter names from the attacker never reach a header or page raw', () => {
  it.each(['%00=%', '%00=a%FF', 'a%0D%0Ab=%FF', 'a%22b=%FF', '%7F%7F=%FF'])(
    'POST userinfo with body %s → 4xx with a header-safe challenge',
    async (body) => {
      const res = await h.fetch(
        new Request(`${ISSUER}/oidc/userinfo`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body,
        }),
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="[^"]*", error="invalid_request", error_description="[\x20-\x7e]*"$/);
    },
  );
});
