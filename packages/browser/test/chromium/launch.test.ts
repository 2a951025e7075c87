// @vitest-environment node
/**
 * How every test of this repository launches Chromium (test-support/page-server.ts): the run's
 * browser opens no address-bar WebUI page per window, and adding a `--disable-features` of our own
 * keeps every feature Playwright turns off (Chromium reads only the last such switch).
 */
import { readFileSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_LAUNCH, PLAYWRIGHT_DISABLED_FEATURES, UNUSED_WINDOW_FEATURES } from '../../../../test-support/page-server';
import { connectChromium } from '../support/chromium';

/** The features of the last `--disable-features` on a process's command line: the ones Chromium uses. */
function disabledFeatures(pid: number): string[] {
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  const last = args.filter((arg) => arg.startsWith('--disable-features=')).at(-1) ?? '--disable-features=';
  return last.slice('--disable-features='.length).split(',').filter(Boolean);
}

describe('the test browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await connectChromium();
  });
  afterAll(() => browser?.close());

  it('opens one page per context and no WebUI popup beside it', async () => {
    const contexts = await Promise.all([browser.newContext(), browser.newContext()]);
    for (const context of contexts) await (await context.newPage()).goto('data:text/html,<title>app</title>');
    const cdp = await browser.newBrowserCDPSession();
    const { targetInfos } = (await cdp.send('Target.getTargets', { filter: [{}] })) as { targetInfos: { type: string; url: string }[] };
    await cdp.detach();
    expect(targetInfos.filter((t) => t.type === 'page' && t.url.startsWith('data:text/html'))).toHaveLength(2);
    expect(targetInfos.filter((t) => t.type === 'browser_ui').map((t) => t.url)).toEqual([]);
    await Promise.all(contexts.map((c) => c.close()));
  });
});

describe('the launch options', () => {
  it("keep Playwright's own disabled features and add ours", async () => {
    const plain = await chromium.launchServer({ executablePath: CHROMIUM_LAUNCH.executablePath, args: ['--headless', '--no-sandbox'] });
    const ours = await chromium.launchServer(CHROMIUM_LAUNCH);
    try {
      const playwrights = disabledFeatures(plain.process().pid as number);
      expect(playwrights.length).toBeGreaterThan(0);
      expect([...PLAYWRIGHT_DISABLED_FEATURES].sort()).toEqual([...playwrights].sort());
      expect(disabledFeatures(ours.process().pid as number).sort()).toEqual([...playwrights, ...UNUSED_WINDOW_FEATURES].sort());
    } finally {
      await Promise.all([plain.close(), ours.close()]);
    }
  });
});
