// @vitest-environment node
// Every module run of the certification plans that @oidc-rp/browser can run today (Config, the
// implicit id_token token variant, refresh), in real Chromium (the run's one browser) through
// the reference server's real login page, as a page that bundles the installed package. One
// test per distinct run; sequential, judged by the provider's request journal.
import { createReferenceServer, type Listening, type ReferenceServer } from '@oidc-rp/reference-server';
import { bundleInstalledBrowserSdk } from '@oidc-rp/conformance/support/installed-sdk';
import { connectChromium } from '@oidc-rp/conformance/support/chromium';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type PageServer, startPageServer } from '../../../test-support/page-server';
import { allRuns, distinctRuns } from '../src/runs';
import { bundleInstalledSessionEntry, PAGE, runInBrowser } from './support/browser-runner';
import { runTitle } from './support/run-title';
import { certificationConfig } from './support/server-config';

let server: ReferenceServer;
let listening: Listening;
let app: PageServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  server = await createReferenceServer(certificationConfig(), { logger: false, developmentKeys: true });
  listening = await server.listen({ port: 0, host: '127.0.0.1' });
  for (const tenant of certificationConfig().tenants) {
    const response = await fetch(`${listening.origin}/${tenant.id}/oidc/jwks`);
    if (!response.ok) throw new Error(`the JWKS of tenant ${tenant.id} answered ${response.status}`);
  }
  app = await startPageServer({ script: `${await bundleInstalledBrowserSdk()}\n${await bundleInstalledSessionEntry()}`, page: PAGE });
  browser = await connectChromium();
  const context = await browser.newContext();
  context.setDefaultTimeout(15_000);
  page = await context.newPage();
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await listening?.close();
});

describe('certification plans through @oidc-rp/browser in Chromium', () => {
  for (const { run, plans } of distinctRuns(allRuns()).filter(({ run }) => run.runner === 'browser' && run.pending === undefined)) {
    it(runTitle(run, plans), async ({ task }) => {
      task.meta.certificationRun = run.key;
      await runInBrowser(run, { server, origin: listening.origin, appOrigin: app.origin, page });
    });
  }
});
