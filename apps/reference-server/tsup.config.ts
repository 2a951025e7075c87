import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared';
import { cliBuilds } from './build/cli-build';

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
  // The command line: dist/cli.js and the bundle it runs (build/cli-build.ts).
  ...cliBuilds(),
]);
