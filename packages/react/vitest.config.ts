import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedModuleGraph, sharedTestConfig } from '../../vitest.shared.ts';

// The files render into one happy-dom page and share one module graph: each unmounts what it
// rendered (cleanup) and its client is its own; test/support/fresh-page.ts empties storage and
// resets the URL before each file.
export default mergeConfig(
  mergeConfig(sharedTestConfig, sharedModuleGraph(fileURLToPath(new URL('.', import.meta.url)), { setupFiles: ['test/support/fresh-page.ts'] })),
  defineConfig({
    test: {
      environment: 'happy-dom',
      // Type tests (*.test-d.ts) run with tsc beside the runtime tests.
      typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    },
  }),
);
