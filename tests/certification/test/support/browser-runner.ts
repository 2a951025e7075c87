/**
 * One module run through @oidc-rp/browser (the installed package, bundled into a page) in real
 * Chromium: the page's client sends the browser to the provider, the person signs in on the
 * reference server's real login page, the provider sends the browser back to the page's
 * callback, where `init()` finishes the login; the app then asks userinfo. Judged by the page's
 * snapshot and by the provider's request journal.
 */
import type { ClientConfig, ReferenceServer } from '@oidc-rp/reference-server';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { tenantOf } from '../../src/modules';
import type { ModuleRun } from '../../src/runs';
import { expectStoppedAfter, journalled, type RunJournal } from './journal';
import { SCOPE_LIST, USER } from './server-config';
import { expectAccepted, expectChecks, rejectionPoint, type AppVerdict } from './verdict';

declare global {
  interface Window {
    oidcRp: typeof import('@oidc-rp/browser');
    client: import('@oidc-rp/browser').BrowserClient;
    /** The app's client settings: from the \`app\` query parameter of a run's first load, kept in sessionStorage across the login. */
    app: AppSettings;
    /** Why login() failed before leaving the page, if it did. */
    loginError?: { code?: string; message: string };
  }
}

export interface AppSettings {
  issuer: string;
  clientId: string;
  implicit: boolean;
  signingAlgorithm?: string;
}

/**
 * The app: its client from its settings, restored or finishing a login at every load. A run
 * opens it with \`?app=<settings>\`, which starts the tab afresh (sessionStorage emptied).
 */
export const PAGE = `<!doctype html><title>certification spa</title><script src="/sdk.js"></script><script>
  const { browserNavigation, createBrowserClient, discovery, implicitFlow } = window.oidcRp;
  const given = new URLSearchParams(location.search).get('app');
  if (given) {
    sessionStorage.clear();
    sessionStorage.setItem('certification-app', given);
    history.replaceState(null, '', '/');
  }
  const app = (window.app = JSON.parse(sessionStorage.getItem('certification-app')));
  window.client = createBrowserClient({
    provider: discovery(app.issuer),
    clientId: app.clientId,
    redirectUri: location.origin + '/callback',
    scope: ${JSON.stringify('openid profile email offline_access')},
    tokenStorage: 'sessionStorage',
    ...(app.implicit ? { implicitFlow } : {}),
    ...(app.signingAlgorithm ? { signingAlgorithm: app.signingAlgorithm } : {}),
    navigate: browserNavigation(),
  });
  void window.client.init();
</script>`;

export interface BrowserRunContext {
  server: ReferenceServer;
  origin: string;
  appOrigin: string;
  /** The file's one tab (a new page costs about a second on a busy machine): each run clears its cookies and storage. */
  page: Page;
}

let clients = 0;

async function registerClient(run: ModuleRun, ctx: BrowserRunContext): Promise<string> {
  const tenant = tenantOf(run.module);
  const clientId = `spa-${++clients}`;
  // The mismatch tenant's document is spoilt by its configured client; the page's own client
  // (its origin registered, so the provider's CORS answers it) meets that document.
  const implicit = run.responseType === 'id_token token';
  await ctx.server.control.clients.add(
    {
      client_id: clientId,
      redirect_uris: [`${ctx.appOrigin}/callback`],
      grant_types: implicit ? ['implicit'] : ['authorization_code', 'refresh_token'],
      response_types: [run.responseType as ClientConfig['response_types'] extends (infer T)[] | undefined ? T : never],
      scopes: SCOPE_LIST,
      skip_consent: true,
      ...(run.definition.fault && !tenant.endsWith('-mismatch') ? { fault: run.definition.fault as ClientConfig['fault'] } : {}),
    },
    { tenant },
  );
  return clientId;
}

/** The page's state: its snapshot, and userinfo when the app asked. */
async function verdictOf(page: Page, askUserinfo: boolean): Promise<AppVerdict & { snapshotStatus: string }> {
  return page.evaluate(async (ask) => {
    const { status, error, user, idToken } = window.client.getSnapshot();
    const failure = error ?? window.loginError;
    let userinfo: Record<string, unknown> | undefined;
    let userinfoError: { code?: string; message: string } | undefined;
    if (ask && status === 'authenticated') {
      try {
        userinfo = (await window.oidcRp.getUserInfo(window.client)) as Record<string, unknown>;
      } catch (e) {
        userinfoError = { code: (e as { code?: string }).code, message: String(e) };
      }
    }
    return {
      snapshotStatus: status,
      signedIn: status === 'authenticated' && userinfoError === undefined,
      ...(failure || userinfoError ? { error: userinfoError ?? { code: (failure as { code?: string }).code, message: String((failure as Error).message) } } : {}),
      ...(user ? { tokens: { idToken, claims: user as Record<string, unknown> } } : {}),
      ...(userinfo ? { userinfo } : {}),
    };
  }, askUserinfo);
}

