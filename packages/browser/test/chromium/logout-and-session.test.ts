// @vitest-environment node
/**
 * `@oidc-rp/browser/session` in real Chromium against the reference server over real HTTP,
 * signed in through its real login page: Session Management 1.0 (session_state kept from the
 * callback, the provider's check_session_iframe framed and asked, `unchanged` while signed in,
 * `changed` after a logout at the provider and with the `check_session_changed` fault, each
 * ending the local session) and Front-Channel Logout 1.0 (the provider's logout page frames the
 * app's page, which ends the session in the app's other tab). The attacks: "changed" posted by
 * another origin or by the page itself is ignored; a session_state made for another origin is
 * answered `changed`; a client_id the origin is not registered for gets `error`; a forged
 * front-channel request (another iss, an unknown sid) ends nothing.
 */
import { createHash } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PageServer, startPageServer } from '../../../../test-support/page-server';
import type { BrowserClient } from '../../src/index';
import type { FrontChannelLogout, SessionManagement } from '../../src/session';
import { type ChromiumApp, type Reference, startChromiumApp } from '../support/chromium-app';
import { signInOnLoginForm } from '../support/provider-pages';
import { bundleSdkFromSources } from '../support/sdk-bundle';

declare global {
  interface Window {
    oidcRp: typeof import('../../src/index');
    oidcRpSession: typeof import('../../src/session');
    client: BrowserClient;
    sessions: SessionManagement;
    fcl: FrontChannelLogout;
    issuer: string;
    clientId: string;
    ready: Promise<void>;
    fclResult: string;
    heard: unknown[];
  }
}

let env: ChromiumApp;
let app: PageServer;
let attacker: PageServer;
let reference: Reference;
let issuer: string;
const SM = 'spa-session';
const FCL = 'spa-frontchannel';

// Every path serves this page: the app (/), the callback, and the front-channel logout page (/fcl).
const PAGE = `<!doctype html><title>app</title><script src="/sdk.js"></script><script src="/config.js"></script><script>
  const { createBrowserClient, discovery } = window.oidcRp;
  const { sessionManagement, frontChannelLogout } = window.oidcRpSession;
  window.client = createBrowserClient({
    provider: discovery(window.issuer),
    clientId: window.clientId,
    redirectUri: location.origin + '/callback',
    postLogoutRedirectUri: location.origin + '/',
    scope: 'openid profile',
    tokenStorage: 'sessionStorage',
  });
  window.sessions = sessionManagement(window.client, { clientId: window.clientId, interval: 3600000 });
  window.fcl = frontChannelLogout(window.client);
  window.ready = (async () => {
    if (location.pathname === '/fcl') {
      window.fclResult = await window.fcl.handleRequest().then(() => 'handled', (error) => error.code);
      return;
    }
    if (window.client.isRedirectCallback()) await window.sessions.handleRedirectCallback();
    await window.client.init();
    window.fcl.listen();
  })();
</script>`;

// Another origin's page: it posts "changed" to the window that frames it.
const ATTACK = `<!doctype html><title>attacker</title><script>parent.postMessage('changed', '*');</script>`;

beforeAll(async () => {
  const script = `${await bundleSdkFromSources()}\n${await bundleSdkFromSources('session.ts', 'oidcRpSession')}`;
  attacker = await startPageServer({ script: '', page: ATTACK });
  env = await startChromiumApp({
    page: PAGE,
    script,
    clients: (origin) => {
      const base = {
        redirect_uris: [`${origin}/callback`],
        post_logout_redirect_uris: [`${origin}/`],
        grant_types: ['authorization_code', 'refresh_token'] as ['authorization_code', 'refresh_token'],
        scopes: ['openid', 'profile'],
        skip_consent: true,
      };
      return [
        { client_id: SM, ...base },
        { client_id: FCL, ...base, frontchannel_logout_uri: `${origin}/fcl`, frontchannel_logout_session_required: true },
      ];
    },
  });
  ({ app, reference, issuer } = env);
});

afterAll(async () => {
  await env?.close();
  await attacker?.close();
});

