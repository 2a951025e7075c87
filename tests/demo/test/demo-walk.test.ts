// `npm run demo` walked as a person would: the banner only when everything answers, a clear
// refusal on a busy port, the tenant's start page, the login page naming the app, Cancel, the
// Back button after login, logout, a one-click demo user with forgotten consent and Deny, the
// server-side example's pages, the demo's protected API called by both examples, and Ctrl-C.
import type { Server } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectChromium } from './chromium';
import { type Demo, freePort, occupy, startDemo } from './demo-process';

describe('a busy port', () => {
  let blocker: Server | undefined;
  afterAll(() => blocker?.close());

  it('stops the demo at once with one line naming the port and the flag that moves it', async () => {
    const spa = await freePort();
    blocker = await occupy(spa);
    const demo = await startDemo({ server: await freePort(), spa, node: await freePort() });
    expect(await demo.exited).not.toBe(0);
    expect(demo.output()).toContain(`port ${spa} (example SPA) is in use`);
    expect(demo.output()).toContain('--spa-port');
    expect(demo.output()).not.toMatch(/ready/);
    expect(demo.output()).not.toMatch(/EADDRINUSE|\n\s+at /); // no stack trace
  });
});

describe('the demo', () => {
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

  async function newPage(): Promise<Page> {
    const context = await browser.newContext();
    context.setDefaultTimeout(15_000);
    return context.newPage();
  }

  it('prints "ready" only when all three servers answer', async () => {
    for (const url of [`${demo.issuer}/.well-known/openid-configuration`, `${demo.spaOrigin}/`, `${demo.nodeOrigin}/`]) {
      expect((await fetch(url)).status, url).toBe(200);
    }
    expect(demo.output()).toContain(demo.spaOrigin);
  });

  it('shows a start page at the tenant root: what it is, its discovery URL, the demo users and clients', async () => {
    const page = await newPage();
    const response = await page.goto(demo.issuer);
    expect(response?.status()).toBe(200);
    await expect.poll(() => page.title()).toMatch(/oidc-rp demo/);
    const text = (await page.textContent('body')) ?? '';
    expect(text).toContain(`${demo.issuer}/.well-known/openid-configuration`);
    expect(text).toContain('alice');
    expect(text).toMatch(/React example \(SPA\)/);
    expect(text).toMatch(/Server-side example/);
    expect(text).not.toContain('wonderland-not-a-password');
    await page.context().close();
  });

  it('walks the SPA: the login page names the app, Cancel reads as a cancel, login, Back, logout', async () => {
    const page = await newPage();
    const consoleErrors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    await page.goto(demo.spaOrigin);
    await page.getByTestId('login-button').click();

    // The login page: the client's display name and the tenant's, and the demo users.
    await page.getByLabel('Username').waitFor();
    const login = (await page.textContent('body')) ?? '';
    expect(login).toContain('React example (SPA)');
    expect(login).toContain('oidc-rp demo');
    expect(login).not.toMatch(/continue to spa\b/);
    expect(login).toContain('alice');

    // Cancel → the SPA explains, in words a person understands, that nothing happened.
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('auth-error').waitFor();
    expect(await page.getByTestId('error-code').textContent()).toBe('access_denied');
    expect(await page.getByTestId('error-title').textContent()).toBe('Sign-in was cancelled');
    // The app's own words for a Cancel, not the SDK's developer hint.
    expect(await page.getByTestId('error-message').textContent()).toContain('You cancelled the sign-in');
    expect(await page.getByTestId('error-message').textContent()).not.toMatch(/client registration/);

    // Log in for real: the failed callback page leads back to the start page and its login button.
    const back = page.getByRole('button', { name: 'Back to the start' });
    if (await back.isVisible()) await back.click();
    await page.getByTestId('login-button').click();
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill('wonderland');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const allow = page.getByRole('button', { name: 'Allow' });
    await allow.or(page.getByTestId('claims')).first().waitFor();
    if (await allow.isVisible()) await allow.click();
    await page.getByTestId('claims').waitFor();
    await page.getByTestId('token-status').waitFor();

    // Back lands on the finished sign-in: a page that says so and leads back, not a 400.
    await page.goBack();
    await page.waitForLoadState();
    if (!page.url().startsWith(demo.spaOrigin)) {
      const body = (await page.textContent('body')) ?? '';
      expect(body).toMatch(/already (complete|signed in)/i);
      expect(body).not.toMatch(/400|bad request/i);
      await page.getByRole('link', { name: /back to React example \(SPA\)/i }).click();
      // Tokens live in the tab's memory (the safe default), so a page load signs the tab out;
      // the server still knows the browser, and one click signs it in again without a password.
      const login = page.getByTestId('login-button');
      await login.or(page.getByTestId('claims')).first().waitFor();
      if (await login.isVisible()) {
        await login.click();
        // Consent was given at the first login: the service asks again only when it was not.
        const consent = page.getByRole('button', { name: 'Allow' });
        await consent.or(page.getByTestId('claims')).first().waitFor();
        if (await consent.isVisible()) await consent.click();
      }
      await page.getByTestId('claims').waitFor();
    }

    // Logout: the app says so, and the next login asks for the password again.
    await page.getByTestId('logout-button').click();
    await page.getByTestId('signed-out-notice').waitFor();
    await page.getByTestId('login-button').click();
    await page.getByLabel('Password').waitFor();
    expect(consoleErrors.filter((e) => /favicon/.test(e))).toEqual([]);
    await page.context().close();
  });

  it("calls the demo's protected API from the SPA and the server-side example: the API checks the token and shows its claims", async () => {
    // Without a token: refused with a challenge naming the API's RFC 9728 metadata, which is served.
    const refused = await fetch(`${demo.nodeOrigin}/api/me`);
    expect(refused.status).toBe(401);
    const challenge = refused.headers.get('www-authenticate') ?? '';
    expect(challenge).toBe(`Bearer resource_metadata="${demo.nodeOrigin}/.well-known/oauth-protected-resource/api"`);
    expect(await (await fetch(`${demo.nodeOrigin}/.well-known/oauth-protected-resource/api`)).json()).toMatchObject({
      resource: `${demo.nodeOrigin}/api`,
      authorization_servers: [demo.issuer],
    });

    // The SPA: log in (the token is asked for the API's resource), then call the API from the browser.
    const page = await newPage();
    await page.goto(demo.spaOrigin);
    await page.getByTestId('login-button').click();
    await page.getByRole('button', { name: 'Continue as alice' }).click();
    const allow = page.getByRole('button', { name: 'Allow' });
    await allow.or(page.getByTestId('claims')).first().waitFor();
    if (await allow.isVisible()) await allow.click();
    await page.getByTestId('claims').waitFor();
    await page.getByTestId('demo-call-api-button').click();
    const result = page.getByTestId('demo-api-result');
    await result.waitFor();
    expect(await result.getAttribute('data-status')).toBe('200');
    const body = JSON.parse((await page.getByTestId('demo-api-body').textContent()) ?? '{}');
    expect(body).toMatchObject({ checkedBy: 'introspection', scheme: 'Bearer', sub: 'alice', client_id: 'spa', aud: `${demo.nodeOrigin}/api` });
    expect(body.scopes).toContain('openid');
    await page.context().close();

    // The server-side example calls the same API with its client-credentials token.
    const data = (await (await fetch(`${demo.nodeOrigin}/api/data`)).json()) as { protectedApi: unknown };
    expect(data.protectedApi).toMatchObject({ status: 200, body: { sub: 'service', client_id: 'service', aud: `${demo.nodeOrigin}/api` } });
  });

  it('signs in with one click as a demo user, forgets consent at the start page, and then Deny is reachable', async () => {
    const page = await newPage();
    await page.goto(demo.spaOrigin);
    await page.getByTestId('login-button').click();
    await page.getByRole('button', { name: 'Continue as bob' }).click(); // no password on the demo tenant
    const allow = page.getByRole('button', { name: 'Allow' });
    await allow.or(page.getByTestId('claims')).first().waitFor();
    if (await allow.isVisible()) await allow.click();
    expect(await page.getByTestId('claim-sub').textContent()).toBe('bob');

    // The start page knows this browser and forgets its consents.
    await page.goto(demo.issuer);
    expect(await page.locator('#signed-in-user').textContent()).toBe('bob');
    await page.getByRole('button', { name: 'Forget my consents' }).click();
    await page.locator('#consent-forgotten').waitFor();

    // Back in the app (a page load, so the tab signs in again): the server still knows bob and,
    // with the consent forgotten, asks again; Deny reads as a refusal in the app.
    await page.goto(demo.spaOrigin);
    await page.getByTestId('login-button').click();
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByTestId('auth-error').waitFor();
    expect(await page.getByTestId('error-code').textContent()).toBe('access_denied');
    await page.context().close();
  });

  it('serves the server-side example with real pages, a 404 page included', async () => {
    const page = await newPage();
    const home = await page.goto(demo.nodeOrigin);
    expect(home?.status()).toBe(200);
    expect(await page.locator('link[rel="stylesheet"], style').count()).toBeGreaterThan(0);
    const missing = await page.goto(`${demo.nodeOrigin}/no-such-page`);
    expect(missing?.status()).toBe(404);
    expect(missing?.headers()['content-type']).toMatch(/text\/html/);
    await page.getByRole('link').first().waitFor();
    await page.context().close();
  });

  it('stops everything on Ctrl-C', async () => {
    expect(await demo.interrupt()).toBe(0);
    for (const port of Object.values(demo.ports)) {
      const server = await occupy(port); // free again: nothing is left listening
      server.close();
    }
  });
});
