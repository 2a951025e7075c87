import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedModuleGraph, sharedTestConfig } from '../../vitest.shared.ts';

// Each file starts its own servers, clients and stores: one module graph serves them all, with
// core's JWKS cache emptied before each file. (The one CI failure once seen with the shared graph,
// a login callback answering 400, was the keep-alive race fixed in 1b92c1d: the reference server
// then closed idle sockets at Node's 5 s while the client's pool reused them, a network_error at
// the token request. Test servers and the reference server now keep them 65 s.)
export default defineConfig(
  mergeConfig(sharedTestConfig, sharedModuleGraph(fileURLToPath(new URL('.', import.meta.url)), { setupFiles: ['test/support/fresh-jwks-cache.ts'] })),
);
