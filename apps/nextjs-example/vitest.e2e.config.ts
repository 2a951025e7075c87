import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// Real Chromium against the reference server and the built app (`next build` once per run, in
// the global setup): one file at a time (each starts its own servers and connects to the run's
// browser), all in one worker that keeps the module graph (`isolate: false`, as the repository's
// node suites do): the files mock nothing and share no module state, and a fresh worker per
// file imported vitest, Playwright's client, the reference server and the SDK again each time.
export default mergeConfig(
  sharedTestConfig,
  defineConfig({
    test: {
      include: ['test/e2e/**/*.test.ts'],
      environment: 'node',
      // The build (when missing), then one Chromium for the run; each file connects to it.
      globalSetup: ['test/e2e/build.ts', 'test/e2e/chromium-setup.ts'],
      fileParallelism: false,
      isolate: false,
      testTimeout: 45_000,
      hookTimeout: 60_000,
    },
  }),
);
