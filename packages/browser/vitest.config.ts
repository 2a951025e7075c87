import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedModuleGraphPerEnvironment, sharedTestConfig } from '../../vitest.shared.ts';

// The page is served from the example app's origin, the one the demo client registers. The
// happy-dom files share one page and module graph, each starting on a fresh page (storage, URL,
// channels, listeners: test/support/fresh-page.ts); the node files (builds, Chromium) share
// another, with one Chromium for the files that drive it (test/chromium), not one per file.
export default defineConfig(
  mergeConfig(
    mergeConfig(sharedTestConfig, {
      test: { environment: 'happy-dom', environmentOptions: { happyDOM: { url: 'http://127.0.0.1:5173/' } } },
    }),
    sharedModuleGraphPerEnvironment(fileURLToPath(new URL('.', import.meta.url)), {
      setupFiles: ['test/support/fresh-page.ts'],
      globalSetupFor: { node: ['test/support/chromium-setup.ts'] },
    }),
  ),
);
