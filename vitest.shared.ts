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
    // A hang guard, not an assertion: room for a machine busy with other work (see CONTRIBUTING).
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
} satisfies ViteUserConfig;
