import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared';
import { http1Only } from './build/http1-only';

export default defineConfig([
  // shims: the testing entry finds its child-process script through import.meta.url, in CJS too.
  { ...libraryBuild({ index: 'src/index.ts', testing: 'src/testing.ts' }), shims: true },
  // The child side of startServerProcess, forked as a script of its own.
  {
    entry: { 'server-process-child': 'src/testing/server-process-child.ts' },
    format: ['esm'],
    outExtension: () => ({ js: '.mjs' }),
    target: 'es2022',
    platform: 'node',
    removeNodeProtocol: false,
    sourcemap: true,
    clean: false,
  },
  // The CLI is an ESM-only executable at the documented path dist/cli.js. Its runtime
  // dependencies are bundled in: one file to load instead of a few hundred modules takes
  // about a third off start-up. Redis stays external, loaded only when a config asks for it.
  {
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    target: 'es2022',
    platform: 'node',
    noExternal: ['jose', 'hono', '@hono/node-server', 'zod'],
    // It serves HTTP/1.1 only: Node's HTTP/2 stack is not loaded (build/http1-only.ts).
    esbuildPlugins: [http1Only],
    removeNodeProtocol: false,
    sourcemap: true,
    clean: false,
  },
]);
