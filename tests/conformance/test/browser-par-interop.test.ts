// @vitest-environment node
// Pushed authorization requests (RFC 9126) through @oidc-rp/browser's par() part in real Chromium
// against oidc-provider (a certified OpenID Provider) with PAR required for every client, over
// real HTTP on 127.0.0.1: public clients push from the page (cross-origin, so the provider's
// CORS answers for its PAR endpoint matter), the authorize URL carries client_id and request_uri
// only, and the login, refresh and userinfo work; with dpop() the key's dpop_jkt goes in the
// push, and the provider binds the tokens to it. Without the part the provider refuses the login.
// The person's part, signing in on the provider's forms, is done by the support driver; the page
// is sent back to the callback URL the provider answered with. The provider is the judge.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { connectChromium } from './support/chromium';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PageServer, startPageServer } from '../../../test-support/page-server';
import { bundleInstalledBrowserSdk } from './support/installed-sdk';
import { type InteropClient, type RunningOidcProvider, startOidcProvider } from './support/oidc-provider';

// Playwright reports a response's events a little after the page has it; bounded generously.
const EVENT_WAIT = 15_000;

declare global {
  interface Window {
    oidcRp: typeof import('@oidc-rp/browser');
    client: import('@oidc-rp/browser').BrowserClient;
    issuer: string;
    /** Set by the test for the profile: which registered client the app is, and its parts. */
    app: { clientId: string; par: boolean; dpop: boolean };
    /** Where login() sent the page (recorded: the test signs in, then opens the callback). */
    authorizeUrl?: string;
  }
}

let app: PageServer;
let appOrigin: string;
let op: RunningOidcProvider;
let browser: Browser;

const PAGE = `<!doctype html><title>spa</title><script src="/sdk.js"></script><script src="/config.js"></script><script>
  const { browserNavigation, createBrowserClient, discovery, dpop, par } = window.oidcRp;
  window.client = createBrowserClient({
    provider: discovery(window.issuer),
    clientId: window.app.clientId,
    redirectUri: location.origin + '/callback',
    ...(window.app.par ? { par: par() } : {}),
    ...(window.app.dpop ? { dpop: dpop() } : {}),
    navigate: { ...browserNavigation(), redirect: (url) => { window.authorizeUrl = url; } },
  });
  void window.client.init();
</script>`;

beforeAll(async () => {
  app = await startPageServer({ script: await bundleInstalledBrowserSdk(), page: PAGE, issuer: () => op.issuer });
  appOrigin = app.origin;
  // Public clients (no secret, PKCE); the second one's tokens are always DPoP-bound.
  const spa = (client_id: string): InteropClient => ({
    client_id,
    token_endpoint_auth_method: 'none',
    redirect_uris: [`${appOrigin}/callback`],
    grant_types: ['authorization_code', 'refresh_token'],
  });
  const clients = [spa('par-spa'), { ...spa('par-dpop-spa'), dpop_bound_access_tokens: true }];
  op = await startOidcProvider(clients, { par: { required: true }, dpop: { requireNonce: false } });
  browser = await connectChromium();
});

afterAll(async () => {
  await browser?.close();
  await op?.close();
  await app?.close();
});

async function profile(settings: Window['app']): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  context.setDefaultTimeout(10_000);
  await context.addInitScript((value) => {
    window.app = value;
  }, settings);
  const page = await context.newPage();
  return { context, page };
}

/** The page's POSTs to the provider's PAR endpoint: the pushed form and the status answered. */
function recordPushes(page: Page) {
  const pushes: { form: URLSearchParams; status: number }[] = [];
  page.on('request', (request) => {
    if (request.method() !== 'POST' || !request.url().startsWith(op.issuer) || !request.url().includes('/request')) return;
    const entry = { form: new URLSearchParams(request.postData() ?? ''), status: 0 };
    pushes.push(entry);
    request.response().then(
      (response) => {
        entry.status = response?.status() ?? 0;
      },
      () => undefined,
    );
  });
  return pushes;
}

