import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedModuleGraph, sharedTestConfig } from '../../vitest.shared.ts';

// Every file starts its own servers, clients and stores: one module graph serves them all, with
// core's JWKS cache emptied before each file.
export default defineConfig(
  mergeConfig(sharedTestConfig, sharedModuleGraph(fileURLToPath(new URL('.', import.meta.url)), { setupFiles: ['test/support/fresh-jwks-cache.ts'] })),
);
