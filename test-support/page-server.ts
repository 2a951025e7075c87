/**
 * The app side of a test in real Chromium: a server on 127.0.0.1 (port 0) that serves a script
 * bundle at `/sdk.js`, the issuer as `window.issuer` at `/config.js`, and the test's page at
 * every other path (so a callback URL serves it too); and how Debian's Chromium is launched.
 * Node built-ins only: workspaces that have Playwright pass these options to it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { outlastClientKeepAlive } from './keep-alive';

/**
 * The features Playwright 1.65 turns off in every Chromium it launches. Chromium reads only the
 * last `--disable-features` of its command line, so a launch that adds one must repeat these
 * (test/chromium/launch.test.ts in @oidc-rp/browser fails when a Playwright upgrade adds one).
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AimEnabled',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsFirstBalancedModeAutoEnable',
  'HttpsUpgrades',
  'LensOverlay',
  'MediaRouter',
  'NetworkTimeServiceQuerying',
  'OptimizationHints',
  'PaintHolding',
  'PreconnectToSearch',
  'TcpPortRandomizationWin',
  'ThirdPartyStoragePartitioning',
  'msEdgeUpdateLaunchServicesPreferredVersion',
  'msForceBrowserSignIn',
];

/**
 * Chromium starts a spare renderer process ahead of each navigation, for the site it may go to
 * next. A sign-in walks between the app's and the reference server's origins (one site,
 * 127.0.0.1) several times, in a browser context per test, and the spares were started and
 * dropped (measured on the README check's nine sign-in walks: 43 renderer processes with them, 11
 * without; 21.8 s against 18.5 s of CPU for the walks, browser included).
 */
export const UNUSED_PROCESS_FEATURES = ['SpareRendererForSitePerProcess'];

/**
 * `chromium.launch(CHROMIUM_LAUNCH)`: Debian's Chromium as CI runs it (no sandbox in containers),
 * in its headless build, the `chromium-headless-shell` package: the same Blink, V8 and network
 * stack as the `chromium` package without the desktop browser around them, and what Playwright
 * itself runs headless tests in. The full browser builds its window, address bar and profile
 * services for every context, which no test uses: 20 contexts, each with two navigations and a
 * click, took 18.1 s of CPU there and 11.0 s here, and a launch 0.8 s against 0.3 s.
 */
export const CHROMIUM_LAUNCH = {
  executablePath: '/usr/bin/chromium-headless-shell',
  args: ['--headless', '--no-sandbox', '--disable-gpu', `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...UNUSED_PROCESS_FEATURES].join(',')}`],
};

export interface PageServerOptions {
  /** The bundle served as `/sdk.js`. */
  script: string;
  /** The HTML served at every other path. */
  page: string;
  /** The issuer `/config.js` sets as `window.issuer`, read per request (it may be known only after the page server starts). */
  issuer?: () => string;
  /** Told every request's method and URL as the server received it (its access log). */
  onRequest?: (method: string, url: string) => void;
}

export interface PageServer {
  origin: string;
  close(): Promise<void>;
}

export async function startPageServer({ script, page, issuer, onRequest }: PageServerOptions): Promise<PageServer> {
  const server = createServer((request, response) => {
    onRequest?.(request.method ?? '', request.url ?? '');
    if (request.url === '/sdk.js') response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else if (request.url === '/config.js' && issuer) response.writeHead(200, { 'content-type': 'text/javascript' }).end(`window.issuer = ${JSON.stringify(issuer())};`);
    else response.writeHead(200, { 'content-type': 'text/html' }).end(page);
  });
  outlastClientKeepAlive(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
