import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// Real Chromium against the reference server and the built app: one file at a time (each starts
// its own servers and browser contexts), generous but bounded time per test.
export default mergeConfig(
  sharedTestConfig,
  defineConfig({
    test: {
      include: ['test/e2e/**/*.test.ts'],
      environment: 'node',
      // One Chromium for the run; each file connects and opens contexts of its own.
      globalSetup: ['test/e2e/chromium-setup.ts'],
      fileParallelism: false,
      // The files share one worker and its module graph (vite, the reference server, Playwright),
      // instead of a fresh process importing them again per file: about 6 s of CPU per run. Each
      // file starts its own servers and browser contexts, and mocks are restored between files.
      isolate: false,
      testTimeout: 45_000,
      hookTimeout: 60_000,
    },
  }),
);
