// Issue 22, trap (c), in Chromium: wrong passwords on the reference server's real login page
// reach the SPA as "Too many failed sign-in attempts" (the provider's error_description), not
// "cancelled"; the login page warns before the attempt that locks; the lockout page names the
// app by its client_name and leads back to it with the same message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness?.close());

describe('failed sign-ins in the example app', () => {
  it('three wrong passwords, then a lockout: the app says too many attempts both times; Cancel says cancelled', async () => {
    const context = await harness.newContext();
    try {
      const page = await context.newPage();
      const wrongPassword = async (password: string) => {
        await page.getByLabel('Username').fill('alice');
        await page.getByLabel('Password').fill(password);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      };
      const startAgain = async () => {
        await page.getByRole('button', { name: 'Back to the start' }).click();
        await page.getByTestId('login-button').click();
      };
      const appError = async () => {
        const notice = page.getByTestId('auth-error');
        await notice.waitFor();
        return { code: await notice.getAttribute('data-code'), message: (await page.getByTestId('error-message').textContent()) ?? '' };
      };

      await page.goto(`${harness.appOrigin}/`);
      await page.locator('[data-testid="status"][data-status="unauthenticated"]').waitFor();
      await page.getByTestId('login-button').click();
      await expect.poll(() => page.getByText('to continue to React example (SPA)').isVisible()).toBe(true);
      await wrongPassword('wrong-1');
      await page.getByText('2 attempts left.').waitFor();
      await wrongPassword('wrong-2');
      await page.getByText('1 attempt left.').waitFor();
      await wrongPassword('wrong-3');
      const first = await appError();
      expect(first.code).toBe('access_denied');
      expect(first.message).toMatch(/^Too many failed sign-in attempts/);
      expect(first.message).not.toMatch(/cancel/i);

      // Three of five failures are counted: the next typo is the last one before the lockout, and the page says so.
      await startAgain();
      await wrongPassword('wrong-4');
      await page.getByText('1 attempt left before sign-in is locked for 15 minutes.').waitFor();
      await wrongPassword('wrong-5');
      await page.getByRole('heading', { name: 'Too many failed sign-in attempts' }).waitFor();
      await page.getByRole('button', { name: 'Back to React example (SPA)' }).click();
      const locked = await appError();
      expect(locked.code).toBe('access_denied');
      expect(locked.message).toMatch(/^Too many failed sign-in attempts/);

      // Cancel still reads as a cancellation.
      await startAgain();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByText('Sign-in was cancelled').waitFor();
      expect(await appError()).toEqual({ code: 'access_denied', message: 'You cancelled the sign-in, so nothing was shared with this app. Try again whenever you like.' });
    } finally {
      await context.close();
    }
  });
});
