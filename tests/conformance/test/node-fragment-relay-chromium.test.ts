// @vitest-environment node
// The node session layer's fragment relay in real Chromium: a server-side app (node:http, the
// session layer in front, a confidential client with client_secret_basic as the OpenID Hybrid
// RP plan pins) logs in with a response in the URL fragment through the reference server's real
// login page. The relay page's script posts the fragment back, the browser lands signed in, and
// the app's access log never holds a token, a code or an ID token; the relay POST carries no
// Referer. A page of a sibling origin (same site, another port: its POST carries the Lax
// transaction cookie) that posts a response for the victim's pending login is refused.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ResponseType,
  type SessionAuth,
  createNodeClient,
  createSessionAuth,
  sendWebResponse,
  serviceProvider,
  toWebRequest,
} from '@oidc-rp/node';
import { createReferenceServer, demoConfig } from '@oidc-rp/reference-server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outlastClientKeepAlive } from '../../../test-support/keep-alive';
import { connectChromium } from './support/chromium';

const SECRET = 'Xq7vN2pLk9WzR4tY8mB3cJ6hF1sD5gA0eUoI';
let reference: Awaited<ReturnType<typeof createReferenceServer>>;
let closeReference: () => Promise<void>;
let issuer = '';
let appOrigin = '';
let app: Server;
let sibling: Server;
let siblingOrigin = '';
let auth: SessionAuth;
let browser: Browser;
/** The app's access log: request lines, and the headers of each POST to the callback. */
const log: string[] = [];
const callbackPosts: Record<string, string | string[] | undefined>[] = [];

function listen(server: Server): Promise<string> {
  outlastClientKeepAlive(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

function useResponseType(responseType: ResponseType): void {
  const client = createNodeClient({
    provider: serviceProvider(issuer),
    clientId: 'web',
    clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
    authMethod: 'client_secret_basic',
    redirectUri: `${appOrigin}/auth/callback`,
    scope: 'openid profile email',
    cookieSecret: 'Jq8Wm2Zr5Tn7Kc4Xv9Lb3Pd6Yh1Gf0Es7Ua',
    responseType,
    responseMode: 'fragment',
  });
  auth = createSessionAuth({ client, secret: SECRET });
}

beforeAll(async () => {
  app = createServer(async (req: IncomingMessage, res) => {
    log.push(`${req.method} ${req.url}`);
    if (req.method === 'POST' && req.url?.startsWith('/auth/callback')) callbackPosts.push({ ...req.headers });
    const request = await toWebRequest(req);
    const response =
      (await auth.handle(request)) ??
      (new URL(request.url).pathname === '/me'
        ? await auth.requiresAuth((_r, session) => Response.json({ sub: session.user.sub }))(request)
        : new Response('<!doctype html><title>home</title><p>home</p>', { headers: { 'content-type': 'text/html' } }));
    await sendWebResponse(res, response);
  });
  appOrigin = await listen(app);
  // Another port of the same host: same site as the app, another origin.
  sibling = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>sibling</title>'));
  siblingOrigin = await listen(sibling);

  const config = demoConfig();
  const web = config.tenants[0]?.clients?.find((client) => client.client_id === 'web');
  if (!web) throw new Error('the demo config has no web client');
  web.redirect_uris = [`${appOrigin}/auth/callback`];
  web.skip_consent = true;
  web.token_endpoint_auth_method = 'client_secret_basic';
  web.grant_types = ['authorization_code', 'refresh_token', 'implicit'];
  web.response_types = ['code', 'code id_token', 'code token', 'code token id_token', 'id_token token', 'id_token'];
  reference = await createReferenceServer(config, { logger: false, developmentKeys: true });
  const listening = await reference.listen({ port: 0, host: '127.0.0.1' });
  closeReference = () => listening.close();
  issuer = `${listening.origin}/demo`;
  browser = await connectChromium();
});

afterAll(async () => {
  await browser?.close();
  await closeReference?.();
  app?.closeAllConnections();
  app?.close();
  sibling?.close();
});

/** Starts the login and signs in on the provider's real form; resolves when Chromium is back on the app past the callback. */
async function logIn(page: Page): Promise<void> {
  await page.goto(`${appOrigin}/auth/login`);
  await page.waitForURL((url) => url.pathname.endsWith('/login'));
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Password').fill('wonderland');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.origin === appOrigin && url.pathname !== '/auth/callback');
}

const tokenCalls = () => reference.requests().filter((entry) => entry.endpoint === '/oidc/token').length;

describe('the node session layer relays a fragment response in Chromium', () => {
  it.each<ResponseType>(['code id_token', 'code token', 'code token id_token', 'id_token token', 'id_token'])(
    '%s: signed in; no token, code or ID token in any URL the app received; the relay POST is same-origin with no Referer',
    async (responseType) => {
      useResponseType(responseType);
      log.length = 0;
      callbackPosts.length = 0;
      const before = tokenCalls();
      const context = await browser.newContext();
      context.setDefaultTimeout(10_000);
      const page = await context.newPage();
      await logIn(page);
      expect(new URL(page.url()).pathname).toBe('/');
      expect(await page.evaluate(async () => (await fetch('/me', { headers: { accept: 'application/json' } })).json())).toEqual({ sub: 'alice' });
      expect(tokenCalls() - before).toBe(responseType.includes('code') ? 1 : 0);
      expect(log).toContain('GET /auth/callback');
      expect(log).toContain('POST /auth/callback');
      expect(log.filter((line) => /code=|token=|id_token|state=|#/.test(line))).toEqual([]);
      expect(callbackPosts).toHaveLength(1);
      expect(callbackPosts[0]).toMatchObject({ 'sec-fetch-site': 'same-origin' });
      expect(callbackPosts[0]?.referer).toBeUndefined();
      // Back in history: the callback entry no longer holds the fragment (the relay replaced it).
      await page.goBack();
      await page.waitForLoadState();
      expect(new URL(page.url()).hash).toBe('');
      await context.close();
    },
  );

  it('a sibling origin posting a response for the pending login is refused (authorization_response_invalid), no token request, not signed in', async () => {
    useResponseType('code id_token');
    const context = await browser.newContext();
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    // The victim's login is pending: its transaction cookie is in this browser.
    const [redirect] = await Promise.all([
      page.waitForResponse((response) => response.url() === `${appOrigin}/auth/login`),
      page.goto(`${appOrigin}/auth/login`),
    ]);
    const pendingState = new URL(redirect.headers().location ?? '').searchParams.get('state') ?? '';
    expect(pendingState).not.toBe('');
    const before = tokenCalls();
    await page.goto(`${siblingOrigin}/`);
    await page.evaluate(
      ({ target, fields }) => {
        const form = document.createElement('form');
        form.method = 'post';
        form.action = target;
        for (const [name, value] of Object.entries(fields)) {
          const input = document.createElement('input');
          input.type = 'hidden';
          input.name = name;
          input.value = value;
          form.append(input);
        }
        document.body.append(form);
        form.submit();
      },
      { target: `${appOrigin}/auth/callback`, fields: { state: pendingState, code: 'attacker-code', id_token: 'a.b.c' } },
    );
    await page.waitForURL((url) => url.origin === appOrigin);
    expect(await page.textContent('body')).toContain('authorization_response_invalid');
    expect(tokenCalls()).toBe(before);
    // The browser's cookies hold no session (the error page's CSP allows no fetch: ask from outside it).
    expect((await context.request.get(`${appOrigin}/me`, { headers: { accept: 'application/json' } })).status()).toBe(401);
    await context.close();
  });
});