/** A fresh profile whose app is the registered client `clientId`. */
const profile = (clientId: string): Promise<BrowserContext> => env.profile({ clientId });

/** Logs in on the provider's real login form (or through SSO); resolves once the callback is handled. */
async function logIn(page: Page): Promise<string> {
  await page.goto(`${app.origin}/`);
  await page.evaluate(() => window.ready);
  await page.evaluate(() => void window.client.login());
  await signInOnLoginForm(page, app.origin);
  await page.waitForFunction(() => window.ready !== undefined);
  await page.evaluate(() => window.ready);
  return page.evaluate(() => window.client.getSnapshot().status);
}

/** Logs out at the provider in another tab, confirming on its page (an OP-initiated logout). */
async function logOutAtProvider(context: BrowserContext): Promise<Page> {
  const tab = await context.newPage();
  await tab.goto(`${issuer}/oidc/logout`);
  await tab.getByRole('button', { name: 'Sign out' }).click();
  await tab.waitForSelector('text=You are signed out');
  return tab;
}

const status = (page: Page) => page.evaluate(() => window.client.getSnapshot().status);

describe('session management (check_session_iframe)', () => {
  it('keeps session_state, answers unchanged while signed in, and changed after a logout at the provider: the local session ends', async () => {
    const context = await profile(SM);
    const page = await context.newPage();
    expect(await logIn(page)).toBe('authenticated');
    expect(await page.evaluate(() => sessionStorage.getItem('oidc-rp.session-state'))).toMatch(/^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]+$/);
    await page.evaluate(() => window.sessions.start());
    expect(await page.evaluate(() => window.sessions.check())).toBe('unchanged');

    await logOutAtProvider(context);
    expect(await page.evaluate(() => window.sessions.check())).toBe('changed');
    await page.waitForFunction(() => window.client.getSnapshot().status === 'unauthenticated');
    expect(await page.evaluate(() => sessionStorage.getItem('oidc-rp.session-state'))).toBeNull();
    await context.close();
  });

  it('the check_session_changed fault: the first check after start() says changed, the session ends and checking stops', async () => {
    await reference.control.faults.set(SM, 'check_session_changed');
    try {
      const context = await profile(SM);
      const page = await context.newPage();
      expect(await logIn(page)).toBe('authenticated');
      await page.evaluate(() => window.sessions.start());
      await page.waitForFunction(() => window.client.getSnapshot().status === 'unauthenticated');
      expect(await page.evaluate(() => document.querySelector('iframe[title="Session check"]'))).toBeNull();
      expect(await page.evaluate(() => window.sessions.check())).toBe('error');
      await context.close();
    } finally {
      await reference.control.faults.clear(SM);
    }
  });

  it('ignores "changed" posted by another origin\u2019s frame and by the page itself', async () => {
    const context = await profile(SM);
    const page = await context.newPage();
    expect(await logIn(page)).toBe('authenticated');
    await page.evaluate(() => window.sessions.start());
    await page.evaluate(async (attackerOrigin) => {
      const arrived = new Promise<void>((resolve) => {
        addEventListener('message', (event) => {
          if (event.origin === attackerOrigin && event.data === 'changed') resolve();
        });
      });
      const frame = document.createElement('iframe');
      frame.src = `${attackerOrigin}/`;
      document.body.append(frame);
      await arrived;
      const own = new Promise<void>((resolve) => addEventListener('message', (event) => event.source === window && resolve()));
      window.postMessage('changed', '*');
      await own;
    }, attacker.origin);
    expect(await status(page)).toBe('authenticated');
    // The provider's own answer still comes through.
    expect(await page.evaluate(() => window.sessions.check())).toBe('unchanged');
    expect(await status(page)).toBe('authenticated');
    await context.close();
  });

  it('the provider answers changed to a session_state made for another origin, and error to a client the origin is not registered for', async () => {
    const context = await profile(SM);
    const page = await context.newPage();
    expect(await logIn(page)).toBe('authenticated');
    // The test's own frame of the provider's iframe (no polling beside it to share answers with).
    await page.evaluate(async (src) => {
      const frame = document.createElement('iframe');
      frame.title = 'Test session check';
      const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
      frame.src = src;
      document.body.append(frame);
      await loaded;
    }, `${issuer}/oidc/check-session`);
    const cookies = await context.cookies(`${issuer}/`);
    const browserState = cookies.find((c) => c.name === 'rs_opbs')?.value as string;
    expect(browserState).toBeTruthy();
    const stateFor = (origin: string) => {
      const salt = 'test-salt';
      return `${createHash('sha256').update(`${SM} ${origin} ${browserState} ${salt}`).digest('base64url')}.${salt}`;
    };
    const ask = (message: string) =>
      page.evaluate(
        ({ message, op }) =>
          new Promise<unknown>((resolve) => {
            const frame = document.querySelector('iframe[title="Test session check"]') as HTMLIFrameElement;
            addEventListener('message', function answer(event) {
              if (event.source !== frame.contentWindow) return;
              removeEventListener('message', answer);
              resolve(event.data);
            });
            frame.contentWindow?.postMessage(message, op);
          }),
        { message, op: new URL(issuer).origin },
      );
    expect(await ask(`${SM} ${stateFor(app.origin)}`)).toBe('unchanged'); // the test computes it right
    expect(await ask(`${SM} ${stateFor(attacker.origin)}`)).toBe('changed');
    expect(await ask(`web ${stateFor(app.origin)}`)).toBe('error');
    expect(await ask('no-space-here')).toBe('error');
    await context.close();
  });
});