/** login() in the page, alice signs in on the provider's forms, the page opens the callback. */
async function logIn(page: Page): Promise<URL> {
  await page.evaluate(() => window.client.login());
  const authorizeUrl = new URL((await page.evaluate(() => window.authorizeUrl)) ?? '');
  const callback = await op.signIn(authorizeUrl);
  if (callback.type !== 'redirect') throw new Error(`expected a redirect, got ${callback.type}`);
  await page.goto(callback.location);
  await page.waitForFunction(() => window.client.getSnapshot().status !== 'loading');
  return authorizeUrl;
}

describe('@oidc-rp/browser with par() in Chromium against oidc-provider (PAR required)', () => {
  it('pushes from the page, goes to authorize with client_id and request_uri only, and logs in', async () => {
    const { context, page } = await profile({ clientId: 'par-spa', par: true, dpop: false });
    const pushes = recordPushes(page);
    await page.goto(`${appOrigin}/`);
    const provider = await page.evaluate(() => window.client.getProvider());
    expect(provider.require_pushed_authorization_requests).toBe(true);
    const authorizeUrl = await logIn(page);

    expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(provider.authorization_endpoint);
    expect([...authorizeUrl.searchParams.keys()]).toEqual(['client_id', 'request_uri']);
    expect(authorizeUrl.searchParams.get('request_uri')).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    await expect.poll(() => pushes.map((push) => push.status), { timeout: EVENT_WAIT }).toEqual([201]);
    expect(Object.fromEntries(pushes[0]!.form)).toMatchObject({ client_id: 'par-spa', response_type: 'code', code_challenge_method: 'S256', redirect_uri: `${appOrigin}/callback` });
    for (const name of ['state', 'nonce', 'code_challenge']) expect(pushes[0]!.form.get(name)).toMatch(/^[\w-]{22,}$/);

    expect(await page.evaluate(() => window.client.getSnapshot().error?.code)).toBeUndefined();
    expect(await page.evaluate(() => window.client.getSnapshot().user?.sub)).toBe('alice');
    const [before, after] = await page.evaluate(async () => [await window.client.getAccessToken(), await window.client.getAccessToken({ forceRefresh: true })]);
    expect(after).not.toBe(before);
    expect(await page.evaluate(async () => (await window.oidcRp.getUserInfo(window.client)).email)).toBe('alice@example.com');
    await context.close();
  });

  it('with dpop(), pushes dpop_jkt: the provider binds the tokens to the key (userinfo as DPoP, never Bearer)', async () => {
    const { context, page } = await profile({ clientId: 'par-dpop-spa', par: true, dpop: true });
    const pushes = recordPushes(page);
    await page.goto(`${appOrigin}/`);
    const authorizeUrl = await logIn(page);
    expect([...authorizeUrl.searchParams.keys()]).toEqual(['client_id', 'request_uri']);
    const jkt = await page.evaluate(async () => (await window.client.dpop!.handle()).jkt);
    await expect.poll(() => pushes.map((push) => push.status), { timeout: EVENT_WAIT }).toEqual([201]);
    expect(pushes[0]!.form.get('dpop_jkt')).toBe(jkt);

    expect(await page.evaluate(() => window.client.getSnapshot().error?.code)).toBeUndefined();
    const statuses = await page.evaluate(async () => {
      const token = await window.client.getAccessToken();
      const userinfo = (await window.client.getProvider()).userinfo_endpoint!;
      const asDpop = await window.oidcRp.authorizedFetch(window.client)(userinfo);
      const asBearer = await fetch(userinfo, { headers: { Authorization: `Bearer ${token}` } });
      return [asDpop.status, asBearer.status];
    });
    expect(statuses).toEqual([200, 401]);
    await context.close();
  });

  it('without the part, the provider refuses the login: authorization_error invalid_request at the callback', async () => {
    const { context, page } = await profile({ clientId: 'par-spa', par: false, dpop: false });
    await page.goto(`${appOrigin}/`);
    const authorizeUrl = await logIn(page);
    expect(authorizeUrl.searchParams.has('code_challenge')).toBe(true);
    expect(await page.evaluate(() => window.client.getSnapshot().status)).toBe('error');
    const error = await page.evaluate(() => {
      const { code, error } = window.client.getSnapshot().error as { code: string; error?: string };
      return { code, error };
    });
    expect(error).toEqual({ code: 'authorization_error', error: 'invalid_request' });
    await context.close();
  });
});
