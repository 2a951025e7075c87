import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// Node by default; the browser suite opts into happy-dom with a docblock. Its page is served
// from the origin the conformance tenant registers for its SPA clients.
export default defineConfig(
  mergeConfig(sharedTestConfig, {
    test: {
      environmentOptions: { happyDOM: { url: 'http://127.0.0.1:5173/' } },
    },
  }),
);
