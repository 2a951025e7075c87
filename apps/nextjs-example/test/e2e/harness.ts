/**
 * End-to-end harness: the reference server (port 0), the BUILT Next.js example under `next start`
 * (on a free port, known before the server's config needs it), and a headless Debian Chromium.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReferenceServer, demoConfig } from '@oidc-rp/reference-server';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { connectChromium } from './chromium';
import { afterAll, beforeAll } from 'vitest';
import { freePort } from '../../../../test-support/redis-server';
import { appRoot, nextBin } from './next-build';

export interface Harness {
  appOrigin: string;
  issuer: string;
  /** Requests the reference server served whose path ends with `suffix`, e.g. '/oauth/token'. */
  count(method: string, suffix: string): number;
  browser: Browser;
  close(): Promise<void>;
}

const READY_TIMEOUT_MS = 30_000;
/** The app's SESSION_SECRET in these tests (a test can open the browser's session cookie with it). */
export const SESSION_SECRET = 'nextjs-e2e-R090EwSFpVnpXnpyqDCyBpZOTwbAcDjm';

/** `refreshLeeway`: the app's SESSION_REFRESH_LEEWAY (seconds); a large one makes every request refresh. */
export async function startHarness({ refreshLeeway }: { refreshLeeway?: number } = {}): Promise<Harness> {
  const cleanups: Array<() => Promise<unknown>> = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const port = await freePort();
    const appOrigin = `http://127.0.0.1:${port}`;

    const config = demoConfig();
    const tenant = config.tenants.find((t) => t.id === 'demo');
    const web = tenant?.clients?.find((c) => c.client_id === 'web');
    const spa = tenant?.clients?.find((c) => c.client_id === 'spa');
    if (!web || !spa) throw new Error('demoConfig() no longer has the web and spa clients');
    web.redirect_uris = [`${appOrigin}/auth/callback`];
    web.post_logout_redirect_uris = [`${appOrigin}/`];
    spa.redirect_uris = [`${appOrigin}/client`];
    spa.post_logout_redirect_uris = [`${appOrigin}/client`];
    const requests: Array<{ method: string; path: string }> = [];
    const server = await createReferenceServer(config, { logger: false, onRequest: ({ method, path }) => requests.push({ method, path }) });
    const listening = await server.listen({ port: 0, host: '127.0.0.1' });
    cleanups.push(() => listening.close());
    const issuer = `${listening.origin}/demo`;

    const app = spawn(nextBin, ['start', '--hostname', '127.0.0.1', '--port', String(port)], {
      cwd: appRoot,
      env: {
        ...process.env,
        NEXT_TELEMETRY_DISABLED: '1',
        NODE_ENV: 'production',
        OIDC_ISSUER: issuer,
        APP_BASE_URL: appOrigin,
        SESSION_SECRET,
        ...(refreshLeeway !== undefined ? { SESSION_REFRESH_LEEWAY: String(refreshLeeway) } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => stop(app));
    await untilServing(app, appOrigin);

    const browser = await connectChromium();
    cleanups.push(() => browser.close());
    const count = (method: string, suffix: string) => requests.filter((r) => r.method === method && r.path.endsWith(suffix)).length;
    return { appOrigin, issuer, count, browser, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Resolves once the app answers HTTP; fails with its output if it exits or stays silent. */
async function untilServing(app: ChildProcess, origin: string): Promise<void> {
  let output = '';
  app.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  app.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(app, 'exit').then(([code]) => {
    throw new Error(`next start exited (code ${String(code)}):\n${output}`);
  });
  exited.catch(() => undefined);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const poll = async () => {
    for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
      const ok = await fetch(`${origin}/client`).then((r) => r.ok, () => false);
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`next start did not answer within ${READY_TIMEOUT_MS} ms:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  };
  await Promise.race([poll(), exited]);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** What an e2e file works with: the harness, and one page of a fresh browser context. */
export interface HarnessPage {
  harness: Harness;
  context: BrowserContext;
  page: Page;
}

/** A file's harness: the fields are set once its beforeAll has run. */
export interface SharedHarness {
  harness: Harness;
}

/**
 * The harness (with `options`) of an e2e file: started before its tests, closed after them. Its
 * describe blocks take pages of their own with {@link setUpPage}: the tests of one settings share
 * one reference server and one `next start` (each was a second or more of CPU to start).
 */
export function setUpHarness(options: { refreshLeeway?: number } = {}): SharedHarness {
  const shared = {} as SharedHarness;
  beforeAll(async () => {
    shared.harness = await startHarness(options);
  });
  afterAll(async () => {
    await shared.harness?.close();
  });
  return shared;
}

/**
 * A fresh browser context (`contextOptions`, 15 s per action) with one page on `shared`'s
 * harness, for the tests of the enclosing describe (or file): opened before them, closed after
 * them. Its cookies are its own, so each describe signs in from scratch.
 */
export function setUpPage(shared: SharedHarness, contextOptions: BrowserContextOptions = {}): HarnessPage {
  const e2e = {} as HarnessPage;
  beforeAll(async () => {
    e2e.harness = shared.harness;
    e2e.context = await shared.harness.browser.newContext(contextOptions);
    e2e.context.setDefaultTimeout(15_000);
    e2e.page = await e2e.context.newPage();
  });
  afterAll(async () => {
    await e2e.context?.close();
  });
  return e2e;
}

/**
 * The setup of an e2e file with one browser context: before its tests, the harness (with
 * `options`) and a fresh context with one page; after them, all closed.
 * The fields of the returned object are set once the file's beforeAll has run.
 */
export function setUpHarnessPage(options: { refreshLeeway?: number } = {}, contextOptions: BrowserContextOptions = {}): HarnessPage {
  return setUpPage(setUpHarness(options), contextOptions);
}

/** Fills the reference server's login form as alice (consent: allowed when asked). */
export async function logInAsAlice(page: Page): Promise<void> {
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Password').fill('wonderland');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const allow = page.getByRole('button', { name: 'Allow' });
  await allow.or(page.getByTestId('status')).or(page.getByTestId('client-status')).first().waitFor();
  if (await allow.isVisible()) await allow.click();
}
