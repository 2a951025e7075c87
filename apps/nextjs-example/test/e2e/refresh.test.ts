// Refresh through the Next.js proxy: with a refresh leeway longer than any token's life, every
// request is due. The proxy refreshes and forwards the new cookie to the route handler, which
// then refreshes with the NEW refresh token. Had the handler seen the old cookie, it would have
// presented a spent refresh token, the provider would have revoked the whole family, and the
// next request would be signed out.
import { describe, expect, it } from 'vitest';
import { logInAsAlice, setUpHarnessPage } from './harness';

const e2e = setUpHarnessPage({ refreshLeeway: 100_000 });

describe('Next.js example: refresh in the proxy', () => {
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
