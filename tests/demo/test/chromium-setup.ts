// Global setup: the one Chromium of this vitest run, for both walks (see test-support/shared-chromium.ts).
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { launchSharedChromium } from '../../../test-support/shared-chromium';

export default (project: TestProject) => launchSharedChromium(chromium, project);
