// @vitest-environment node
/**
 * How every test of this repository launches Chromium (test-support/page-server.ts): the run's
 * browser is the headless build, which opens no browser UI page (the desktop build preloads an
 * address-bar WebUI page per window) and no spare renderers, and adding a `--disable-features` of
 * our own keeps every feature Playwright turns off (Chromium reads only the last such switch).
 */
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PLAYWRIGHT_DISABLED_FEATURES, UNUSED_PROCESS_FEATURES } from '../../../../test-support/page-server';
import { connectChromium } from '../support/chromium';

/** The features of each `--disable-features` on a process's command line, in order: Chromium uses the last. */
function disabledFeatureSwitches(pid: number): string[][] {
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  return args.filter((arg) => arg.startsWith('--disable-features=')).map((arg) => arg.slice('--disable-features='.length).split(',').filter(Boolean));
}

describe('the test browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await connectChromium();
  });
  afterAll(() => browser?.close());

  it('opens one page per context and no browser UI page beside it', async () => {
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
  it("keep Playwright's own disabled features and add ours", () => {
    // The run's Chromium, launched with our options: Playwright puts its own switch before the
    // launch's arguments, so the first is Playwright's list and the last, the one Chromium reads, ours.
    const switches = disabledFeatureSwitches(inject('chromiumPid'));
    expect(switches).toHaveLength(2);
    const [playwrights, ours] = switches as [string[], string[]];
    expect(playwrights.length).toBeGreaterThan(0);
    expect([...PLAYWRIGHT_DISABLED_FEATURES].sort()).toEqual([...playwrights].sort());
    expect([...ours].sort()).toEqual([...playwrights, ...UNUSED_PROCESS_FEATURES].sort());
  });
});
