/**
 * The builds of the command line, for tsup.config.ts and for the CLI tests (which build it from
 * source into a directory of their own, so they never run a stale dist/):
 * - `cli-bundle.cjs`: src/cli.ts with its runtime dependencies bundled in (one file to load
 *   instead of a few hundred modules takes about a third off start-up; Redis stays external,
 *   loaded only when a config asks for it). CommonJS: Node loads it faster than an ES module.
 * - `cli.js`, the documented path: a small ES module that runs the bundle (src/cli-launcher.ts).
 */
import type { Options } from 'tsup';
import { http1Only } from './http1-only';

export function cliBuilds(overrides: Options = {}): Options[] {
  const common: Options = { target: 'es2022', platform: 'node', removeNodeProtocol: false, clean: false, ...overrides };
  return [
    {
      ...common,
      entry: { 'cli-bundle': 'src/cli.ts' },
      format: ['cjs'],
      outExtension: () => ({ js: '.cjs' }),
      noExternal: ['jose', 'hono', '@hono/node-server', 'zod'],
      // It serves HTTP/1.1 only: Node's HTTP/2 stack is not loaded (build/http1-only.ts).
      esbuildPlugins: [http1Only],
      sourcemap: true,
    },
    { ...common, entry: { cli: 'src/cli-launcher.ts' }, format: ['esm'] },
  ];
}
