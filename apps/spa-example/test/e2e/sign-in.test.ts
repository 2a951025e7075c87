import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, type Harness, logInThroughForms, recordExchanges, responseFrom, screenshotDir, startHarness } from './harness';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness?.close());

describe('signing in to the example app in Chromium', () => {
  it('logs in through the real login form and consent page, then shows the user’s claims', async () => {
    const context = await harness.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${harness.appOrigin}/`);
      await page.locator('[data-testid="status"][data-status="unauthenticated"]').waitFor();

      // The first login of this server's lifetime: the consent page is shown and answered.
      expect(await logInThroughForms(page)).toEqual({ consentAsked: true });
      await page.getByTestId('claims').waitFor();

      // Back on the start page, with code and state gone from the address bar.
      expect(page.url()).toBe(`${harness.appOrigin}/`);
      expect(await page.getByTestId('status').getAttribute('data-status')).toBe('authenticated');
      expect(await page.getByTestId('claim-sub').textContent()).toBe('alice');
      expect(await page.getByTestId('claim-name').textContent()).toBe('Alice Liddell');
      expect(await page.getByTestId('claim-email').textContent()).toBe('alice@example.com');
      expect(await page.getByTestId('claim-iss').textContent()).toBe(harness.issuer);
      expect(await page.getByTestId('claim-aud').textContent()).toContain('spa');

    } finally {
      await context.close();
    }
  });

  it('keeps tokens in memory by default: nothing in web storage, a reload signs the tab out, and the next login is single sign-on', async () => {
    const context = await harness.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${harness.appOrigin}/`);
      await logInThroughForms(page);
      await page.getByTestId('claims').waitFor();
      const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
      expect(stored).not.toMatch(/refresh|access_?token|id_?token/i);
      expect(await page.evaluate(() => indexedDB.databases())).toEqual([]);

      // The cost of the default: a reload forgets the tokens...
      await page.reload();
      await page.locator('[data-testid="status"][data-status="unauthenticated"]').waitFor();
      // ...and logging in again goes through the provider's session, without the password form
      // (and without the consent page: it was given at the first login, and the service asks only when it was not).
      await page.getByTestId('login-button').click();
      await page.getByTestId('claims').waitFor();
      expect(await page.getByLabel('Password').count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Allow' }).count()).toBe(0);
      expect(await page.getByTestId('claim-sub').textContent()).toBe('alice');
    } finally {
      await context.close();
    }
  });

  it('with indexedDB, keeps the session across a reload, bound to a non-extractable DPoP key, and calls the API with DPoP', async () => {
    const context = await harness.newContext({ tokenStorage: 'indexedDB' });
    try {
      const page = await context.newPage();
      const serverOrigin = new URL(harness.issuer).origin;
      const exchanges = recordExchanges(page, serverOrigin);
      await page.goto(`${harness.appOrigin}/`);
      await logInThroughForms(page);
      await page.getByTestId('claims').waitFor();

      // A reload: still signed in, without a login.
      await page.reload();
      await page.getByTestId('claims').waitFor();
      expect(await page.getByTestId('status').getAttribute('data-status')).toBe('authenticated');

      const delivered = responseFrom(page, serverOrigin, '/demo/oidc/userinfo');
      const result = await callApi(page, 1);
      await delivered;
      expect(result.status).toBe('200');
      const calls = exchanges.filter((e) => e.path === '/demo/oidc/userinfo');
      expect(calls.map((e) => e.authorization?.split(' ')[0])).toEqual(['DPoP']);

      // The key is in IndexedDB, and no script can export it.
      const exported = await page.evaluate(async () => {
        const db = await new Promise<IDBDatabase>((resolve, reject) => {
          const request = indexedDB.open('oidc-rp');
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => reject(request.error);
        });
        const names = await new Promise<IDBValidKey[]>((resolve) => {
          const request = db.transaction('kv').objectStore('kv').getAllKeys();
          request.onsuccess = () => resolve(request.result);
        });
        const name = names.map(String).find((key) => key.startsWith('oidc-rp.dpop:'));
        const pair = await new Promise<CryptoKeyPair>((resolve) => {
          const request = db.transaction('kv').objectStore('kv').get(name ?? '');
          request.onsuccess = () => resolve(request.result as CryptoKeyPair);
        });
        db.close();
        return crypto.subtle.exportKey('jwk', pair.privateKey).then(
          () => 'exported',
          (error: Error) => error.name,
        );
      });
      expect(exported).toBe('InvalidAccessError');
    } finally {
      await context.close();
    }
  });

  it('calls the protected API on the server’s origin with the access token', async () => {
    const context = await harness.newContext();
    try {
      const page = await context.newPage();
      const serverOrigin = new URL(harness.issuer).origin;
      const exchanges = recordExchanges(page, serverOrigin);
      await page.goto(`${harness.appOrigin}/`);
      await logInThroughForms(page);
      await page.getByTestId('claims').waitFor();

      const delivered = responseFrom(page, serverOrigin, '/demo/oidc/userinfo');
      const result = await callApi(page, 1);
      await delivered;
      expect(result.status).toBe('200');
      expect(JSON.parse(result.body)).toMatchObject({ sub: 'alice', name: 'Alice Liddell' });

      const userinfo = exchanges.filter((e) => e.path === '/demo/oidc/userinfo');
      expect(userinfo).toHaveLength(1);
      expect(userinfo[0]?.status).toBe(200);
      expect(userinfo[0]?.authorization).toMatch(/^Bearer \S+$/);
      expect(new URL(harness.issuer).origin).not.toBe(harness.appOrigin);

      // For a person to look at: the signed-in page with its claims and the API result.
      mkdirSync(screenshotDir, { recursive: true });
      await page.screenshot({ path: `${screenshotDir}/signed-in.png`, fullPage: true });
    } finally {
      await context.close();
    }
  });

  it('sends a signed-out visitor of a protected page to log in, then back to that page', async () => {
    const context = await harness.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${harness.appOrigin}/protected?tab=settings`);
      // RequireAuth starts the login by itself: the next thing the user sees is the login form.
      await logInThroughForms(page, { startWithButton: false });
      await page.getByTestId('protected-content').waitFor();
      expect(page.url()).toBe(`${harness.appOrigin}/protected?tab=settings`);
      expect(await page.getByTestId('protected-content').textContent()).toContain('Alice Liddell');
    } finally {
      await context.close();
    }
  });

  it('logs out: the session is gone, the refresh token revoked, and nothing is left in storage', async () => {
    const context = await harness.newContext();
    try {
      const page = await context.newPage();
      const serverOrigin = new URL(harness.issuer).origin;
      const exchanges = recordExchanges(page, serverOrigin);
      await page.goto(`${harness.appOrigin}/`);
      await logInThroughForms(page);
      await page.getByTestId('claims').waitFor();
      const delivered = responseFrom(page, serverOrigin, '/demo/oidc/userinfo');
      expect((await callApi(page, 1)).status).toBe('200');
      await delivered;
      const accessToken = exchanges.find((e) => e.path === '/demo/oidc/userinfo')?.authorization?.slice('Bearer '.length);
      expect(accessToken).toBeTruthy();

      // Out through the provider's logout endpoint, which redirects back to the app's start page.
      const backHome = page.waitForEvent('framenavigated', {
        predicate: (frame) => frame === page.mainFrame() && frame.url() === `${harness.appOrigin}/`,
      });
      const revoked = responseFrom(page, serverOrigin, '/demo/oauth/revoke');
      const loggedOut = responseFrom(page, serverOrigin, '/demo/oidc/logout');
      await page.getByTestId('logout-button').click();
      await Promise.all([backHome, revoked, loggedOut]);
      await page.locator('[data-testid="status"][data-status="unauthenticated"]').waitFor();
      expect(await page.getByTestId('claims').count()).toBe(0);
      expect(exchanges.filter((e) => e.path === '/demo/oauth/revoke').map((e) => e.status)).toEqual([200]);
      expect(exchanges.filter((e) => e.path === '/demo/oidc/logout').map((e) => e.status)).toEqual([302]);

      // Not restored on reload, and no token survives in the page's storage.
      await page.reload();
      await page.locator('[data-testid="status"][data-status="unauthenticated"]').waitFor();
      const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
      expect(stored.includes(accessToken as string)).toBe(false); // never print a token

      // The provider's session ended too: logging in again asks for the password.
      await page.getByTestId('login-button').click();
      await page.getByLabel('Password').waitFor();
    } finally {
      await context.close();
    }
  });
});
