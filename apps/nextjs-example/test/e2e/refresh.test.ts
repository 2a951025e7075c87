// Refresh through the Next.js proxy: with a refresh leeway longer than any token's life, every
// request is due. The proxy refreshes and forwards the new cookie to the route handler, which
// then refreshes with the NEW refresh token. Had the handler seen the old cookie, it would have
// presented a spent refresh token, the provider would have revoked the whole family, and the
// next request would be signed out.
//
// And the next-auth#11853 trap: a proxy (middleware) that refreshes the session sets the new
// cookie on the response, but the server components of the same request read the request's OLD
// cookie, so the page renders with the spent token (and a second refresh with it makes the
// provider revoke the family). Here every request is due for a refresh; the page must show the
// token the proxy just got, which is also the one in the cookie the browser receives.
//
// One app and reference server for both (the same settings), each describe in a browser context
// of its own: the token counts they assert are differences, so the other's requests do not count.
import { createNodeClient, createSessionAuth } from '@oidc-rp/node';
import { describe, expect, it } from 'vitest';
import { tokenFingerprint } from '../../lib/auth';
import { logInAsAlice, SESSION_SECRET, setUpHarness, setUpPage } from './harness';

const shared = setUpHarness({ refreshLeeway: 100_000 });

describe('Next.js example: refresh in the proxy', () => {
  const e2e = setUpPage(shared);

  it('keeps the session through a refresh on every request, never reusing a spent refresh token', async () => {
    await e2e.page.goto(`${e2e.harness.appOrigin}/auth/login`);
    await logInAsAlice(e2e.page);
    await e2e.page.waitForURL(`${e2e.harness.appOrigin}/`);
    const refreshes = () => e2e.harness.count('POST', '/oauth/token');
    const start = refreshes();

    let tokenExpiry: unknown;
    for (let i = 0; i < 3; i++) {
      const response = await e2e.page.goto(`${e2e.harness.appOrigin}/api/me`);
      expect(response?.status()).toBe(200);
      const body = (await response?.json()) as { sub: string; accessTokenExpiresAt: number };
      expect(body.sub).toBe('alice');
      tokenExpiry = body.accessTokenExpiresAt;
    }
    // Proxy and handler each refreshed, in sequence: two per request, none refused.
    expect(refreshes() - start).toBe(6);
    // The refreshed lifetime is the provider's (3600 s), not the one assumed after the code exchange.
    expect(tokenExpiry).toBeGreaterThan(Date.now() / 1000 + 3000);

    await e2e.page.goto(`${e2e.harness.appOrigin}/`);
    await expect(e2e.page.getByTestId('status').getAttribute('data-status')).resolves.toBe('authenticated');
  });
});

describe('Next.js example: a refresh in the proxy is what the server components of that request see', () => {
  const e2e = setUpPage(shared);

  /** The access token sealed in the browser's session cookie right now, opened with the app's secret (read only). */
  async function browserToken(): Promise<{ fingerprint: string; expiresAt: number | undefined }> {
    const auth = createSessionAuth({
      client: createNodeClient({
        issuer: e2e.harness.issuer,
        clientId: 'web',
        clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
        redirectUri: `${e2e.harness.appOrigin}/auth/callback`,
        cookieSecret: SESSION_SECRET,
      }),
      secret: SESSION_SECRET,
      baseUrl: e2e.harness.appOrigin,
    });
    const cookies = await e2e.context.cookies(e2e.harness.appOrigin);
    const header = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const { session } = await auth.getSession(new Request(e2e.harness.appOrigin, { headers: { cookie: header } }), { refresh: false });
    if (!session) throw new Error('the browser holds no session');
    return { fingerprint: tokenFingerprint(session.accessToken), expiresAt: session.accessTokenExpiresAt };
  }

  it('every page render shows the token refreshed in the same request, the one the browser is sent', async () => {
    await e2e.page.goto(`${e2e.harness.appOrigin}/auth/login`);
    await logInAsAlice(e2e.page);
    await e2e.page.waitForURL(`${e2e.harness.appOrigin}/`);
    const token = e2e.page.getByTestId('access-token');

    const seen = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const before = await browserToken();
      const refreshes = e2e.harness.count('POST', '/oauth/token');
      await e2e.page.goto(`${e2e.harness.appOrigin}/`);
      const rendered = await token.getAttribute('data-fingerprint');
      const after = await browserToken();
      // The proxy refreshed once (the server component only reads)...
      expect(e2e.harness.count('POST', '/oauth/token') - refreshes).toBe(1);
      expect(after.fingerprint).not.toBe(before.fingerprint);
      // ...and the page was rendered with that new token, not with the request's old cookie.
      expect(rendered).toBe(after.fingerprint);
      expect(Number(await token.getAttribute('data-expires-at'))).toBe(after.expiresAt);
      seen.add(rendered as string);
    }
    expect(seen.size).toBe(3);
    await expect(e2e.page.getByTestId('status').getAttribute('data-status')).resolves.toBe('authenticated');
  });
});
