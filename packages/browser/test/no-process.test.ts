// @vitest-environment node
/**
 * Core and browser as built (`dist/`, both the default build and the one the `production`
 * export condition picks) run where there is no `process` global: a browser loading the ES
 * modules without a bundler, Cloudflare Workers without Node compatibility, Deno. The built
 * files are linked into one script as they are (esbuild bundles them; it defines nothing, so
 * any `process` they read stays a read of the global) and run in a `node:vm` context that has
 * only the platform globals a browser has: a login's request, a callback redeemed against the
 * reference server over HTTP, and an error path that must be an OidcError with its code.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createContext, runInContext } from 'node:vm';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE, REDIRECT_URI, startProvider, type Provider } from './harness';

type Browser = typeof import('../src/index');
const dist = (pkg: string, file = 'index.mjs') => fileURLToPath(new URL(`../../${pkg}/dist/${file}`, import.meta.url));

let provider: Provider;
beforeAll(async () => {
  provider = await startProvider();
});
afterAll(() => provider.stop());

/** The built packages, resolved under `conditions`, loaded into a context without `process`. */
async function loadBuilt(conditions: string[]): Promise<{ browser: Browser; context: Record<string, unknown> }> {
  // The browser package's own file as its exports map picks it; core's through the same conditions.
  const entry = dist('browser', conditions.includes('production') ? 'index.production.mjs' : 'index.mjs');
  for (const file of [entry, dist('core')]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run pnpm build first`);
  }
  const { outputFiles } = await build({
    stdin: { contents: `export * from ${JSON.stringify(entry)};`, resolveDir: fileURLToPath(new URL('.', import.meta.url)), loader: 'js' },
    bundle: true,
    format: 'iife',
    globalName: 'oidcRp',
    platform: 'browser',
    conditions,
    write: false,
    logLevel: 'error',
  });
  const code = outputFiles[0]!.text;
  // What a page or a worker has; deliberately no `process`, `require`, `global` or `Buffer`.
  const context = createContext({
    crypto: globalThis.crypto,
    fetch,
    Headers,
    Request,
    Response,
    URL,
    URLSearchParams,
    TextEncoder,
    TextDecoder,
    AbortController,
    AbortSignal,
    DOMException,
    Blob,
    FormData,
    ReadableStream,
    WritableStream,
    TransformStream,
    Event,
    EventTarget,
    queueMicrotask,
    atob,
    btoa,
    setTimeout,
    clearTimeout,
    structuredClone,
    console,
  });
  runInContext(code, context);
  expect(runInContext('typeof process', context)).toBe('undefined');
  return { browser: runInContext('oidcRp', context) as Browser, context };
}

describe.each([
  ['default build', [] as string[]],
  ['production build', ['production']],
])('the %s, without a process global', (name, conditions) => {
  it('builds a login request, redeems the callback, and reports a bad callback as an OidcError with its code', async () => {
    const { browser } = await loadBuilt(conditions);
    const page = { url: PAGE, redirects: [] as string[] };
    const client = browser.createBrowserClient({
      provider: browser.serviceProvider(provider.issuer),
      clientId: 'spa',
      redirectUri: REDIRECT_URI,
      transactionStorage: browser.memoryStorage(),
      navigate: {
        currentUrl: () => page.url,
        redirect: (url) => void page.redirects.push(url),
        replaceUrl: (url) => {
          page.url = url;
        },
      },
    });

    // The request.
    await client.login();
    const authorize = new URL(page.redirects[0]!);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');

    // The callback: code exchange and ID-token signature validation over HTTP.
    page.url = await provider.login(authorize.href);
    await client.handleRedirectCallback();
    expect(client.getSnapshot()).toMatchObject({ status: 'authenticated', user: { sub: 'alice' } });
    expect(await client.getAccessToken()).toEqual(expect.any(String));

    // An error path: a forged callback.
    const error = await client.handleRedirectCallback(`${REDIRECT_URI}?code=x&state=forged`).catch((e: unknown) => e);
    expect(browser.isOidcError(error)).toBe(true);
    expect(error).toBeInstanceOf(browser.OidcError);
    expect(error).toMatchObject({ code: 'transaction_not_found' });
    expect((error as Error).message).toBe(
      name === 'default build' ? 'No login of this tab matches the state; start a new login.' : 'transaction_not_found (oidc-rp error code)',
    );
    // A caller mistake from core, before any request.
    expect(() => browser.serviceProvider('http://login.example.com')).toThrow(expect.objectContaining({ code: 'invalid_options' }));
  });
});
