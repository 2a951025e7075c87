// Runs a README example as a reader would, in Debian's Chromium, signed in through the reference
// server's real login page:
// - a page script (`browser`): bundled, served as the only script of a page on 127.0.0.1 in
//   place of the documented app origin (http://127.0.0.1:5173);
// - a web server (`server`): run with node, listening on a free port in place of the documented
//   one, and the documented URL opened.
// The real origin is added beside the documented one to the demo clients' redirect URIs.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { type Browser, chromium, type Page } from 'playwright-core';
import { CHROMIUM_LAUNCH } from '../../../test-support/page-server.ts';
import type { BrowserRun, Snippet } from './extract.ts';
import { DOCUMENTED_ORIGINS, readmePositions, RUN_ENV, runnableSource } from './harness.ts';

/** The app origin the READMEs' browser examples are served from (the demo client registers it). */
export const DOCUMENTED_APP_ORIGIN = 'http://127.0.0.1:5173';

/** The part of the reference server's in-process control the runner uses. */
interface Control {
  clients: {
    list(): Promise<{ client_id: string; redirect_uris?: string[]; post_logout_redirect_uris?: string[] }[]>;
    update(clientId: string, changes: Record<string, unknown>): Promise<unknown>;
  };
}

/** Passwords of the demo users, as the READMEs tell a reader. */
const DEMO_PASSWORDS: Record<string, string> = { alice: 'wonderland', bob: 'builder' };

export interface BrowserResult {
  ok: boolean;
  output: string;
}

let browser: Promise<Browser> | undefined;

export function closeBrowser(): Promise<void> {
  return browser ? browser.then((b) => b.close()) : Promise.resolve();
}

// Runs may walk side by side; their read-modify-write of the clients' URIs must not.
let registering: Promise<void> = Promise.resolve();

/** Adds `real` beside every `documented`-origin URI of the demo clients, one run at a time. */
function registerOrigin(control: Control, documented: string, real: string): Promise<void> {
  const next = registering.then(() => addOrigin(control, documented, real));
  registering = next.catch(() => undefined);
  return next;
}

async function addOrigin(control: Control, documented: string, real: string): Promise<void> {
  const map = (uris: string[] | undefined) => [...(uris ?? []), ...(uris ?? []).filter((u) => u.startsWith(documented)).map((u) => u.replace(documented, real))];
  for (const client of await control.clients.list()) {
    if (!client.redirect_uris?.some((u) => u.startsWith(documented))) continue;
    await control.clients.update(client.client_id, { redirect_uris: map(client.redirect_uris), post_logout_redirect_uris: map(client.post_logout_redirect_uris) });
  }
}

/** Opens `url`, clicks the button `run` names, signs in on the login page (allowing consent) when it names a user, and waits for its text. */
async function walk(url: string, run: BrowserRun, describeUrl: (url: string) => string, problems: string[]): Promise<BrowserResult> {
  browser ??= chromium.launch(CHROMIUM_LAUNCH);
  const context = await (await browser).newContext();
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  try {
    await page.goto(url);
    const expected = page.getByText(run.expects);
    if (run.clicks) await page.getByRole('button', { name: run.clicks }).click();
    if (run.user) {
      await page.getByLabel('Username').fill(run.user);
      await page.getByLabel('Password').fill(DEMO_PASSWORDS[run.user] ?? '');
      await page.getByRole('button', { name: 'Sign in' }).click();
      const allow = page.getByRole('button', { name: 'Allow' });
      await allow.or(expected).first().waitFor();
      if (await allow.isVisible()) await allow.click();
    }
    await expected.waitFor();
    return { ok: true, output: '' };
  } catch (error) {
    const text = (await page.textContent('body').catch(() => null)) ?? '';
    return { ok: false, output: [(error as Error).message.split('\n')[0], `page: ${describeUrl(page.url())}`, `text: ${text.trim().slice(0, 300)}`, ...problems].join('\n') };
  } finally {
    await context.close();
  }
}

