import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// One demo per file, one Chromium for the run (global setup); generous but bounded time per step.
export default mergeConfig(
  sharedTestConfig,
  defineConfig({ test: { include: ['test/**/*.test.ts'], globalSetup: ['test/chromium-setup.ts'], fileParallelism: false, testTimeout: 45_000, hookTimeout: 90_000 } }),
);
