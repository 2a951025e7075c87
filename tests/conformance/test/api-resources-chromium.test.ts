// @vitest-environment node
// Two APIs on two other origins called from one page in real Chromium, with the browser package's
// resources part: the SPA logs in once at the reference server (real login page) asking for both
// APIs and a third one (RFC 8707), with dpop() and crossTab({ storage: 'indexedDB' }). Each API is
// guarded by @oidc-rp/node/api's requireAccessToken with `cors`, its own audience and DPoP with
// server nonces, and records every token that reaches it. What a user relies on: each API gets a
// DPoP-bound token whose audience is that API alone (never the other API's, never the login's
// token naming both), a URL of no listed API gets nothing, a resource the provider no longer
// allows is invalid_target with the session unchanged, and logout leaves no API token behind.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dpopNonces, dpopProofs, jwtAccessTokenVerifier, requireAccessToken, withAccessToken } from '@oidc-rp/node/api';
import { createReferenceServer, demoConfig } from '@oidc-rp/reference-server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PageServer, startPageServer } from '../../../test-support/page-server';
import { connectChromium } from './support/chromium';
import { bundleInstalledBrowserSdk } from './support/installed-sdk';

declare global {
  interface Window {
    oidcRp: typeof import('@oidc-rp/browser');
    client: import('@oidc-rp/browser').BrowserClient;
    issuer: string;
  }
}

interface Api {
  origin: string;
  resource: string;
  /** Every request that reached the API: method, status, and the access token it carried. */
  seen: { method: string; status: number; token: string | undefined; proof: boolean }[];
  close(): Promise<void>;
}

let app: PageServer;
let reference: Awaited<ReturnType<typeof createReferenceServer>>;
let closeReference: () => Promise<void>;
let issuer = '';
let apiA: Api;
let apiB: Api;
/** Listed by the app and, at first, registered for the client; the provider stops allowing it in one test. */
let retired = '';
let browser: Browser;

const PAGE = `<!doctype html><title>spa</title><script src="/sdk.js"></script><script src="/config.js"></script><script>
  const { createBrowserClient, crossTab, discovery, dpop, resourceIndicators } = window.oidcRp;
  const resources = JSON.parse(new URLSearchParams(location.search).get('r') ?? sessionStorage.getItem('r'));
  sessionStorage.setItem('r', JSON.stringify(resources));
  window.client = createBrowserClient({
    provider: discovery(window.issuer),
    clientId: 'spa',
    redirectUri: location.origin + '/callback',
    postLogoutRedirectUri: location.origin + '/',
    dpop: dpop(),
    crossTab: crossTab({ storage: 'indexedDB' }),
    resources: resourceIndicators({ resources }),
  });
  void window.client.init();
</script>`;

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) for (const item of [value ?? []].flat()) headers.append(name, item);
  return headers;
}

