import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared';

export default defineConfig([
  libraryBuild({ index: 'src/index.ts', testing: 'src/testing.ts' }),
  // The CLI is an ESM-only executable at the documented path dist/cli.js. Its runtime
  // dependencies are bundled in: one file to load instead of a few hundred modules takes
  // about a third off start-up. Redis stays external, loaded only when a config asks for it.
  {
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    target: 'es2022',
    platform: 'node',
    noExternal: ['jose', 'hono', '@hono/node-server'],
    sourcemap: true,
    clean: false,
  },
]);
