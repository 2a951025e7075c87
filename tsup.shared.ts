import type { Options } from 'tsup';
// The production build of core and browser: development-only error messages removed.
import { productionMessagesPlugin } from './scripts/lib/dev-messages-plugin.mjs';
// Internal properties (named with a trailing `_`) shortened in the browser-facing packages.
import { mangleProps } from './scripts/lib/internal-props.mjs';

/** One build shape for every publishable package: ESM (.mjs) + CJS (.cjs) + declarations. */
export function libraryBuild(entry: Record<string, string> | string[] = ['src/index.ts']): Options {
  return {
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'es2022',
    treeshake: true,
    // tsup strips `node:` by default; bare `crypto` breaks bundlers and runtimes that only
    // know the prefixed name (Deno, edge sandboxes), so built-ins keep it.
    removeNodeProtocol: false,
    outExtension: ({ format }) => ({ js: format === 'esm' ? '.mjs' : '.cjs' }),
  };
}

/**
 * The builds of core and browser: `index.*` with every error message (the default export
 * condition), and `index.production.*` without the development-only text (the `production`
 * condition). Both shorten the internal properties. tsup runs the two in parallel, so neither
 * cleans `dist` (the packages' build script empties it first).
 */
export function messageBuilds(): Options[] {
  const base: Options = {
    ...libraryBuild(),
    clean: false,
    esbuildOptions(options) {
      options.mangleProps = mangleProps;
    },
  };
  return [
    base,
    {
      ...base,
      entry: { 'index.production': 'src/index.ts' },
      dts: false,
      esbuildPlugins: [productionMessagesPlugin],
    },
  ];
}
