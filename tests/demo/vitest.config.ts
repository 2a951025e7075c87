import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// One demo and one browser for the whole file; generous but bounded time per step.
export default mergeConfig(
  sharedTestConfig,
  defineConfig({ test: { include: ['test/**/*.test.ts'], fileParallelism: false, testTimeout: 45_000, hookTimeout: 90_000 } }),
);