/** Opens the app, logs in through the provider's real login page, and waits for the callback to finish. */
async function logIn(page: Page, ctx: BrowserRunContext, settings?: AppSettings): Promise<void> {
  await page.goto(settings ? `${ctx.appOrigin}/?app=${encodeURIComponent(JSON.stringify(settings))}` : `${ctx.appOrigin}/`);
  await page.waitForFunction(() => window.client.getSnapshot().status !== 'loading');
  await page.evaluate(() => {
    window.client.login().catch((e: unknown) => {
      window.loginError = { code: (e as { code?: string }).code, message: String(e) };
    });
  });
  // The provider's login page; or straight back to the callback when the provider's session
  // still holds (single sign-on); or no navigation when login() failed in the page.
  const where = await Promise.race([
    page.waitForURL((url) => (url.origin === ctx.origin && url.pathname.endsWith('/oidc/login')) || (url.origin === ctx.appOrigin && url.pathname === '/callback')).then(() =>
      new URL(page.url()).origin === ctx.origin ? 'provider' : 'callback',
    ),
    page.waitForFunction(() => window.loginError !== undefined).then(() => 'failed'),
  ]);
  if (where === 'failed') return;
  if (where === 'callback') {
    await page.waitForFunction(() => window.client.getSnapshot().status !== 'loading');
    return;
  }
  await page.fill('#username', USER.username);
  await page.fill('#password', USER.password);
  await Promise.all([page.waitForURL((url) => url.origin === ctx.appOrigin), page.click('button[name="action"][value="login"]')]);
  await page.waitForFunction(() => window.client.getSnapshot().status !== 'loading');
}

/**
 * Runs one module run in Chromium and asserts the suite's verdict.
 *
 * @example
 * await runInBrowser(run, { server, origin, appOrigin, browser });
 */
export async function runInBrowser(run: ModuleRun, ctx: BrowserRunContext): Promise<void> {
  const clientId = await registerClient(run, ctx);
  const settings: AppSettings = { issuer: `${ctx.origin}/${tenantOf(run.module)}`, clientId, implicit: run.responseType === 'id_token token', signingAlgorithm: 'RS256' };
  // No provider session of an earlier run: this person signs in on the login page.
  await ctx.page.context().clearCookies();
  switch (run.definition.step) {
    case 'login':
    case 'userinfo':
    case 'discovery':
      return loginRun(run, ctx, settings);
    case 'refresh':
      return refreshRun(run, ctx, settings);
    case 'keyRotation':
      return keyRotationRun(run, ctx, settings);
    default:
      throw new Error(`${run.module}: no browser runner for step ${run.definition.step}`);
  }
}

async function loginRun(run: ModuleRun, ctx: BrowserRunContext, settings: AppSettings): Promise<void> {
  const m = run.definition;
  const { page } = ctx;
  const { value: verdict, journal } = await journalled(ctx.server, async () => {
    await logIn(page, ctx, settings);
    return verdictOf(page, run.responseType !== 'id_token');
  });
  if (m.outcome === 'accept' || (m.outcome === 'either' && verdict.error === undefined)) {
    expectAccepted(run, verdict, journal);
    expectChecks(run, verdict, journal);
    return;
  }
  await expectRejected(run, verdict, journal, page);
}

async function expectRejected(run: ModuleRun, verdict: AppVerdict & { snapshotStatus: string }, journal: RunJournal, page: Page): Promise<void> {
  const m = run.definition;
  expect(verdict.error, 'the RP accepted').toBeDefined();
  if (m.code) expect(verdict.error).toMatchObject({ code: m.code });
  if (m.step === 'userinfo') {
    expect(verdict.userinfo).toBeUndefined();
  } else {
    expect(verdict.snapshotStatus).not.toBe('authenticated');
    // Nothing kept: no session in the page's storage.
    expect(await page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.startsWith('oidc-rp.session')))).toEqual([]);
  }
  expectStoppedAfter(rejectionPoint(run), journal);
}

async function refreshRun(run: ModuleRun, ctx: BrowserRunContext, settings: AppSettings): Promise<void> {
  const m = run.definition;
  const { page } = ctx;
  await logIn(page, ctx, settings);
  expect(await page.evaluate(() => window.client.getSnapshot().status)).toBe('authenticated');
  const { value: outcome, journal } = await journalled(ctx.server, () =>
    page.evaluate(async () => {
      let refreshError: string | undefined;
      try {
        await window.client.getAccessToken({ forceRefresh: true });
      } catch (e) {
        refreshError = (e as { code?: string }).code;
      }
      // The app goes on: it asks userinfo with whatever the session holds now.
      let userinfo: unknown;
      let userinfoError: string | undefined;
      try {
        userinfo = await window.oidcRp.getUserInfo(window.client);
      } catch (e) {
        userinfoError = (e as { code?: string }).code;
      }
      return { refreshError, userinfo, userinfoError, status: window.client.getSnapshot().status };
    }),
  );
  expect(journal.calls('token').map((c) => c.grant_type)).toEqual(['refresh_token']);
  if (m.outcome === 'accept') {
    expect(outcome).toMatchObject({ refreshError: undefined, userinfo: { sub: 'alice' }, status: 'authenticated' });
    expect(journal.calls('userinfo').map((c) => c.status)).toEqual([200]);
    return;
  }
  // Refused, the session ends: the old access token is never used again.
  expect(outcome).toMatchObject({ refreshError: m.code, userinfoError: 'login_required', status: 'unauthenticated' });
  expect(journal.calls('userinfo'), 'a userinfo request after the refused refresh answer').toEqual([]);
}

async function keyRotationRun(run: ModuleRun, ctx: BrowserRunContext, settings: AppSettings): Promise<void> {
  const { page } = ctx;
  await logIn(page, ctx, settings);
  expectAccepted(run, await verdictOf(page, true), undefined);
  await ctx.server.control.keys.rotate({ tenant: tenantOf(run.module) });
  const { value: second, journal } = await journalled(ctx.server, async () => {
    await logIn(page, ctx, settings); // the app afresh (its storage emptied), the provider's session kept
    return verdictOf(page, true);
  });
  expectAccepted(run, second, journal);
  expect(journal.calls('jwks').map((c) => c.status)).toEqual([200]);
}
