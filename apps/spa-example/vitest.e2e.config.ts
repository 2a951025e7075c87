import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// Real Chromium against the reference server and the built app: one file at a time (each starts
// its own servers and browser), generous but bounded time per test.
export default mergeConfig(
  sharedTestConfig,
  defineConfig({
    test: {
      include: ['test/e2e/**/*.test.ts'],
      environment: 'node',
      // One Chromium for the run; each file connects and opens contexts of its own.
      globalSetup: ['test/e2e/chromium-setup.ts'],
      fileParallelism: false,
      testTimeout: 45_000,
      hookTimeout: 60_000,
    },
  }),
);
