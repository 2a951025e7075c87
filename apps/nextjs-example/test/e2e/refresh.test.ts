// Refresh through the Next.js proxy: with a refresh leeway longer than any token's life, every
// request is due. The proxy refreshes and forwards the new cookie to the route handler, which
// then refreshes with the NEW refresh token. Had the handler seen the old cookie, it would have
// presented a spent refresh token, the provider would have revoked the whole family, and the
// next request would be signed out.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, logInAsAlice, startHarness } from './harness';

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

describe('Next.js example: refresh in the proxy', () => {
  it('keeps the session through a refresh on every request, never reusing a spent refresh token', async () => {
    await page.goto(`${harness.appOrigin}/auth/login`);
    await logInAsAlice(page);
    await page.waitForURL(`${harness.appOrigin}/`);
    const refreshes = () => harness.count('POST', '/oauth/token');
    const start = refreshes();

    let tokenExpiry: unknown;
    for (let i = 0; i < 3; i++) {
      const response = await page.goto(`${harness.appOrigin}/api/me`);
      expect(response?.status()).toBe(200);
      const body = (await response?.json()) as { sub: string; accessTokenExpiresAt: number };
      expect(body.sub).toBe('alice');
      tokenExpiry = body.accessTokenExpiresAt;
    }
    // Proxy and handler each refreshed, in sequence: two per request, none refused.
    expect(refreshes() - start).toBe(6);
    // The refreshed lifetime is the provider's (3600 s), not the one assumed after the code exchange.
    expect(tokenExpiry).toBeGreaterThan(Date.now() / 1000 + 3000);

    await page.goto(`${harness.appOrigin}/`);
    await expect(page.getByTestId('status').getAttribute('data-status')).resolves.toBe('authenticated');
  });
});
