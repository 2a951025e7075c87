import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, callApi, type Harness, logInThroughForms, startHarness } from './harness';

// Time is moved, never waited for: the server's clock and the page's clock jump forward
// together, past the access tokens' lifetime. The lifetime is far longer than a test takes in
// real time even on a loaded machine: with 5 s, a login slower than that (the stress run) let
// the first token expire before the test moved a clock, so the refresh came one step early.
// What was exchanged is read from the server's journal, complete by the time the page shows a
// result (Playwright's 'response' events may arrive later).
const LIFETIME = 300;
const PAST_EXPIRY = LIFETIME + 1;
let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({ accessTokenLifetime: LIFETIME });
});
afterAll(() => harness?.close());

const userinfo = (e: Answer) => e.path === '/demo/oidc/userinfo';
const refresh = (e: Answer) => e.path === '/demo/oauth/token' && e.method === 'POST';
const lastAnswer = () => harness.answered().at(-1)?.seq ?? 0;

async function signedIn(page: Page): Promise<void> {
  await page.goto(`${harness.appOrigin}/`);
  await logInThroughForms(page);
  await page.getByTestId('claims').waitFor();
}

describe('keeping the API call working past access-token expiry', () => {
  it('refreshes on a 401 for the first token (unknown lifetime), then ahead of expiry once expires_in is known', async () => {
    const context = await harness.newContext({ fakeClock: true });
    try {
      const page = await context.newPage();
      await signedIn(page);
      expect((await callApi(page, 1)).status).toBe('200');

      // The code exchange gave no expires_in: the client learns of the expiry from the 401.
      await harness.advanceClocks(context, PAST_EXPIRY);
      let mark = lastAnswer();
      expect((await callApi(page, 2)).status).toBe('200');
      let since = harness.answered(mark);
      expect(since.filter(userinfo).map((e) => e.status)).toEqual([401, 200]);
      expect(since.filter(refresh).map((e) => e.status)).toEqual([200]);

      // The refresh response said expires_in: LIFETIME, so now the client refreshes before sending.
      mark = lastAnswer();
      await harness.advanceClocks(context, PAST_EXPIRY);
      expect((await callApi(page, 3)).status).toBe('200');
      since = harness.answered(mark);
      expect(since.filter(userinfo).map((e) => e.status)).toEqual([200]);
      expect(since.filter(refresh).map((e) => e.status)).toEqual([200]);
    } finally {
      await context.close();
    }
  });

  it('keeps two tabs working when both refresh at the same moment under refresh-token rotation', async () => {
    // indexedDB: both tabs share one session, so both hold the same (rotating) refresh token.
    const context = await harness.newContext({ tokenStorage: 'indexedDB', fakeClock: true });
    try {
      const serverOrigin = new URL(harness.issuer).origin;
      const first = await context.newPage();
      await signedIn(first);
      const mark = lastAnswer();
      const second = await context.newPage();
      await second.goto(`${harness.appOrigin}/`);
      await second.getByTestId('claims').waitFor();

      // Hold every refresh until both tabs have had their 401, so the two refreshes overlap.
      const bothRejected = Promise.all([first, second].map((page) => waitForUserinfo(page, 401)));
      await context.route(`${serverOrigin}/demo/oauth/token`, async (route) => {
        await bothRejected;
        await route.continue();
      });

      await harness.advanceClocks(context, PAST_EXPIRY);
      const [a, b] = await Promise.all([callApi(first, 1), callApi(second, 1)]);
      expect([a.status, b.status]).toEqual(['200', '200']);
      await context.unroute(`${serverOrigin}/demo/oauth/token`);

      // Again once the lifetime is known: both decide to refresh ahead of expiry at once.
      await harness.advanceClocks(context, PAST_EXPIRY);
      const [c, d] = await Promise.all([callApi(first, 2), callApi(second, 2)]);
      expect([c.status, d.status]).toEqual(['200', '200']);

      // No refresh was refused (a reused refresh token would get invalid_grant and end the session).
      const refreshes = harness.answered(mark).filter(refresh);
      expect(refreshes.length).toBeGreaterThanOrEqual(1);
      expect(refreshes.filter((e) => e.status !== 200)).toEqual([]);
      for (const page of [first, second]) {
        expect(await page.getByTestId('status').getAttribute('data-status')).toBe('authenticated');
      }
    } finally {
      await context.close();
    }
  });
});

function waitForUserinfo(page: Page, status: number) {
  return page.waitForResponse(
    (response) => new URL(response.url()).pathname === '/demo/oidc/userinfo' && response.status() === status,
  );
}
