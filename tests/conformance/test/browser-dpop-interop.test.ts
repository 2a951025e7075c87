// @vitest-environment node
// DPoP (RFC 9449) through @oidc-rp/browser's dpop() part in real Chromium against oidc-provider (a
// certified OpenID Provider) with DPoP-bound tokens and server nonces required, over real HTTP on
// 127.0.0.1: a code-flow login with dpop_jkt, refresh, userinfo, all from the page (cross-origin,
// so the provider's CORS answers, DPoP-Nonce among its exposed headers, matter). The person's part,
// signing in on the provider's forms, is done by the support driver; the page is sent back to the
// callback URL the provider answered with. The provider is the judge: a proof it refuses, or a
// token not bound to the key, fails these tests.
import type { Browser, Page } from 'playwright-core';
import { connectChromium } from './support/chromium';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PageServer, startPageServer } from '../../../test-support/page-server';
import { bundleInstalledBrowserSdk } from './support/installed-sdk';
import { type InteropClient, type RunningOidcProvider, startOidcProvider } from './support/oidc-provider';

// Playwright reports a response's events a little after the page has it; on a loaded machine
// that can take seconds, so waits on the recorded requests are bounded generously.
const EVENT_WAIT = 15_000;

declare global {
  interface Window {
    oidcRp: typeof import('@oidc-rp/browser');
    client: import('@oidc-rp/browser').BrowserClient;
    issuer: string;
    /** Where login() sent the page (recorded: the test signs in, then opens the callback). */
    authorizeUrl?: string;
  }
}

let app: PageServer;
let appOrigin: string;
let op: RunningOidcProvider;
let browser: Browser;

// The SPA: the documented setup for a session that survives reloads, dpop() with crossTab({ storage: 'indexedDB' }).
const PAGE = `<!doctype html><title>spa</title><script src="/sdk.js"></script><script src="/config.js"></script><script>
  const { browserNavigation, createBrowserClient, crossTab, discovery, dpop } = window.oidcRp;
  window.client = createBrowserClient({
    provider: discovery(window.issuer),
    clientId: 'dpop-spa',
    redirectUri: location.origin + '/callback',
    dpop: dpop(),
    crossTab: crossTab({ storage: 'indexedDB' }),
    navigate: { ...browserNavigation(), redirect: (url) => { window.authorizeUrl = url; } },
  });
  void window.client.init();
</script>`;

beforeAll(async () => {
  app = await startPageServer({ script: await bundleInstalledBrowserSdk(), page: PAGE, issuer: () => op.issuer });
  appOrigin = app.origin;
  const clients: InteropClient[] = [
    {
      client_id: 'dpop-spa',
      token_endpoint_auth_method: 'none',
      redirect_uris: [`${appOrigin}/callback`],
      grant_types: ['authorization_code', 'refresh_token'],
      dpop_bound_access_tokens: true,
    },
  ];
  op = await startOidcProvider(clients, { dpop: { requireNonce: true } });
  browser = await connectChromium();
});

afterAll(async () => {
  await browser?.close();
  await op?.close();
  await app?.close();
});

/** What the page sent to the provider (CORS preflights left out): path, status, the proof's nonce and the Authorization scheme. */
function record(page: Page) {
  const sent: { path: string; status: number; nonce?: string; scheme?: string }[] = [];
  // Recorded when the request starts (synchronously, so none is missed), its status when the
  // response comes: Playwright's later per-request events were seen to skip one under load.
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin !== op.issuer || request.method() === 'OPTIONS') return;
    const headers = request.headers();
    const proof = headers.dpop;
    const nonce = proof ? (JSON.parse(Buffer.from(proof.split('.')[1] ?? '', 'base64url').toString()) as { nonce?: string }).nonce : undefined;
    const entry = { path: url.pathname, status: 0, nonce, scheme: headers.authorization?.split(' ')[0] };
    sent.push(entry);
    request.response().then(
      (response) => {
        entry.status = response?.status() ?? 0;
      },
      () => undefined,
    );
  });
  return sent;
}

describe('@oidc-rp/browser with dpop() in Chromium against oidc-provider (DPoP and nonces required)', () => {
  it('logs in with dpop_jkt, refreshes and calls userinfo with DPoP-bound tokens, one nonce retry each time the provider asks', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const sent = record(page);
    await page.goto(`${appOrigin}/`);
    await page.evaluate(() => window.client.login());
    const authorizeUrl = new URL((await page.evaluate(() => window.authorizeUrl)) ?? '');
    const jkt = await page.evaluate(async () => (await window.client.dpop!.handle()).jkt);
    expect(authorizeUrl.searchParams.get('dpop_jkt')).toBe(jkt);

    const callback = await op.signIn(authorizeUrl);
    if (callback.type !== 'redirect') throw new Error(`expected a redirect, got ${callback.type}`);
    await page.goto(callback.location);
    await page.waitForFunction(() => window.client.getSnapshot().status !== 'loading');
    expect(await page.evaluate(() => window.client.getSnapshot().error?.code)).toBeUndefined();
    expect(await page.evaluate(() => window.client.getSnapshot().user?.sub)).toBe('alice');
    // The exchange: refused once for want of a nonce, then accepted with it (events may come after the page is done).
    await expect.poll(() => sent.some((s) => s.path === '/token' && s.status === 200), { timeout: EVENT_WAIT }).toBe(true);
    expect(sent.filter((s) => s.path === '/token').map(({ status, nonce }) => ({ status, nonce: nonce !== undefined }))).toEqual([
      { status: 400, nonce: false },
      { status: 200, nonce: true },
    ]);

    // Refresh with a proof by the same key (oidc-provider binds a public client's refresh token to it).
    sent.length = 0;
    const [before, after] = await page.evaluate(async () => [await window.client.getAccessToken(), await window.client.getAccessToken({ forceRefresh: true })]);
    expect(after).not.toBe(before);
    await expect.poll(() => sent.some((s) => s.path === '/token' && s.status === 200), { timeout: EVENT_WAIT }).toBe(true);
    const refreshes = sent.filter((s) => s.path === '/token');
    expect(refreshes.at(-1)?.status).toBe(200);
    expect(refreshes.length).toBeLessThanOrEqual(2); // a nonce retry at most, if the provider's nonce moved on

    // Userinfo and a resource call, as DPoP, never Bearer.
    sent.length = 0;
    expect(await page.evaluate(async () => (await window.oidcRp.getUserInfo(window.client)).sub)).toBe('alice');
    const status = await page.evaluate(async () => {
      const response = await window.oidcRp.authorizedFetch(window.client)(`${window.issuer}/me`);
      await response.text();
      return response.status;
    });
    expect(status).toBe(200);
    await expect.poll(() => sent.filter((s) => s.path === '/me' && s.status === 200).length, { timeout: EVENT_WAIT }).toBe(2);
    const calls = sent.filter((s) => s.path === '/me');
    expect(calls.every((s) => s.scheme === 'DPoP' && s.nonce !== undefined)).toBe(true);
    expect(calls.at(-1)?.status).toBe(200);

    // A reload keeps the session (IndexedDB), and the key still proves it.
    await page.reload();
    expect(await page.evaluate(async () => (await window.client.init()).status)).toBe('authenticated');
    expect(await page.evaluate(async () => (await window.client.dpop!.handle()).jkt)).toBe(jkt);
    expect(await page.evaluate(async () => (await window.oidcRp.getUserInfo(window.client)).email)).toBe('alice@example.com');
    await context.close();
  });
});
