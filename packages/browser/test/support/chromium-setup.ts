// Global setup: the one Chromium of this vitest run (see test-support/shared-chromium.ts), and its
// process id for test/chromium/launch.test.ts, which reads the command line it was launched with.
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { launchSharedChromium } from '../../../../test-support/shared-chromium';

export default (project: TestProject) => launchSharedChromium(chromium, project, (server) => project.provide('chromiumPid', server.process().pid ?? 0));
