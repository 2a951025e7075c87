// @vitest-environment node
/**
 * The pinned signing algorithm (`signingAlgorithm`) in real Chromium, against the reference
 * server over real HTTP: its `id_token_wrong_alg` fault signs the ID token ES256 by a key it
 * publishes (the tenant signs RS256) and lists ES256 in discovery, as a provider that signs
 * with several algorithms does. A client registered for RS256 and pinned to it refuses the
 * token: not signed in, nothing stored, no userinfo call; one that pins nothing takes it.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserClient } from '../../src/index';
import { type ChromiumApp, startChromiumApp } from '../support/chromium-app';
import { signInOnLoginForm } from '../support/provider-pages';

declare global {
  interface Window {
    oidcRp: typeof import('../../src/index');
    client: BrowserClient;
    issuer: string;
    /** Set by the test for the whole profile: the client's options beside the page's (its pinned algorithm, if any). */
    clientOptions: { signingAlgorithm?: string };
  }
}

let env: ChromiumApp;
let appOrigin: string;
let reference: ChromiumApp['reference'];
const CLIENT = 'spa-pinned';

// The app: every path serves the page; the page creates the client and runs init().
const PAGE = `<!doctype html><title>app</title><script src="/sdk.js"></script><script src="/config.js"></script><script>
  const { createBrowserClient, discovery } = window.oidcRp;
  window.client = createBrowserClient({
    provider: discovery(window.issuer),
    clientId: ${JSON.stringify(CLIENT)},
    redirectUri: location.origin + '/callback',
    scope: 'openid profile email',
    tokenStorage: 'sessionStorage',
    ...window.clientOptions,
  });
  void window.client.init();
</script>`;

beforeAll(async () => {
  env = await startChromiumApp({
    page: PAGE,
    clients: (origin) => [
      {
        client_id: CLIENT,
        redirect_uris: [`${origin}/callback`],
        grant_types: ['authorization_code', 'refresh_token'],
        scopes: ['openid', 'profile', 'email', 'offline_access'],
        skip_consent: true,
      },
    ],
  });
  ({ reference } = env);
  appOrigin = env.app.origin;
});

afterAll(() => env?.close());

/** A fresh profile whose app creates the client with `clientOptions` beside the page's own. */
const profile = (clientOptions: Window['clientOptions']): Promise<BrowserContext> => env.profile({ clientOptions });

/**
 * Logs in from the app's home page, on the provider's real login form unless the provider
 * already knows the browser (SSO); resolves back on the app once the callback is handled.
 */
async function logIn(page: Page): Promise<{ status: string; code: string | undefined; message: string | undefined }> {
  await page.goto(`${appOrigin}/`);
  await page.evaluate(() => void window.client.login());
  await signInOnLoginForm(page, appOrigin);
  await page.waitForFunction(() => window.client !== undefined && window.client.getSnapshot().status !== 'loading');
  return page.evaluate(() => {
    const { status, error } = window.client.getSnapshot();
    return { status, code: error?.code, message: error?.message };
  });
}

const userinfoCalls = () => reference.requests().filter((entry) => entry.endpoint === '/oidc/userinfo').length;

describe('signingAlgorithm in Chromium: an ID token signed with another algorithm by a published key', () => {
  it('pinned to RS256: refused with id_token_alg_not_allowed naming both; not signed in, nothing stored, no userinfo call', async () => {
    await reference.control.faults.set(CLIENT, 'id_token_wrong_alg');
    const context = await profile({ signingAlgorithm: 'RS256' });
    const page = await context.newPage();
    const before = userinfoCalls();
    const outcome = await logIn(page);
    expect(outcome).toMatchObject({ status: 'error', code: 'id_token_alg_not_allowed' });
    expect(outcome.message).toMatch(/"alg" is "ES256", but the client is registered for "RS256"/);
    const after = await page.evaluate(async () => ({
      user: window.client.getUser() ?? null,
      token: await window.client.getAccessToken().then(
        () => 'a token',
        (error: { code: string }) => error.code,
      ),
      stored: Object.keys(sessionStorage).filter((key) => key.startsWith('oidc-rp.session')),
    }));
    expect(after).toEqual({ user: null, token: 'login_required', stored: [] });
    expect(userinfoCalls()).toBe(before);

    // The same client signs in once the provider signs with the registered algorithm again.
    await reference.control.faults.clear(CLIENT);
    expect(await logIn(page)).toMatchObject({ status: 'authenticated' });
    await context.close();
  });

  it('a client that pins nothing takes it (the provider lists ES256): what the option is for', async () => {
    await reference.control.faults.set(CLIENT, 'id_token_wrong_alg');
    const context = await profile({});
    const page = await context.newPage();
    expect(await logIn(page)).toMatchObject({ status: 'authenticated' });
    await reference.control.faults.clear(CLIENT);
    await context.close();
  });

  it('a signingAlgorithm that is not one asymmetric algorithm fails the callback with invalid_options, and nothing is stored', async () => {
    const context = await profile({ signingAlgorithm: 'HS256' });
    const page = await context.newPage();
    expect(await logIn(page)).toMatchObject({ status: 'error', code: 'invalid_options' });
    expect(await page.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith('oidc-rp.session')))).toEqual([]);
    await context.close();
  });
});
