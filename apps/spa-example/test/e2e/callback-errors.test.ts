import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, logInThroughForms, startHarness } from './harness';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness?.close());

describe('a tampered login callback', () => {
  it('shows an error with its code and creates no session when the state was changed', async () => {
    const context = await harness.newContext();
    try {
      const page = await context.newPage();
      // Code exchanges as the server's journal has them: recorded before each response is sent,
      // so complete once the page shows the outcome (Playwright's events may come later).
      const mark = harness.answered().at(-1)?.seq ?? 0;
      const codeExchanges = () => harness.answered(mark).filter((e) => e.path === '/demo/oidc/token');

      // Let the real login run, but keep the browser from following the provider's redirect back
      // to the app (routes do not see redirect targets, so the consent answer is sent from here).
      let callbackUrl: URL | undefined;
      const serverOrigin = new URL(harness.issuer).origin;
      await page.route(
        (url) => url.origin === serverOrigin && url.pathname === '/demo/oidc/consent',
        async (route) => {
          if (route.request().method() !== 'POST') return route.continue();
          const response = await route.fetch({ maxRedirects: 0 });
          const location = response.headers().location;
          if (location) callbackUrl = new URL(location);
          return route.fulfill({ status: 204 });
        },
      );
      await page.goto(`${harness.appOrigin}/`);
      expect(await logInThroughForms(page)).toEqual({ consentAsked: true });
      await expect.poll(() => callbackUrl?.pathname, { timeout: 10_000 }).toBe('/callback');
      const state = callbackUrl?.searchParams.get('state');
      expect(callbackUrl?.searchParams.get('code')).toBeTruthy();
      expect(state).toBeTruthy();

      // ...and arrive there with another state instead (as an attacker's link would).
      const tampered = new URL(callbackUrl as URL);
      tampered.searchParams.set('state', `${state}x`);
      await page.goto(tampered.href);

      const error = page.getByTestId('auth-error');
      await error.waitFor();
      expect(['state_mismatch', 'transaction_not_found']).toContain(await error.getAttribute('data-code'));
      expect(await page.getByTestId('error-code').textContent()).toBe(await error.getAttribute('data-code'));
      expect(await page.getByTestId('status').getAttribute('data-status')).toBe('error');
      const message = (await page.getByTestId('error-message').textContent()) ?? '';
      expect(message).toMatch(/start a new sign-in/i);
      for (const secret of [callbackUrl?.searchParams.get('code'), state]) expect(message.includes(secret as string)).toBe(false);

      // The code was never redeemed and there is no session, on this page or the next.
      expect(codeExchanges()).toHaveLength(0);
      await page.goto(`${harness.appOrigin}/`);
      await page.locator('[data-testid="status"][data-status="unauthenticated"]').waitFor();
      expect(await page.getByTestId('claims').count()).toBe(0);

      // Control: the untouched callback URL still completes this login, so the error above came
      // from the altered state alone.
      await page.goto((callbackUrl as URL).href);
      await page.getByTestId('claims').waitFor();
      expect(codeExchanges().map((e) => e.status)).toEqual([200]);
    } finally {
      await context.close();
    }
  });
});
