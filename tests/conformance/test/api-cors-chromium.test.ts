// @vitest-environment node
// An API on another origin called from a page in real Chromium: the SPA (one 127.0.0.1 port) logs
// in at the reference server with dpop() and the API's RFC 8707 resource, then calls the API
// (another port), guarded by @oidc-rp/node/api's requireAccessToken with `cors` and a verifier
// that demands DPoP server nonces. The browser sends the preflight, the first call is refused
// with use_dpop_nonce, and authorizedFetch can read DPoP-Nonce only because the guard exposes
// it: the retry succeeds. A page on an unlisted origin cannot read the API's answers at all.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dpopNonces, dpopProofs, jwtAccessTokenVerifier, requireAccessToken, withAccessToken } from '@oidc-rp/node/api';
import { createReferenceServer, demoConfig } from '@oidc-rp/reference-server';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PageServer, startPageServer } from '../../../test-support/page-server';
import { connectChromium } from './support/chromium';
import { bundleInstalledBrowserSdk } from './support/installed-sdk';

declare global {
  interface Window {
    oidcRp: typeof import('@oidc-rp/browser');
    client: import('@oidc-rp/browser').BrowserClient;
    issuer: string;
    api: string;
  }
}

let app: PageServer;
let stranger: PageServer;
let reference: Awaited<ReturnType<typeof createReferenceServer>>;
let closeReference: () => Promise<void>;
let issuer = '';
let api: { origin: string; close(): Promise<void> };
let browser: Browser;
/** What reached the API: method, status and whether a DPoP proof was sent. */
const seen: { method: string; status: number; proof: boolean }[] = [];

const PAGE = `<!doctype html><title>spa</title><script src="/sdk.js"></script><script src="/config.js"></script><script>
  const { createBrowserClient, discovery, dpop } = window.oidcRp;
  window.client = createBrowserClient({
    provider: discovery(window.issuer),
    clientId: 'spa',
    redirectUri: location.origin + '/callback',
    dpop: dpop(),
  });
  void window.client.init();
</script>`;

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) for (const item of [value ?? []].flat()) headers.append(name, item);
  return headers;
}

/** The API on its own 127.0.0.1 port: one guarded route, every answer recorded. */
async function startApi(handler: () => (request: Request) => Promise<Response>): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers: headersOf(req) });
    void handler()(request).then(async (response) => {
      seen.push({ method: req.method ?? '', status: response.status, proof: req.headers.dpop !== undefined });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

beforeAll(async () => {
  const script = await bundleInstalledBrowserSdk();
  app = await startPageServer({ script, page: PAGE, issuer: () => issuer });
  stranger = await startPageServer({ script, page: '<!doctype html><title>elsewhere</title>' });
  let route: ((request: Request) => Promise<Response>) | undefined;
  api = await startApi(() => route ?? (async () => new Response(null, { status: 503 })));
  const resource = `${api.origin}/api`;

  const config = demoConfig();
  const tenant = config.tenants[0]!;
  tenant.access_token_format = 'jwt';
  const spa = tenant.clients!.find((c) => c.client_id === 'spa')!;
  spa.redirect_uris = [`${app.origin}/callback`];
  spa.skip_consent = true;
  spa.resources = [resource];
  reference = await createReferenceServer(config, { logger: false, developmentKeys: true });
  const listening = await reference.listen({ port: 0, host: '127.0.0.1' });
  closeReference = () => listening.close();
  issuer = `${listening.origin}/demo`;

  const guard = requireAccessToken({
    verifier: jwtAccessTokenVerifier({
      issuer,
      jwksUri: `${issuer}/oidc/jwks`,
      audience: resource,
      dpop: dpopProofs({ required: true, nonces: dpopNonces({ secret: 'a-nonce-secret-for-this-test-only-0123456789' }) }),
    }),
    origin: api.origin,
    cors: { origins: [app.origin] },
  });
  route = withAccessToken(guard, async (_request, token) => Response.json({ sub: token.claims.sub, aud: token.claims.aud, scheme: token.scheme }));
  browser = await connectChromium();
});

afterAll(async () => {
  await browser?.close();
  await closeReference?.();
  await api?.close();
  await app?.close();
  await stranger?.close();
});

describe('calling an API on another origin from a page', () => {
  it('logs in for the API’s resource, then a DPoP call survives the preflight and the nonce retry', async () => {
    const context = await browser.newContext();
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await page.goto(`${app.origin}/`);
    await page.evaluate((resource) => void window.client.login({ loginHint: 'alice', extra: { resource } }), `${api.origin}/api`);
    await page.waitForURL((url) => url.origin === app.origin && url.pathname === '/callback');
    await page.waitForFunction(() => window.client.getSnapshot().status === 'authenticated');

    seen.length = 0;
    const answer = await page.evaluate(async (url) => {
      const response = await window.oidcRp.authorizedFetch(window.client)(url);
      return { status: response.status, body: await response.json() };
    }, `${api.origin}/api/orders`);
    expect(answer).toEqual({ status: 200, body: { sub: 'alice', aud: `${api.origin}/api`, scheme: 'DPoP' } });
    // The browser's preflight, the proof without a nonce refused, the retry with it accepted.
    expect(seen.map(({ method, status }) => `${method} ${status}`)).toEqual(['OPTIONS 204', 'GET 401', 'GET 200']);
    expect(seen.filter((s) => s.method === 'GET').every((s) => s.proof)).toBe(true);
    await context.close();
  });

  it('a page on an unlisted origin cannot read the API’s answers', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${stranger.origin}/`);
    const outcome = await page.evaluate(async (url) => {
      try {
        const response = await fetch(url, { headers: { Authorization: 'Bearer stolen' } });
        return `read ${response.status}`;
      } catch (error) {
        return (error as Error).name;
      }
    }, `${api.origin}/api/orders`);
    expect(outcome).toBe('TypeError');
    await context.close();
  });
});
