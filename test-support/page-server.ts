/**
 * The app side of a test in real Chromium: a server on 127.0.0.1 (port 0) that serves a script
 * bundle at `/sdk.js`, the issuer as `window.issuer` at `/config.js`, and the test's page at
 * every other path (so a callback URL serves it too); and how Debian's Chromium is launched.
 * Node built-ins only: workspaces that have Playwright pass these options to it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { outlastClientKeepAlive } from './keep-alive';

/** `chromium.launch(CHROMIUM_LAUNCH)`: the system's Chromium, headless, as CI runs it (no sandbox in containers). */
export const CHROMIUM_LAUNCH = { executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] };

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
