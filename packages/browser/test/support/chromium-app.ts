/**
 * What the Chromium files that log in share: the app's page server (the SDK bundle and the
 * test's page), the reference server on 127.0.0.1 with the test's clients registered for the
 * app's origin, and a connection to the run's Chromium (test/support/chromium.ts). `profile()`
 * opens a fresh browser context: own cookies and storage, the test's globals set before the
 * page's scripts run.
 */
import { createReferenceServer, demoConfig, type ServerConfig, type ServerControl } from '@oidc-rp/reference-server';
import type { Browser, BrowserContext } from 'playwright-core';
import { type PageServer, type PageServerOptions, startPageServer } from '../../../../test-support/page-server';
import { connectChromium } from './chromium';
import { bundleSdkFromSources } from './sdk-bundle';

export type Reference = Awaited<ReturnType<typeof createReferenceServer>>;
export type ClientRegistration = Parameters<ServerControl['clients']['add']>[0];

export interface ChromiumAppOptions {
  /** The HTML the app serves at every path but `/sdk.js` and `/config.js`. */
  page: string;
  /** The app's `/sdk.js`: the package bundled from its sources unless given. */
  script?: string;
  onRequest?: PageServerOptions['onRequest'];
  /** The reference server's configuration for the app's origin: the demo tenants unless given. */
  config?: (appOrigin: string) => ServerConfig;
  /** Clients registered at the demo tenant for the app's origin. */
  clients?: (appOrigin: string) => ClientRegistration[];
}

export interface ChromiumApp {
  app: PageServer;
  reference: Reference;
  /** The demo tenant's issuer, also the page's `window.issuer`. */
  issuer: string;
  browser: Browser;
  /** A fresh profile whose pages start with `globals` set on `window`. */
  profile(globals?: Record<string, unknown>): Promise<BrowserContext>;
  /** Closes this file's contexts (not the run's Chromium) and both servers. */
  close(): Promise<void>;
}

export async function startChromiumApp(options: ChromiumAppOptions): Promise<ChromiumApp> {
  let issuer = '';
  const app = await startPageServer({ script: options.script ?? (await bundleSdkFromSources()), page: options.page, issuer: () => issuer, onRequest: options.onRequest });
  const reference = await createReferenceServer(options.config?.(app.origin) ?? demoConfig(), { logger: false });
  const listening = await reference.listen({ port: 0, host: '127.0.0.1' });
  issuer = `${listening.origin}/demo`;
  for (const client of options.clients?.(app.origin) ?? []) await reference.control.clients.add(client);
  const browser = await connectChromium();
  return {
    app,
    reference,
    issuer,
    browser,
    async profile(globals = {}) {
      const context = await browser.newContext();
      context.setDefaultTimeout(10_000);
      if (Object.keys(globals).length > 0) await context.addInitScript((values) => Object.assign(window, values), globals);
      return context;
    },
    async close() {
      await browser.close();
      await listening.close();
      await app.close();
    },
  };
}