/** An API on its own 127.0.0.1 port, guarded for its own resource (`/api` on its origin). */
async function startApi(): Promise<Api> {
  let handler: ((request: Request) => Promise<Response>) | undefined;
  const seen: Api['seen'] = [];
  const server = createServer((req, res) => {
    const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers: headersOf(req) });
    void (handler ?? (async () => new Response(null, { status: 503 })))(request).then(async (response) => {
      const authorization = req.headers.authorization;
      seen.push({ method: req.method ?? '', status: response.status, token: authorization?.split(' ')[1], proof: req.headers.dpop !== undefined });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const api: Api & { guard(): void } = {
    origin,
    resource: `${origin}/api`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
    guard() {
      const guard = requireAccessToken({
        verifier: jwtAccessTokenVerifier({
          issuer,
          jwksUri: `${issuer}/oidc/jwks`,
          audience: api.resource,
          dpop: dpopProofs({ required: true, nonces: dpopNonces({ secret: `a-nonce-secret-for-this-test-only-${origin}` }) }),
        }),
        origin,
        cors: { origins: [app.origin] },
      });
      handler = withAccessToken(guard, async (_request, token) =>
        Response.json({ aud: token.claims.aud, scheme: token.scheme, jkt: (token.claims.cnf as { jkt?: string } | undefined)?.jkt }),
      );
    },
  };
  return api;
}

/** The audience of a JWT access token (the APIs check the signature; this only reads it back). */
function audienceOf(token: string | undefined): unknown {
  if (!token) return undefined;
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')).aud;
}

beforeAll(async () => {
  app = await startPageServer({ script: await bundleInstalledBrowserSdk(), page: PAGE, issuer: () => issuer });
  apiA = await startApi();
  apiB = await startApi();
  retired = `${apiA.origin}/retired`;

  const config = demoConfig();
  const tenant = config.tenants[0]!;
  tenant.access_token_format = 'jwt';
  const spa = tenant.clients!.find((c) => c.client_id === 'spa')!;
  spa.redirect_uris = [`${app.origin}/callback`];
  spa.post_logout_redirect_uris = [`${app.origin}/`];
  spa.skip_consent = true;
  spa.resources = [apiA.resource, apiB.resource, retired];
  reference = await createReferenceServer(config, { logger: false, developmentKeys: true });
  const listening = await reference.listen({ port: 0, host: '127.0.0.1' });
  closeReference = () => listening.close();
  issuer = `${listening.origin}/demo`;
  (apiA as Api & { guard(): void }).guard();
  (apiB as Api & { guard(): void }).guard();
  browser = await connectChromium();
});

afterAll(async () => {
  await browser?.close();
  await closeReference?.();
  await apiA?.close();
  await apiB?.close();
  await app?.close();
});

/** A page of the app, logged in through the provider's login page with the three resources. */
async function loggedIn(): Promise<{ page: Page; authorize: URL }> {
  const context = await browser.newContext();
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  await page.goto(`${app.origin}/?r=${encodeURIComponent(JSON.stringify([apiA.resource, apiB.resource, retired]))}`);
  const authorizeRequest = page.waitForRequest((request) => request.url().includes('/oidc/authorize'));
  await page.evaluate(() => void window.client.login({ loginHint: 'alice' }));
  const authorize = new URL((await authorizeRequest).url());
  await page.waitForURL((url) => url.origin === app.origin && url.pathname === '/callback');
  await page.waitForFunction(() => window.client.getSnapshot().status === 'authenticated');
  return { page, authorize };
}

const call = (page: Page, url: string) =>
  page.evaluate(async (target) => {
    try {
      const response = await window.oidcRp.authorizedFetch(window.client)(target);
      return { status: response.status, body: await response.json() };
    } catch (error) {
      return { code: (error as { code?: string }).code, error: (error as { error?: string }).error };
    }
  }, url);

/** The client's entries in the shared IndexedDB token storage. */
const storedKeys = (page: Page) => page.evaluate(() => window.oidcRp.indexedDbStorage().keys());

describe('the resources part: a token per API, from one login', () => {
  it('asks for every API at login; each API gets a DPoP-bound token for itself alone, first try; the other API’s token never reaches it', async () => {
    const { page, authorize } = await loggedIn();
    expect(authorize.searchParams.getAll('resource')).toEqual([apiA.resource, apiB.resource, retired]);
    const jkt = await page.evaluate(async () => (await window.client.dpop!.handle()).jkt);
    const loginToken = await page.evaluate(() => window.client.getAccessToken());
    expect(audienceOf(loginToken)).toEqual([apiA.resource, apiB.resource, retired]); // names every API: never sent to one

    expect(await call(page, `${apiA.origin}/api/orders`)).toEqual({ status: 200, body: { aud: apiA.resource, scheme: 'DPoP', jkt } });
    expect(await call(page, `${apiB.origin}/api/files/7`)).toEqual({ status: 200, body: { aud: apiB.resource, scheme: 'DPoP', jkt } });
    // A's token comes from the cache now: A again, then B again.
    expect(await call(page, `${apiA.origin}/api`)).toMatchObject({ status: 200, body: { aud: apiA.resource } });
    expect(await call(page, `${apiB.origin}/api/files`)).toMatchObject({ status: 200, body: { aud: apiB.resource } });

    // First try from another origin: preflight, the nonce challenge, the call (the guard's cors and DPoP nonce).
    expect(apiA.seen.slice(0, 3).map(({ method, status }) => `${method} ${status}`)).toEqual(['OPTIONS 204', 'GET 401', 'GET 200']);
    for (const api of [apiA, apiB]) {
      const tokens = api.seen.filter((s) => s.method === 'GET').map((s) => s.token);
      expect(tokens.length).toBeGreaterThanOrEqual(3);
      // The attack: a token of another audience (B's, or the login's naming both) reaching this API.
      for (const token of tokens) expect(audienceOf(token)).toBe(api.resource);
      expect(tokens).not.toContain(loginToken);
      expect(api.seen.filter((s) => s.method === 'GET').every((s) => s.proof)).toBe(true);
    }
    await page.context().close();
  });

  it('sends nothing to a URL of no listed API (resource_not_configured), and refuses a token for an unlisted resource', async () => {
    const { page } = await loggedIn();
    const before = apiA.seen.length;
    // Same origin as API A, outside its /api path; and the path prefix at no segment boundary.
    expect(await call(page, `${apiA.origin}/admin`)).toEqual({ code: 'resource_not_configured' });
    expect(await call(page, `${apiA.origin}/apix`)).toEqual({ code: 'resource_not_configured' });
    expect(apiA.seen.length).toBe(before);
    const unlisted = await page.evaluate(() =>
      window.client.resources!.getAccessToken('https://elsewhere.example/api').then(
        () => 'issued',
        (error: { code: string }) => error.code,
      ),
    );
    expect(unlisted).toBe('resource_not_configured');
    expect(await page.evaluate(() => window.client.getSnapshot().status)).toBe('authenticated');
    await page.context().close();
  });

  it('a resource the provider no longer allows is invalid_target, and the session and the other APIs’ tokens stay as they were', async () => {
    const { page } = await loggedIn();
    expect(await call(page, `${apiA.origin}/api/orders`)).toMatchObject({ status: 200 });
    const tokens = () =>
      page.evaluate(async () => ({ login: await window.client.getAccessToken(), a: await window.client.resources!.getAccessToken(window.client.resources!.resources[0]!) }));
    const before = await tokens();
    await reference.control.clients.update('spa', { resources: [apiA.resource, apiB.resource] });
    try {
      const refused = await page.evaluate((resource) =>
        window.client.resources!.getAccessToken(resource).then(
          () => undefined,
          (error: { code: string; error?: string; name: string }) => ({ code: error.code, error: error.error, name: error.name }),
        ),
        retired,
      );
      expect(refused).toEqual({ code: 'token_endpoint_error', error: 'invalid_target', name: 'TokenEndpointError' });
      expect(await page.evaluate(() => window.client.getSnapshot().status)).toBe('authenticated');
      expect(await tokens()).toEqual(before);
      // The refresh token survived the refusal: B's token is still issued.
      expect(await call(page, `${apiB.origin}/api`)).toMatchObject({ status: 200, body: { aud: apiB.resource } });
    } finally {
      await reference.control.clients.update('spa', { resources: [apiA.resource, apiB.resource, retired] });
    }
    await page.context().close();
  });

  it('logout removes the tokens per API with the session', async () => {
    const { page } = await loggedIn();
    expect(await call(page, `${apiB.origin}/api`)).toMatchObject({ status: 200 });
    const cacheKey = await page.evaluate(() => `oidc-rp.resources:spa:${window.issuer}`);
    expect(await storedKeys(page)).toContain(cacheKey);
    await page.evaluate(() => window.client.logout({ redirect: false }));
    expect(await storedKeys(page)).not.toContain(cacheKey);
    expect(await call(page, `${apiB.origin}/api`)).toEqual({ code: 'login_required' });
    await page.context().close();
  });
});
