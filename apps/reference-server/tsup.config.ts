import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared';

export default defineConfig([
  libraryBuild({ index: 'src/index.ts', testing: 'src/testing.ts' }),
  // The CLI is an ESM-only executable at the documented path dist/cli.js.
  { entry: { cli: 'src/cli.ts' }, format: ['esm'], target: 'es2022', sourcemap: true, clean: false },
]);
