// The next-auth#11853 trap: a proxy (middleware) that refreshes the session sets the new cookie on
// the response, but the server components of the same request read the request's OLD cookie, so
// the page renders with the spent token (and a second refresh with it makes the provider revoke
// the family). Here every request is due for a refresh; the page must show the token the proxy
// just got, which is also the one in the cookie the browser receives.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeClient, createSessionAuth } from '@oidc-rp/node';
import { tokenFingerprint } from '../../lib/auth';
import { type Harness, SESSION_SECRET, logInAsAlice, startHarness } from './harness';

let harness: Harness;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  harness = await startHarness({ refreshLeeway: 100_000 });
  context = await harness.browser.newContext();
  context.setDefaultTimeout(15_000);
  page = await context.newPage();
});
afterAll(async () => {
  await context?.close();
  await harness?.close();
});

/** The access token sealed in the browser's session cookie right now, opened with the app's secret (read only). */
async function browserToken(): Promise<{ fingerprint: string; expiresAt: number | undefined }> {
  const auth = createSessionAuth({
    client: createNodeClient({
      issuer: harness.issuer,
      clientId: 'web',
      clientSecret: 'web-secret',
      redirectUri: `${harness.appOrigin}/auth/callback`,
      cookieSecret: SESSION_SECRET,
    }),
    secret: SESSION_SECRET,
    baseUrl: harness.appOrigin,
  });
  const cookies = await context.cookies(harness.appOrigin);
  const header = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const { session } = await auth.getSession(new Request(harness.appOrigin, { headers: { cookie: header } }), { refresh: false });
  if (!session) throw new Error('the browser holds no session');
  return { fingerprint: tokenFingerprint(session.accessToken), expiresAt: session.accessTokenExpiresAt };
}

describe('Next.js example: a refresh in the proxy is what the server components of that request see', () => {
  it('every page render shows the token refreshed in the same request, the one the browser is sent', async () => {
    await page.goto(`${harness.appOrigin}/auth/login`);
    await logInAsAlice(page);
    await page.waitForURL(`${harness.appOrigin}/`);
    const token = page.getByTestId('access-token');

    const seen = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const before = await browserToken();
      const refreshes = harness.count('POST', '/oauth/token');
      await page.goto(`${harness.appOrigin}/`);
      const rendered = await token.getAttribute('data-fingerprint');
      const after = await browserToken();
      // The proxy refreshed once (the server component only reads)...
      expect(harness.count('POST', '/oauth/token') - refreshes).toBe(1);
      expect(after.fingerprint).not.toBe(before.fingerprint);
      // ...and the page was rendered with that new token, not with the request's old cookie.
      expect(rendered).toBe(after.fingerprint);
      expect(Number(await token.getAttribute('data-expires-at'))).toBe(after.expiresAt);
      seen.add(rendered as string);
    }
    expect(seen.size).toBe(3);
    await expect(page.getByTestId('status').getAttribute('data-status')).resolves.toBe('authenticated');
  });
});