describe('front-channel logout', () => {
  it('the provider\u2019s logout page frames the app\u2019s page with iss and sid, which ends the session in the app\u2019s tab', async () => {
    const context = await profile(FCL);
    const page = await context.newPage();
    expect(await logIn(page)).toBe('authenticated');
    const sid = await page.evaluate(() => window.client.getUser()?.sid);
    expect(sid).toBeTruthy();
    const framed = new Promise<string>((resolve) => context.on('request', (request) => request.url().startsWith(`${app.origin}/fcl`) && resolve(request.url())));
    await logOutAtProvider(context);
    const url = new URL(await framed);
    expect(url.searchParams.get('iss')).toBe(issuer);
    expect(url.searchParams.get('sid')).toBe(sid);
    await page.waitForFunction(() => window.client.getSnapshot().status === 'unauthenticated');
    await context.close();
  });

  it('a forged request (another iss; an unknown sid) ends nothing', async () => {
    const context = await profile(FCL);
    const page = await context.newPage();
    expect(await logIn(page)).toBe('authenticated');
    const sid = await page.evaluate(() => window.client.getUser()?.sid as string);
    await page.evaluate(() => {
      window.heard = [];
      new BroadcastChannel('oidc-rp.frontchannel-logout').onmessage = (event) => window.heard.push(event.data);
    });
    const forged = await context.newPage();
    await forged.goto(`${app.origin}/fcl?iss=${encodeURIComponent('https://evil.example/demo')}&sid=${sid}`);
    expect(await forged.evaluate(() => window.ready.then(() => window.fclResult))).toBe('frontchannel_logout_iss_mismatch');
    await forged.goto(`${app.origin}/fcl?iss=${encodeURIComponent(issuer)}`);
    expect(await forged.evaluate(() => window.ready.then(() => window.fclResult))).toBe('frontchannel_logout_sid_missing');
    await forged.goto(`${app.origin}/fcl?iss=${encodeURIComponent(issuer)}&sid=guessed-sid`);
    expect(await forged.evaluate(() => window.ready.then(() => window.fclResult))).toBe('handled');
    // Only the well-formed request was broadcast; the tab heard it and stayed signed in.
    await page.waitForFunction(() => window.heard.length > 0);
    expect(await page.evaluate(() => window.heard)).toEqual([{ iss: issuer, sid: 'guessed-sid' }]);
    await page.evaluate(() => window.client.getProvider());
    expect(await status(page)).toBe('authenticated');
    await context.close();
  });
});
