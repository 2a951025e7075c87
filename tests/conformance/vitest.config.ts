import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedModuleGraph, sharedTestConfig } from '../../vitest.shared.ts';

// Node by default; the browser suite opts into happy-dom with a docblock (and so keeps a module
// graph of its own). Its page is served from the origin the conformance tenant registers for its
// SPA clients. Every file starts its own servers and peers: the node files share one graph.
export default defineConfig(
  mergeConfig(
    mergeConfig(sharedTestConfig, {
      test: {
        environmentOptions: { happyDOM: { url: 'http://127.0.0.1:5173/' } },
        // One Chromium for the browser interop files, not one each.
        globalSetup: ['test/support/chromium-setup.ts'],
        // oidc-provider (the interop peer) announces its development-only defaults and that it
        // prefers Node 22 on every start: expected here, and noise a reader should not weigh.
        onConsoleLog: (log: string) => !log.includes('oidc-provider WARNING'),
      },
    }),
    sharedModuleGraph(fileURLToPath(new URL('.', import.meta.url)), { setupFiles: ['test/support/fresh-jwks-cache.ts'] }),
  ),
);
