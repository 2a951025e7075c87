import type { ViteUserConfig } from 'vitest/config';

/**
 * Settings every workspace's vitest config starts from: a JSON report for the root
 * summary line, and no silently passing suites.
 */
export const sharedTestConfig = {
  test: {
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
    passWithNoTests: false,
    restoreMocks: true,
    testTimeout: 15_000,
  },
} satisfies ViteUserConfig;