/** Bundles a page script with the origins mapped. */
async function bundle(snippet: Snippet, dir: string, serverOrigin: string, appOrigin: string): Promise<string> {
  let code = snippet.code;
  for (const documented of DOCUMENTED_ORIGINS) code = code.split(documented).join(serverOrigin);
  code = code.split(DOCUMENTED_APP_ORIGIN).join(appOrigin);
  mkdirSync(join(dir, 'browser'), { recursive: true });
  const entry = join(dir, 'browser', `${snippet.name}.${snippet.lang}`);
  writeFileSync(entry, code);
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: dir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"development"' },
  });
  return result.outputFiles[0]?.text ?? '';
}

/** The app's one page on 127.0.0.1 (port 0), serving a bundled page script at /app.js. */
async function startAppServer(): Promise<{ origin: string; serve(script: string): void; close(): Promise<unknown> }> {
  let script = '';
  const app = createServer((request, response) => {
    if (request.url === '/app.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      return;
    }
    // Every other path (the start page, /callback) is the app's one page, with the usual
    // `#root` element a React app renders into.
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title><body><div id="root"></div></body><script type="module" src="/app.js"></script>');
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(app.address() as AddressInfo).port}`,
    serve: (code) => {
      script = code;
    },
    close: () => new Promise((resolve) => app.close(resolve)),
  };
}

/** A page script: served as the only script of the app's one page, opened at its start. */
export async function runInBrowser(snippet: Snippet, dir: string, serverOrigin: string, control: Control): Promise<BrowserResult> {
  const run = snippet.browser;
  if (!run) return { ok: false, output: 'not a browser snippet' };
  const app = await startAppServer();
  const appOrigin = app.origin;
  const problems: string[] = [];
  try {
    app.serve(await bundle(snippet, dir, serverOrigin, appOrigin));
    await registerOrigin(control, DOCUMENTED_APP_ORIGIN, appOrigin);
    const start = run.url ? run.url.replace(DOCUMENTED_APP_ORIGIN, appOrigin) : `${appOrigin}/`;
    return await walk(start, run, (url) => url.replace(appOrigin, DOCUMENTED_APP_ORIGIN), problems);
  } catch (error) {
    return { ok: false, output: [(error as Error).message, ...problems].join('\n') };
  } finally {
    await app.close();
  }
}

/** What a reader sees at each step of a sign-in quick start, in the documented origins' terms. */
export interface QuickStartWalk {
  /** The page opened at `http://localhost:5173/` (what Vite prints): its text. */
  atLocalhost: string;
  /** The page opened at `http://127.0.0.1:5173/` (the redirect URI's origin), before any login. */
  signedOut: string;
  /** After the sign-in button, the provider's login form (alice) and consent. */
  signedIn: string;
  /** After the log-out button: where the browser is, and what it shows. */
  afterLogout: { url: string; text: string };
  /** Page errors and console errors of the walk at 127.0.0.1. */
  problems: string[];
}

/**
 * Walks a sign-in quick start page script as a newcomer does: opened at localhost first (where
 * Vite says), then at 127.0.0.1, signs in with the button named `login`, then logs out with
 * `logout`. Each step waits for the text it is given and returns the page's text.
 */
export async function walkQuickStart(
  snippet: Snippet,
  dir: string,
  serverOrigin: string,
  control: Control,
  steps: { atLocalhost: string; signedOut: string; login: string; signedIn: string; logout: string },
): Promise<QuickStartWalk> {
  const app = await startAppServer();
  const appOrigin = app.origin;
  const localhost = appOrigin.replace('127.0.0.1', 'localhost');
  const documented = (text: string) => text.split(appOrigin).join(DOCUMENTED_APP_ORIGIN).split(localhost).join(DOCUMENTED_APP_ORIGIN.replace('127.0.0.1', 'localhost'));
  browser ??= chromium.launch(CHROMIUM_LAUNCH);
  const context = await (await browser).newContext();
  context.setDefaultTimeout(30_000);
  const problems: string[] = [];
  const text = async (page: Page) => documented((await page.textContent('body')) ?? '');
  try {
    app.serve(await bundle(snippet, dir, serverOrigin, appOrigin));
    await registerOrigin(control, DOCUMENTED_APP_ORIGIN, appOrigin);

    const wrong = await context.newPage();
    await wrong.goto(`${localhost}/`);
    await wrong.getByText(steps.atLocalhost.split(DOCUMENTED_APP_ORIGIN).join(appOrigin)).waitFor();
    const atLocalhost = await text(wrong);
    await wrong.close();

    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    await page.goto(`${appOrigin}/`);
    await page.getByText(steps.signedOut).waitFor();
    const signedOut = await text(page);
    await page.getByRole('button', { name: steps.login }).click();
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill(DEMO_PASSWORDS.alice ?? '');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const allow = page.getByRole('button', { name: 'Allow' });
    const hello = page.getByText(steps.signedIn);
    await allow.or(hello).first().waitFor();
    if (await allow.isVisible()) await allow.click();
    await hello.waitFor();
    const signedIn = await text(page);
    await page.getByRole('button', { name: steps.logout }).click();
    await page.waitForURL((url) => url.origin === appOrigin && !url.pathname.startsWith('/callback'));
    await page.getByText(steps.signedOut).waitFor();
    return { atLocalhost, signedOut, signedIn, afterLogout: { url: documented(page.url()), text: await text(page) }, problems };
  } finally {
    await context.close();
    await app.close();
  }
}

/** A free port on 127.0.0.1 (another process could take it before the snippet does; unlikely). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Resolves once `port` accepts a connection; rejects when `exited` settles first or after `timeout` ms. */
async function listening(port: number, exited: Promise<unknown>, timeout = 30_000): Promise<void> {
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const deadline = Date.now() + timeout;
  while (!gone && Date.now() < deadline) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(gone ? 'the server exited before it listened' : `nothing listened on the documented port within ${timeout / 1000} s`);
}

// Loaded before the snippet: its `listen(<documented port>)` listens on the free port instead.
const LISTEN_HOOK = `import net from 'node:net';
const [from, to] = (process.env.README_CHECK_PORT_MAP ?? '').split('=').map(Number);
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (args[0] === from) args[0] = to;
  else if (args[0] && typeof args[0] === 'object' && args[0].port === from) args[0] = { ...args[0], port: to };
  return listen.apply(this, args);
};
`;

/** A web server: run with node on a free port, the documented URL opened in Chromium. */
export async function runServerInBrowser(snippet: Snippet, dir: string, serverOrigin: string, control: Control): Promise<BrowserResult> {
  const run = snippet.browser;
  if (!run?.url) return { ok: false, output: 'not a server snippet' };
  const documented = new URL(run.url);
  const port = await freePort();
  const appOrigin = `http://127.0.0.1:${port}`;
  mkdirSync(join(dir, 'run'), { recursive: true });
  const hook = join(dir, 'run', 'listen-port.mjs');
  writeFileSync(hook, LISTEN_HOOK);
  const file = join(dir, 'run', `${snippet.name}.mjs`);
  writeFileSync(file, await runnableSource(snippet, serverOrigin, [[documented.origin, appOrigin]]));
  await registerOrigin(control, documented.origin, appOrigin);

  const child = spawn(process.execPath, ['--import', pathToFileURL(hook).href, '--enable-source-maps', file], {
    cwd: dir,
    env: { ...process.env, ...RUN_ENV, NODE_ENV: 'development', README_CHECK_PORT_MAP: `${documented.port || 80}=${port}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const problems: string[] = [];
  try {
    await listening(port, exited);
    const url = new URL(documented.pathname + documented.search, appOrigin).href;
    const result = await walk(url, run, (u) => u.replace(appOrigin, documented.origin), problems);
    return result.ok ? result : { ok: false, output: `${result.output}\nserver output:\n${readmePositions(snippet, output)}` };
  } catch (error) {
    return { ok: false, output: `${(error as Error).message}\nserver output:\n${readmePositions(snippet, output)}` };
  } finally {
    if (child.exitCode === null) {
      child.kill();
      await exited;
    }
  }
}
