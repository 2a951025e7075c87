// @vitest-environment node
/**
 * The idTokenFlow and hybridFlow parts in real Chromium, logging in through the reference
 * server's real login page: each response type comes back in the fragment, the client signs in
 * and cleans the address bar, and the app's server never receives the fragment (its access log
 * holds no token, code or ID token). Refusals (a wrong c_hash or at_hash, another login's state)
 * leave the browser signed out with the typed code and make no token request.
 */
import type { Fault } from '@oidc-rp/reference-server';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserClient } from '../../src/index';
import { type ChromiumApp, type Reference, startChromiumApp } from '../support/chromium-app';
import { signInOnLoginForm } from '../support/provider-pages';

declare global {
  interface Window {
    oidcRp: typeof import('../../src/index');
    client: BrowserClient;
    issuer: string;
    /** Set by the test for the whole profile: the response type of the app's flow part. */
    flow: string;
  }
}

let env: ChromiumApp;
let appOrigin: string;
let reference: Reference;
const CLIENT = 'spa-front-channel';
/** The app server's access log: every request line it received. */
const appLog: string[] = [];

const PAGE = `<!doctype html><title>app</title><script src="/sdk.js"></script><script src="/config.js"></script><script>
  const { createBrowserClient, discovery, hybridFlow, idTokenFlow } = window.oidcRp;
  window.client = createBrowserClient({
    provider: discovery(window.issuer),
    clientId: ${JSON.stringify(CLIENT)},
    redirectUri: location.origin + '/callback',
    scope: 'openid profile email',
    implicitFlow: window.flow === 'id_token' ? idTokenFlow : hybridFlow(window.flow),
  });
  void window.client.init();
</script>`;

beforeAll(async () => {
  env = await startChromiumApp({
    page: PAGE,
    onRequest: (method, url) => appLog.push(`${method} ${url}`),
    clients: (origin) => [
      {
        client_id: CLIENT,
        redirect_uris: [`${origin}/callback`],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code', 'id_token', 'code id_token', 'code token id_token'],
        scopes: ['openid', 'profile', 'email'],
        skip_consent: true,
      },
    ],
  });
  ({ reference } = env);
  appOrigin = env.app.origin;
});

afterAll(() => env?.close());

/** A fresh profile whose app signs in with the response type `flow`. */
const profile = (flow: string): Promise<BrowserContext> => env.profile({ flow });

/** Logs in from the app's home page on the provider's real login form; resolves once the callback is handled. */
async function logIn(page: Page): Promise<{ status: string; code: string | undefined; sub: string | undefined; url: string }> {
  await page.goto(`${appOrigin}/`);
  await page.evaluate(() => void window.client.login());
  await signInOnLoginForm(page, appOrigin);
  await page.waitForFunction(() => window.client !== undefined && window.client.getSnapshot().status !== 'loading');
  return page.evaluate(() => {
    const { status, error, user } = window.client.getSnapshot();
    return { status, code: error?.code, sub: user?.sub, url: location.href };
  });
}

const tokenCalls = () => reference.requests().filter((entry) => entry.endpoint === '/oidc/token').length;

describe('front-channel response types in Chromium', () => {
  it.each(['id_token', 'code id_token', 'code token id_token'])('%s: signed in, the fragment gone from the address bar and never sent to the app server', async (flow) => {
    const context = await profile(flow);
    const page = await context.newPage();
    const before = tokenCalls();
    appLog.length = 0;
    const outcome = await logIn(page);
    expect(outcome).toMatchObject({ status: 'authenticated', sub: 'alice', url: `${appOrigin}/callback` });
    expect(tokenCalls() - before).toBe(flow.includes('code') ? 1 : 0);
    expect(appLog.length).toBeGreaterThan(0);
    expect(appLog.filter((line) => /code=|token=|id_token|#/.test(line))).toEqual([]);
    await context.close();
  });

  it.each<[string, Fault, string]>([
    ['code id_token', 'id_token_bad_c_hash', 'id_token_c_hash_mismatch'],
    ['code token id_token', 'id_token_bad_at_hash', 'id_token_at_hash_mismatch'],
    ['id_token', 'id_token_wrong_aud', 'id_token_aud_mismatch'],
    ['code id_token', 'redirect_wrong_state', 'transaction_not_found'],
  ])('%s with %s: refused with %s, not signed in, no token request', async (flow, fault, code) => {
    await reference.control.faults.set(CLIENT, fault, { times: 1 });
    const context = await profile(flow);
    const page = await context.newPage();
    const before = tokenCalls();
    const outcome = await logIn(page);
    expect(outcome).toMatchObject({ status: 'error', code });
    expect(tokenCalls()).toBe(before);
    expect(await page.evaluate(() => window.client.getUser() ?? null)).toBeNull();
    await reference.control.faults.clear(CLIENT);
    await context.close();
  });
});
