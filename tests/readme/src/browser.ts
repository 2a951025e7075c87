// Runs a README's page script as a reader would: bundled for the browser, served on 127.0.0.1
// in place of the documented app origin (http://127.0.0.1:5173), opened in Debian's Chromium,
// and signed in through the reference server's real login page.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import { type Browser, chromium } from 'playwright-core';
import type { Snippet } from './extract.ts';
import { DOCUMENTED_ORIGINS } from './harness.ts';

/** The app origin the READMEs' browser examples are served from (the demo client registers it). */
export const DOCUMENTED_APP_ORIGIN = 'http://127.0.0.1:5173';

/** The part of the reference server's in-process control the runner uses. */
interface Control {
  clients: {
    list(): Promise<{ client_id: string; redirect_uris?: string[]; post_logout_redirect_uris?: string[] }[]>;
    update(clientId: string, changes: Record<string, unknown>): Promise<unknown>;
  };
}

/** Passwords of the demo users, as the README tells a reader. */
const DEMO_PASSWORDS: Record<string, string> = { alice: 'wonderland', bob: 'builder' };

let browser: Promise<Browser> | undefined;

export function closeBrowser(): Promise<void> {
  return browser ? browser.then((b) => b.close()) : Promise.resolve();
}

/** Bundles the snippet with the app and server origins mapped, as a module for a page. */
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

/** Adds the app's real origin beside every documented 127.0.0.1:5173 URI of the demo clients. */
async function registerAppOrigin(control: Control, appOrigin: string): Promise<void> {
  const map = (uris: string[] | undefined) => [...(uris ?? []), ...(uris ?? []).filter((u) => u.startsWith(DOCUMENTED_APP_ORIGIN)).map((u) => u.replace(DOCUMENTED_APP_ORIGIN, appOrigin))];
  for (const client of await control.clients.list()) {
    if (!client.redirect_uris?.some((u) => u.startsWith(DOCUMENTED_APP_ORIGIN))) continue;
    await control.clients.update(client.client_id, { redirect_uris: map(client.redirect_uris), post_logout_redirect_uris: map(client.post_logout_redirect_uris) });
  }
}

export interface BrowserResult {
  ok: boolean;
  output: string;
}

/**
 * Serves the bundled snippet as the only script of an app on a free port, opens its start page,
 * signs in on the login page (and allows consent) when the snippet's marker names a user, and
 * waits for the text the marker expects.
 */
export async function runInBrowser(snippet: Snippet, dir: string, serverOrigin: string, control: Control): Promise<BrowserResult> {
  const run = snippet.browser;
  if (!run) return { ok: false, output: 'not a browser snippet' };
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
  const appOrigin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  const problems: string[] = [];
  try {
    script = await bundle(snippet, dir, serverOrigin, appOrigin);
    await registerAppOrigin(control, appOrigin);
    browser ??= chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
    const context = await (await browser).newContext();
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    try {
      await page.goto(`${appOrigin}/`);
      const expected = page.getByText(run.expects);
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
      return { ok: false, output: [(error as Error).message.split('\n')[0], `page: ${page.url().replace(appOrigin, DOCUMENTED_APP_ORIGIN)}`, `text: ${text.trim().slice(0, 300)}`, ...problems].join('\n') };
    } finally {
      await context.close();
    }
  } catch (error) {
    return { ok: false, output: [(error as Error).message, ...problems].join('\n') };
  } finally {
    await new Promise((resolve) => app.close(resolve));
  }
}
