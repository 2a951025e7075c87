/**
 * The reference server's pages as a person meets them in real Chromium: the login form when the
 * provider does not know the browser yet, then consent when it asks (offline_access), until the
 * browser is back on the app and the client has finished the callback.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { BrowserClient } from '../../src/index';

/** Fills the provider's login form as alice and submits it. */
async function submitLoginForm(page: Page): Promise<void> {
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Password').fill('wonderland');
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * After `login()` (or the provider's redirect) left the app: signs in as alice on the login form,
 * unless the provider signs the browser in at once (single sign-on, a demo `login_hint`); resolves
 * once the browser is at the app's `/callback`, whatever the callback's outcome.
 */
export async function signInOnLoginForm(page: Page, appOrigin: string): Promise<void> {
  const callback = (url: URL) => url.origin === appOrigin && url.pathname === '/callback';
  await page.waitForURL((url) => url.pathname.endsWith('/login') || callback(url));
  if (!callback(new URL(page.url()))) {
    await submitLoginForm(page);
    await page.waitForURL(callback);
  }
}

/** Signs in as alice (allowing consent when asked) after `login()` left the app; resolves signed in, back on `appOrigin`. */
export async function signInOnProviderPages(page: Page, appOrigin: string): Promise<void> {
  const onApp = (url: URL) => url.origin === appOrigin;
  await page.waitForURL((url) => !onApp(url) || url.pathname === '/callback');
  for (let step = 0; step < 2 && !onApp(new URL(page.url())); step++) {
    const at = page.url();
    if (new URL(at).pathname.endsWith('/login')) await submitLoginForm(page);
    else {
      await page.getByRole('button', { name: 'Allow' }).click();
    }
    await page.waitForURL((url) => url.href !== at);
  }
  await page.waitForURL(onApp);
  await page.waitForFunction(() => {
    const { client } = window as unknown as { client?: BrowserClient };
    return client !== undefined && client.getSnapshot().status !== 'loading';
  });
  const snapshot = await page.evaluate(() => {
    const { status, error } = (window as unknown as { client: BrowserClient }).client.getSnapshot();
    return { status, error: error?.message };
  });
  expect(snapshot).toEqual({ status: 'authenticated', error: undefined });
}
