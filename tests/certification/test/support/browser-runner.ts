/**
 * One module run through @oidc-rp/browser (the installed package, bundled into a page) in real
 * Chromium: the page's client sends the browser to the provider, the person signs in on the
 * reference server's real login page, the provider sends the browser back to the page's
 * callback, where `init()` finishes the login; the app then asks userinfo. Judged by the page's
 * snapshot and by the provider's request journal.
 */
import type { ClientConfig, ReferenceServer } from '@oidc-rp/reference-server';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { tenantOf } from '../../src/modules';
import type { ModuleRun } from '../../src/runs';
import { expectStoppedAfter, journalled, type RunJournal } from './journal';
import { sdkResponseType } from './response-types';
import { SCOPE_LIST, USER, signingAlgorithmOf } from './server-config';
import { expectAccepted, expectChecks, rejectionPoint, type AppVerdict } from './verdict';

declare global {
  interface Window {
    oidcRp: typeof import('@oidc-rp/browser');
    client: import('@oidc-rp/browser').BrowserClient;
    /** The app's client settings: from the \`app\` query parameter of a run's first load, kept in sessionStorage across the login. */
    app: AppSettings;
    /** Why login() failed before leaving the page, if it did. */
    loginError?: { code?: string; message: string };
    /** `@oidc-rp/browser/session`, bundled beside the main entry (the session management runs). */
    oidcRpSession?: typeof import('@oidc-rp/browser/session');
    /** The app's session management, when its settings ask for it. */
    sessions?: import('@oidc-rp/browser/session').SessionManagement;
    /** The page's start: the callback handled (keeping session_state) and the client restored. */
    ready: Promise<void>;
    /** Resolves once the client's snapshot passes \`test\` (at once if it does now): a wait on the client's own event, not a poll. */
    untilSnapshot(test: (snapshot: import('@oidc-rp/browser').AuthSnapshot) => boolean): Promise<void>;
  }
}

export interface AppSettings {
  issuer: string;
  clientId: string;
  /** The run's response type: code, or a front-channel flow part (implicitFlow, idTokenFlow, hybridFlow). */
  responseType: string;
  signingAlgorithm?: string;
  /** Session Management 1.0: keep session_state and check at the provider's check_session_iframe (checks made by the run). */
  session?: boolean;
}

/**
 * The app: its client from its settings, restored or finishing a login at every load. A run
 * opens it with \`?app=<settings>\`, which starts the tab afresh (sessionStorage emptied).
 */
export const PAGE = `<!doctype html><title>certification spa</title><script src="/sdk.js"></script><script>
  const { browserNavigation, createBrowserClient, discovery, implicitFlow, idTokenFlow, hybridFlow } = window.oidcRp;
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
    ...(app.responseType === 'code'
      ? {}
      : { implicitFlow: app.responseType === 'id_token token' ? implicitFlow : app.responseType === 'id_token' ? idTokenFlow : hybridFlow(app.responseType) }),
    ...(app.signingAlgorithm ? { signingAlgorithm: app.signingAlgorithm } : {}),
    ...(app.session ? { postLogoutRedirectUri: location.origin + '/signed-out' } : {}),
    navigate: browserNavigation(),
  });
  // Session management's checks are the run's own (sessions.check()), so the interval never fires.
  window.sessions = app.session ? window.oidcRpSession.sessionManagement(window.client, { clientId: app.clientId, interval: 3600000 }) : undefined;
  window.untilSnapshot = (test) =>
    new Promise((resolve) => {
      if (test(window.client.getSnapshot())) return resolve();
      const stop = window.client.subscribe(() => {
        if (test(window.client.getSnapshot())) {
          stop();
          resolve();
        }
      });
    });
  window.ready = (async () => {
    if (window.sessions && window.client.isRedirectCallback()) await window.sessions.handleRedirectCallback();
    await window.client.init();
  })();
</script>`;

/**
 * `@oidc-rp/browser/session` as an app installs it, bundled as a script that defines
 * `window.oidcRpSession` (served after the main entry's bundle).
 */
export async function bundleInstalledSessionEntry(): Promise<string> {
  const bundled = await build({
    stdin: { contents: "import * as session from '@oidc-rp/browser/session'; window.oidcRpSession = session;", resolveDir: import.meta.dirname, loader: 'js' },
    bundle: true,
    format: 'iife',
    write: false,
    logLevel: 'silent',
  });
  return bundled.outputFiles[0]?.text ?? '';
}

export interface BrowserRunContext {
  server: ReferenceServer;
  origin: string;
  appOrigin: string;
  /** The file's one tab (a new page costs about a second on a busy machine): each run clears its cookies and storage. */
  page: Page;
}

let clients = 0;

