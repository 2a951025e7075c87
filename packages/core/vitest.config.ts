import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedModuleGraph, sharedTestConfig } from '../../vitest.shared.ts';

// Each file builds its own clients, keys and fetch stubs: one module graph serves them all, with
// the JWKS cache emptied before each file.
export default defineConfig(
  mergeConfig(sharedTestConfig, sharedModuleGraph(fileURLToPath(new URL('.', import.meta.url)), { setupFiles: ['test/support/fresh-jwks-cache.ts'] })),
);
