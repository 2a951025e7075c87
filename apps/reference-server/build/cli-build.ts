/**
 * The builds of the command line, for tsup.config.ts and for the CLI tests (which build it from
 * source into a directory of their own, so they never run a stale dist/):
 * - `cli-bundle.cjs`: src/cli.ts with its runtime dependencies bundled in (one file to load
 *   instead of a few hundred modules takes about a third off start-up; Redis stays external,
 *   loaded only when a config asks for it). CommonJS: Node loads it faster than an ES module.
 * - `cli.js`, the documented path: a small ES module that runs the bundle (src/cli-launcher.ts).
 *   The package's `bin` (bin/oidc-rp-reference-server.cjs) requires the bundle directly: as
 *   CommonJS it spares Node's ES module loader.
 */
import type { Options } from 'tsup';

export function cliBuilds(overrides: Options = {}): Options[] {
  const common: Options = { target: 'es2022', platform: 'node', removeNodeProtocol: false, clean: false, ...overrides };
  return [
    {
      ...common,
      entry: { 'cli-bundle': 'src/cli.ts' },
      format: ['cjs'],
      outExtension: () => ({ js: '.cjs' }),
      noExternal: ['jose', 'hono', 'zod'],
      sourcemap: true,
    },
    { ...common, entry: { cli: 'src/cli-launcher.ts' }, format: ['esm'] },
  ];
}
