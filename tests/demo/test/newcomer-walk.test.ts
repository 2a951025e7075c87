// The traps of a newcomer's first hour with `npm run demo`, walked in Chromium: a logout at the
// provider signs the server-side example out (back-channel logout, registered out of the box),
// a second SPA login asks no consent again, the SPA fits a 390 px phone screen, Cancel reads in
// the app's own words with a retry, and the server-side example's API page leads back.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectChromium } from './chromium';
import { type Demo, startDemo } from './demo-process';

let demo: Demo;
let browser: Browser;

beforeAll(async () => {
  demo = await startDemo();
  await demo.waitFor(/oidc-rp demo is ready/);
  browser = await connectChromium();
});

afterAll(async () => {
  await browser?.close();
  await demo?.interrupt();
});

async function newPage(viewport?: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext(viewport ? { viewport } : {});
  context.setDefaultTimeout(15_000);
  return context.newPage();
}

/**
 * SPA login with the demo's one-click user. `consent` says whether the consent page must (true)
 * or must not (false) come; undefined takes either (consent is remembered per user and client
 * for the whole server, so it depends on the tests before).
 */
async function spaLogin(page: Page, consent?: boolean): Promise<void> {
  await page.goto(demo.spaOrigin);
  await page.getByTestId('login-button').click();
  const oneClick = page.getByRole('button', { name: 'Continue as alice' });
  const allow = page.getByRole('button', { name: 'Allow' });
  const signedIn = page.getByTestId('claims');
  await oneClick.or(allow).or(signedIn).first().waitFor();
  if (await oneClick.isVisible()) await oneClick.click();
  await allow.or(signedIn).first().waitFor();
  const asked = await allow.isVisible();
  if (consent !== undefined) expect(asked, consent ? 'the consent page comes' : 'no consent page').toBe(consent);
  if (asked) await allow.click();
  await signedIn.waitFor();
}

describe('the demo, as a newcomer walks it', () => {
  it('asks for consent at the first SPA login only: the second login goes straight back to the app', async () => {
    const page = await newPage();
    await spaLogin(page, true);
    // Tokens live in memory: a new page load is a new login, through the provider's session.
    await spaLogin(page, false);
    await page.context().close();
  });

  it('signs the server-side example out when the user logs out at the provider (back-channel logout)', async () => {
    const page = await newPage();
    // The server-side example: signed in through the provider.
    await page.goto(demo.nodeOrigin);
    await page.getByTestId('login-button').click();
    const oneClick = page.getByRole('button', { name: 'Continue as alice' });
    const allow = page.getByRole('button', { name: 'Allow' });
    await oneClick.or(allow).first().waitFor();
    if (await oneClick.isVisible()) await oneClick.click();
    await allow.or(page.getByTestId('session')).first().waitFor();
    if (await allow.isVisible()) await allow.click();
    await page.getByTestId('session').waitFor();

    // The SPA in the same browser: the same provider session (SSO); then its Log out, which
    // ends the session at the provider.
    await spaLogin(page);
    await page.getByTestId('logout-button').click();
    await page.getByTestId('signed-out-notice').waitFor();

    // The provider told the server-side example: it is signed out, and says why.
    await page.goto(demo.nodeOrigin);
    await page.getByTestId('login-button').waitFor();
    expect(await page.getByTestId('status').textContent()).toBe('Signed out');
    expect(await page.getByTestId('signed-out-reason').textContent()).toMatch(/signed out at the identity provider/);
    await page.context().close();
  });

  it('fits the signed-in SPA into a 390 px wide phone screen', async () => {
    const page = await newPage({ width: 390, height: 844 });
    await spaLogin(page);
    await page.getByTestId('token-status').waitFor();
    const widths = await page.evaluate(() => ({ document: document.documentElement.scrollWidth, viewport: window.innerWidth }));
    expect(widths.viewport).toBe(390);
    expect(widths.document).toBeLessThanOrEqual(widths.viewport);
    await page.context().close();
  });

  it('says in its own words that a cancelled sign-in was cancelled, with a retry that works', async () => {
    const page = await newPage();
    await page.goto(demo.spaOrigin);
    await page.getByTestId('login-button').click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('auth-error').waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign-in cancelled');
    expect(await page.getByTestId('error-title').textContent()).toBe('Sign-in was cancelled');
    expect(await page.getByTestId('error-message').textContent()).toBe('You cancelled the sign-in, so nothing was shared with this app. Try again whenever you like.');
    expect(await page.getByTestId('error-message').textContent()).not.toContain('The user cancelled the sign-in'); // not the provider's words
    await page.getByTestId('retry-login-button').click();
    await page.getByRole('button', { name: 'Continue as alice' }).waitFor();
    await page.context().close();
  });

  it("shows the server-side example's API (client credentials) as a page with the way back; programs still get JSON", async () => {
    const page = await newPage();
    await page.goto(demo.nodeOrigin);
    await page.getByRole('link', { name: 'API (client credentials)' }).click();
    await page.getByTestId('api-data').waitFor();
    expect(JSON.parse((await page.getByTestId('api-data').textContent()) ?? '{}')).toMatchObject({ client: 'service', protectedApi: { status: 200 } });
    await page.getByTestId('back-home').click();
    await page.getByTestId('login-button').waitFor();
    expect(page.url()).toBe(`${demo.nodeOrigin}/`);
    await page.context().close();

    const json = await fetch(`${demo.nodeOrigin}/api/data`);
    expect(json.headers.get('content-type')).toMatch(/application\/json/);
    expect(await json.json()).toMatchObject({ client: 'service' });
  });
});
