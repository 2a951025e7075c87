// @vitest-environment node
/**
 * The par part in real Chromium, logging in through the reference server's real login page with
 * public clients registered (through the control API) to require pushed authorization requests:
 * the page pushes cross-origin (the server's CORS answers), the browser's navigation to the
 * authorize endpoint carries `client_id` and `request_uri` and nothing else, and the login
 * completes. With `dpop()` beside it (a client that also requires DPoP) the key's thumbprint is
 * pushed (`dpop_jkt` in the pushed form, not in the URL), so the code is bound at push time and
 * only this key redeems it: the tokens are DPoP-bound (refused as Bearer).
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserClient } from '../../src/index';
import { type ChromiumApp, type Reference, startChromiumApp } from '../support/chromium-app';
import { signInOnProviderPages } from '../support/provider-pages';

declare global {
  interface Window {
    oidcRp: typeof import('../../src/index');
    client: BrowserClient;
    issuer: string;
    /** Set by the test for the whole profile: which registered client the app is, and whether it has dpop(). */
    app: { clientId: string; dpop: boolean };
  }
}

let env: ChromiumApp;
let appOrigin: string;
let reference: Reference;
let issuer: string;

// The app: every path serves the page; the page creates the client (with par()) and runs init().
const PAGE = `<!doctype html><title>app</title><script src="/sdk.js"></script><script src="/config.js"></script><script>
  const { createBrowserClient, discovery, dpop, par } = window.oidcRp;
  window.client = createBrowserClient({
    provider: discovery(window.issuer),
    clientId: window.app.clientId,
    redirectUri: location.origin + '/callback',
    par: par(),
    ...(window.app.dpop ? { dpop: dpop() } : {}),
  });
  void window.client.init();
</script>`;

beforeAll(async () => {
  env = await startChromiumApp({
    page: PAGE,
    clients: (origin) => {
      // Public clients (no secret) that must push; the second also requires DPoP.
      const registration = {
        redirect_uris: [`${origin}/callback`],
        grant_types: ['authorization_code' as const, 'refresh_token' as const],
        scopes: ['openid', 'profile', 'email', 'offline_access'],
        require_pushed_authorization_requests: true,
      };
      return [
        { client_id: 'spa-par', ...registration },
        { client_id: 'spa-par-dpop', ...registration, require_dpop: true },
      ];
    },
  });
  ({ reference, issuer } = env);
  appOrigin = env.app.origin;
});

afterAll(() => env?.close());

/** A fresh profile in which the app is `clientId` (with dpop() when asked). */
const profile = (clientId: string, dpop = false): Promise<BrowserContext> => env.profile({ app: { clientId, dpop } });

/** What the page sent: the pushed form (POST to the PAR endpoint) and the authorize URL it navigated to. */
function record(page: Page) {
  const seen = { pushed: [] as URLSearchParams[], authorize: [] as URL[] };
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.href === `${issuer}/oauth/par` && request.method() === 'POST') seen.pushed.push(new URLSearchParams(request.postData() ?? ''));
    if (url.href.startsWith(`${issuer}/oidc/authorize`)) seen.authorize.push(url);
  });
  return seen;
}

/** Logs in through the real login and consent pages; back on the app, signed in. */
async function logIn(page: Page): Promise<void> {
  await page.evaluate(() => void window.client.login());
  await signInOnProviderPages(page, appOrigin);
}

const pushes = (after: number, clientId: string) =>
  reference.requests().filter((entry) => entry.seq > after && entry.endpoint === '/oauth/par' && entry.method === 'POST' && entry.client_id === clientId);
const lastSeq = () => reference.requests().at(-1)?.seq ?? 0;

describe('the par part in Chromium (PAR required for the public client)', () => {
  it('pushes from the page and navigates to the authorize endpoint with client_id and request_uri only', async () => {
    const context = await profile('spa-par');
    const page = await context.newPage();
    const seen = record(page);
    await page.goto(`${appOrigin}/`);
    const before = lastSeq();
    await logIn(page);

    expect(seen.authorize).toHaveLength(1);
    expect([...seen.authorize[0]!.searchParams]).toEqual([
      ['client_id', 'spa-par'],
      ['request_uri', expect.stringMatching(/^urn:ietf:params:oauth:request_uri:/)],
    ]);
    expect(seen.pushed).toHaveLength(1);
    const pushed = Object.fromEntries(seen.pushed[0]!);
    expect(pushed).toMatchObject({ client_id: 'spa-par', response_type: 'code', redirect_uri: `${appOrigin}/callback`, code_challenge_method: 'S256' });
    for (const name of ['state', 'nonce', 'code_challenge']) expect(pushed[name]).toMatch(/^[\w-]{22,}$/);
    expect(pushes(before, 'spa-par').map((entry) => entry.status)).toEqual([201]);
    // The session works: a refresh, and the callback's code and state are gone from the address bar.
    expect(new URL(page.url()).search).toBe('');
    expect(await page.evaluate(async () => typeof (await window.client.getAccessToken({ forceRefresh: true })))).toBe('string');
    await context.close();
  });

  it('with dpop(), binds the code to the key at push time: dpop_jkt in the pushed form, tokens refused as Bearer', async () => {
    const context = await profile('spa-par-dpop', true);
    const page = await context.newPage();
    const seen = record(page);
    await page.goto(`${appOrigin}/`);
    await logIn(page);

    const jkt = await page.evaluate(async () => (await window.client.dpop!.handle()).jkt);
    expect(seen.pushed[0]!.get('dpop_jkt')).toBe(jkt);
    expect([...seen.authorize[0]!.searchParams.keys()]).toEqual(['client_id', 'request_uri']);
    const statuses = await page.evaluate(async () => {
      const token = await window.client.getAccessToken();
      const userinfo = `${window.issuer}/oidc/userinfo`;
      const asDpop = await window.oidcRp.authorizedFetch(window.client)(userinfo);
      const asBearer = await fetch(userinfo, { headers: { Authorization: `Bearer ${token}` } });
      return [asDpop.status, asBearer.status];
    });
    expect(statuses).toEqual([200, 401]);
    await context.close();
  });

  it('a login of a provider that does not offer PAR fails with invalid_options and goes nowhere', async () => {
    const context = await profile('spa-par');
    const page = await context.newPage();
    await page.goto(`${appOrigin}/`);
    const outcome = await page.evaluate(async () => {
      const { createBrowserClient, par, serviceProvider } = window.oidcRp;
      // The service's documented endpoints, which name no PAR endpoint.
      const bare = createBrowserClient({ provider: serviceProvider(window.issuer), clientId: 'spa-par', redirectUri: `${location.origin}/callback`, par: par() });
      return bare.login().then(
        () => 'redirected',
        (error: { code: string }) => error.code,
      );
    });
    expect(outcome).toBe('invalid_options');
    expect(new URL(page.url()).origin).toBe(appOrigin);
    await context.close();
  });
});
