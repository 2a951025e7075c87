/**
 * End-to-end harness: the reference server and the BUILT example app, both on port 0, and a
 * headless Debian Chromium. The app learns the server's issuer from its runtime /config.js, which
 * the preview server writes per browser context (so a test can pick its token storage): from a
 * cookie the context carries, not by intercepting the page's requests (an intercepting route
 * sends every request of the context through the test process and turns Chromium's cache off).
 */
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createReferenceServer, demoConfig } from '@oidc-rp/reference-server';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { connectChromium } from './chromium';
import { type PreviewServer, preview } from 'vite';

const appRoot = fileURLToPath(new URL('../..', import.meta.url));
export const screenshotDir = fileURLToPath(new URL('./__screenshots__/', import.meta.url));

export type TokenStorage = 'memory' | 'sessionStorage' | 'indexedDB';

export interface Harness {
  appOrigin: string;
  issuer: string;
  /** Opens a fresh context (own cookies and storage) with the app configured for `tokenStorage` (default: the app's default). */
  newContext(options?: { tokenStorage?: TokenStorage; fakeClock?: boolean }): Promise<BrowserContext>;
  /** Moves the server's clock and the context's page clock forward together. */
  advanceClocks(context: BrowserContext, seconds: number): Promise<void>;
  /**
   * What the server answered (its request journal, CORS preflights left out), oldest first.
   * Each entry is recorded before its response is sent, so once the page shows what it got,
   * every exchange behind it is here: unlike Playwright's 'response' events, which may reach
   * the test after the page has rendered the result. `after` is the `seq` of an earlier entry.
   */
  answered(after?: number): Answer[];
  close(): Promise<void>;
}

/** One response of the reference server, as its journal recorded it. */
export interface Answer {
  /** Position in the journal: later answers have larger ones. */
  seq: number;
  method: string;
  path: string;
  status: number;
}

