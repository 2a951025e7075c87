import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

export default defineConfig({
  ...sharedTestConfig,
  // The README's examples import the published entry names; in this package's tests they are the sources.
  resolve: {
    alias: {
      '@oidc-rp/reference-server/testing': fileURLToPath(new URL('./src/testing.ts', import.meta.url)),
    },
  },
});
