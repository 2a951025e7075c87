import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// The page is served from the example app's origin, the one the demo client registers.
export default defineConfig(
  mergeConfig(sharedTestConfig, {
    test: {
      environment: 'happy-dom',
      // One Chromium for the files that drive it (test/chromium), not one per file.
      globalSetup: ['test/support/chromium-setup.ts'],
      environmentOptions: { happyDOM: { url: 'http://127.0.0.1:5173/' } },
    },
  }),
);