/** Starts everything; `accessTokenLifetime` (seconds) applies to the demo tenant. */
export async function startHarness({ accessTokenLifetime = 3600 } = {}): Promise<Harness> {
  if (!existsSync(`${appRoot}/dist/index.html`)) {
    throw new Error('apps/spa-example/dist is missing: run `pnpm --filter @oidc-rp/spa-example build` first.');
  }
  const cleanups: Array<() => Promise<unknown>> = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    // The app's origin is only known once it listens, and the server's config needs it; the
    // issuer is known once the server listens, before any page asks for /config.js.
    let issuer = '';
    const app = await preview({
      root: appRoot,
      configFile: false,
      logLevel: 'silent',
      preview: { host: '127.0.0.1', port: 0, strictPort: true },
      plugins: [{ name: 'e2e-runtime-config', configurePreviewServer: (server: PreviewServer) => void server.middlewares.use(runtimeConfigScript(() => issuer)) }],
    });
    cleanups.push(() => app.close());
    const appUrl = app.resolvedUrls?.local[0];
    if (!appUrl) throw new Error('vite preview did not report its URL');
    const appOrigin = new URL(appUrl).origin;

    const config = demoConfig();
    const tenant = config.tenants.find((t) => t.id === 'demo');
    const spa = tenant?.clients?.find((c) => c.client_id === 'spa');
    if (!tenant || !spa) throw new Error('demoConfig() no longer has tenant demo with client spa');
    tenant.lifetimes = { ...tenant.lifetimes, access_token: accessTokenLifetime };
    spa.redirect_uris = [`${appOrigin}/callback`];
    spa.post_logout_redirect_uris = [`${appOrigin}/`];

    let clockOffsetMs = 0;
    const server = await createReferenceServer(config, { now: () => Date.now() + clockOffsetMs, logger: false });
    const listening = await server.listen({ port: 0, host: '127.0.0.1' });
    cleanups.push(() => listening.close());
    issuer = `${listening.origin}/demo`;

    const browser: Browser = await connectChromium();
    cleanups.push(() => browser.close());

    return {
      appOrigin,
      issuer,
      async newContext({ tokenStorage, fakeClock = false } = {}) {
        const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
        context.setDefaultTimeout(10_000);
        // Without tokenStorage the app's own default applies (memory).
        if (tokenStorage) await context.addCookies([{ name: STORAGE_COOKIE, value: tokenStorage, url: appOrigin }]);
        // The page's clock starts where the server's is, which earlier tests of the file may have
        // moved forward (an ID token issued "in the future" would be refused).
        if (fakeClock) await context.clock.install({ time: Date.now() + clockOffsetMs });
        return context;
      },
      async advanceClocks(context, seconds) {
        clockOffsetMs += seconds * 1000;
        await context.clock.fastForward(seconds * 1000);
      },
      answered: (after = 0) =>
        server
          .requests()
          .filter((entry) => entry.seq > after && entry.method !== 'OPTIONS')
          .map(({ seq, method, path, status }) => ({ seq, method, path, status })),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The cookie that tells the preview server which token storage this context's /config.js sets. */
const STORAGE_COOKIE = 'e2e-token-storage';

/** Answers /config.js with the issuer and the token storage named by the request's cookie, if any. */
function runtimeConfigScript(issuer: () => string) {
  return (request: IncomingMessage, response: ServerResponse, next: () => void) => {
    if (request.url?.split('?')[0] !== '/config.js') return next();
    const tokenStorage = new RegExp(`(?:^|;\\s*)${STORAGE_COOKIE}=(\\w+)`).exec(request.headers.cookie ?? '')?.[1];
    const body = `window.__OIDC_CONFIG__ = ${JSON.stringify({ issuer: issuer(), ...(tokenStorage ? { tokenStorage } : {}) })};`;
    response.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' }).end(body);
  };
}

/**
 * Logs in as alice through the reference server's real login form, and its consent page when the
 * server asks (it remembers a user's consent to a client). Returns whether consent was asked.
 */
export async function logInThroughForms(page: Page, { startWithButton = true } = {}): Promise<{ consentAsked: boolean }> {
  if (startWithButton) await page.getByTestId('login-button').click();
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Password').fill('wonderland');
  await page.getByRole('button', { name: 'Sign in' }).click();
  // Next is either the consent page or the app again (its status badge is on every page).
  const allow = page.getByRole('button', { name: 'Allow' });
  await allow.or(page.getByTestId('status')).first().waitFor();
  const consentAsked = await allow.isVisible();
  if (consentAsked) await allow.click();
  return { consentAsked };
}

/** What the page's network did: every response the test may want to reason about. */
export interface Exchange {
  method: string;
  path: string;
  status: number;
  authorization?: string | undefined;
}

/** Records the page's responses from `origin` (the reference server) in order. */
export function recordExchanges(page: Page, origin: string): Exchange[] {
  const log: Exchange[] = [];
  page.on('response', (response: Response) => {
    const url = new URL(response.url());
    const request = response.request();
    if (url.origin !== origin || request.method() === 'OPTIONS') return;
    log.push({
      method: request.method(),
      path: url.pathname,
      status: response.status(),
      authorization: request.headers().authorization,
    });
  });
  return log;
}

/**
 * Resolves once the page has received a response from `path` (a pathname) on `origin`.
 * Playwright may deliver a 'response' event after the page has already rendered what that
 * response caused: wait for this (started before the action) before reading what
 * {@link recordExchanges} recorded, which sees the events in the same order.
 */
export function responseFrom(page: Page, origin: string, path: string): Promise<Response> {
  return page.waitForResponse((response) => {
    const url = new URL(response.url());
    return url.origin === origin && url.pathname === path && response.request().method() !== 'OPTIONS';
  });
}

/** Clicks "Call API" and waits for that call's result (by its sequence number), returning it. */
export async function callApi(page: Page, call: number): Promise<{ status: string | null; body: string }> {
  await page.getByTestId('call-api-button').click();
  return readApiResult(page, call);
}

/** The outcome of call number `call`: its HTTP status, or null with the error (or sign-out) shown instead. */
export async function readApiResult(page: Page, call: number): Promise<{ status: string | null; body: string }> {
  const outcome = page.locator(`[data-call="${call}"]`);
  // A session that ends meanwhile (e.g. a refused refresh) takes the API panel away: stop there too.
  const signedOut = page.locator('[data-testid="status"]:not([data-status="authenticated"])');
  await outcome.or(signedOut).first().waitFor();
  if ((await outcome.count()) === 0) {
    return { status: null, body: `signed out (${await signedOut.getAttribute('data-status')})` };
  }
  const result = page.getByTestId('api-result');
  if ((await result.count()) === 0) {
    const error = await page.getByTestId('api-error').textContent();
    return { status: null, body: error ?? '' };
  }
  return { status: await result.getAttribute('data-status'), body: (await page.getByTestId('api-body').textContent()) ?? '' };
}