async function registerClient(run: ModuleRun, ctx: BrowserRunContext, extra?: Partial<ClientConfig>): Promise<string> {
  const tenant = tenantOf(run.module);
  const clientId = `spa-${++clients}`;
  // The mismatch tenant's document is spoilt by its configured client; the page's own client
  // (its origin registered, so the provider's CORS answers it) meets that document.
  const code = run.responseType.includes('code');
  await ctx.server.control.clients.add(
    {
      client_id: clientId,
      redirect_uris: [`${ctx.appOrigin}/callback`],
      grant_types: code ? ['authorization_code', 'refresh_token', ...(run.responseType === 'code' ? [] : ['implicit' as const])] : ['implicit'],
      response_types: [sdkResponseType(run.responseType) as NonNullable<ClientConfig['response_types']>[number]],
      scopes: SCOPE_LIST,
      skip_consent: true,
      ...(run.definition.fault && !tenant.endsWith('-mismatch') ? { fault: run.definition.fault as ClientConfig['fault'] } : {}),
      ...extra,
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
  await untilLoaded(page);
  // The provider's login page; or straight back to the callback when the provider's session
  // still holds (single sign-on); or no navigation when login() failed in the page. The page
  // answers 'failed' when login() rejects; when it navigates instead, its context goes and that
  // evaluation with it (never settling here). No poll of the page: a poll that lost the race
  // would go on in every later page of the tab, a frame each time, until its timeout.
  const failed = page
    .evaluate(() =>
      window.client.login().then(
        () => new Promise<never>(() => {}),
        (e: unknown) => {
          window.loginError = { code: (e as { code?: string }).code, message: String(e) };
        },
      ),
    )
    .then(
      () => 'failed' as const,
      () => new Promise<never>(() => {}),
    );
  const where = await Promise.race([
    page.waitForURL((url) => (url.origin === ctx.origin && url.pathname.endsWith('/oidc/login')) || (url.origin === ctx.appOrigin && url.pathname === '/callback')).then(() =>
      new URL(page.url()).origin === ctx.origin ? 'provider' : 'callback',
    ),
    failed,
  ]);
  if (where === 'failed') return;
  if (where === 'callback') {
    await untilLoaded(page);
    return;
  }
  await page.fill('#username', USER.username);
  await page.fill('#password', USER.password);
  await Promise.all([page.waitForURL((url) => url.origin === ctx.appOrigin), page.click('button[name="action"][value="login"]')]);
  await untilLoaded(page);
}

/** Waits until the page's client has finished starting (restored, or a callback handled or refused). */
const untilLoaded = (page: Page) => page.evaluate(() => window.untilSnapshot((s) => s.status !== 'loading'));

/**
 * Runs one module run in Chromium and asserts the suite's verdict.
 *
 * @example
 * await runInBrowser(run, { server, origin, appOrigin, browser });
 */
export async function runInBrowser(run: ModuleRun, ctx: BrowserRunContext): Promise<void> {
  const session = run.definition.step === 'sessionManagement';
  const clientId = await registerClient(run, ctx, session ? { post_logout_redirect_uris: [`${ctx.appOrigin}/signed-out`] } : undefined);
  const settings: AppSettings = {
    issuer: `${ctx.origin}/${tenantOf(run.module)}`,
    clientId,
    responseType: sdkResponseType(run.responseType),
    signingAlgorithm: signingAlgorithmOf(tenantOf(run.module)),
    ...(session ? { session } : {}),
  };
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
    case 'sessionManagement':
      return sessionManagementRun(run, ctx, settings);
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

const checkSessionLoads = (journal: RunJournal) => journal.entries.filter((e) => e.endpoint === '/oidc/check-session' && e.method === 'GET');

/**
 * Session Management 1.0 as the suite plays it: the app signs in (keeping the authorization
 * response's session_state), frames the provider's check_session_iframe and asks it (unchanged),
 * logs out at end_session (RP-initiated), and back at its post-logout page asks again: the
 * provider's session has ended, the frame answers changed, and the app ends what it still kept.
 */
async function sessionManagementRun(run: ModuleRun, ctx: BrowserRunContext, settings: AppSettings): Promise<void> {
  const { page } = ctx;
  const { value: verdict, journal: loginJournal } = await journalled(ctx.server, async () => {
    await logIn(page, ctx, settings);
    await page.evaluate(() => window.ready);
    return verdictOf(page, run.responseType !== 'id_token');
  });
  expectAccepted(run, verdict, loginJournal);
  expect(await page.evaluate(() => sessionStorage.getItem('oidc-rp.session-state')), 'the session_state of the authorization response was not kept').toMatch(/^\S+$/);

  const { value, journal } = await journalled(ctx.server, async () => {
    const before = await page.evaluate(async () => {
      await window.sessions?.start();
      return window.sessions?.check();
    });
    // RP-initiated logout: to end_session, and the provider straight back to the post-logout page.
    await page.evaluate(() => void window.client.logout());
    await page.waitForURL(`${ctx.appOrigin}/signed-out`);
    await page.evaluate(() => window.ready);
    const after = await page.evaluate(async () => {
      await window.sessions?.start();
      return window.sessions?.check();
    });
    await page.evaluate(() => window.untilSnapshot((s) => s.status === 'unauthenticated'));
    return { before, after, kept: await page.evaluate(() => sessionStorage.getItem('oidc-rp.session-state')) };
  });
  expect(value).toEqual({ before: 'unchanged', after: 'changed', kept: null });
  const [endSession, ...more] = journal.calls('logout');
  expect(more).toEqual([]);
  expect(endSession?.params).toMatchObject({ id_token_hint: '[redacted]', post_logout_redirect_uri: `${ctx.appOrigin}/signed-out` });
  // The provider's frame was loaded (an HTTP request to check_session_iframe) before the logout and after it.
  const loads = checkSessionLoads(journal).map((e) => e.seq);
  expect(loads.filter((seq) => seq < (endSession?.seq ?? 0)), 'no check_session_iframe request before the logout').not.toEqual([]);
  expect(loads.filter((seq) => seq > (endSession?.seq ?? Number.POSITIVE_INFINITY)), 'no check_session_iframe request after the logout').not.toEqual([]);
}
