// The next-auth#11853 trap: a proxy (middleware) that refreshes the session sets the new cookie on
// the response, but the server components of the same request read the request's OLD cookie, so
// the page renders with the spent token (and a second refresh with it makes the provider revoke
// the family). Here every request is due for a refresh; the page must show the token the proxy
// just got, which is also the one in the cookie the browser receives.
import { describe, expect, it } from 'vitest';
import { createNodeClient, createSessionAuth } from '@oidc-rp/node';
import { tokenFingerprint } from '../../lib/auth';
import { SESSION_SECRET, logInAsAlice, setUpHarnessPage } from './harness';

const e2e = setUpHarnessPage({ refreshLeeway: 100_000 });

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

describe('Next.js example: a refresh in the proxy is what the server components of that request see', () => {
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
