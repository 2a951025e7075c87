import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedModuleGraph, sharedTestConfig } from '../../vitest.shared.ts';

// Node files share one module graph; one Chromium for the run (global setup). The readiness
// reporter prints the plan-by-plan table once every file has run.
export default defineConfig(
  mergeConfig(
    mergeConfig(sharedTestConfig, {
      test: {
        reporters: ['./test/support/readiness-reporter.ts'],
        globalSetup: ['test/support/chromium-setup.ts'],
      },
    }),
    sharedModuleGraph(fileURLToPath(new URL('.', import.meta.url)), { setupFiles: ['test/support/fresh-jwks-cache.ts'] }),
  ),
);
