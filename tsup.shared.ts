import type { Options } from 'tsup';
// The production build of core and browser: development-only error messages removed.
import { productionMessagesPlugin } from './scripts/lib/dev-messages-plugin.mjs';
// Internal properties (named with a trailing `_`) shortened in the browser-facing packages.
import { mangleProps } from './scripts/lib/internal-props.mjs';

/**
 * Each entry's declarations, bundled from the .d.ts files the build's first step emitted into
 * `.types/` (scripts/lib/declarations.mjs): `src/api/index.ts` is read as `.types/api/index.d.ts`.
 */
export function declarationEntries(entry: Record<string, string> | string[]): Record<string, string> {
  const named = Array.isArray(entry) ? Object.fromEntries(entry.map((path) => [path.replace(/^.*\//, '').replace(/\.tsx?$/, ''), path])) : entry;
  return Object.fromEntries(Object.entries(named).map(([name, path]) => [name, path.replace(/^src\//, '.types/').replace(/\.tsx?$/, '.d.ts')]));
}

/** One build shape for every publishable package: ESM (.mjs) + CJS (.cjs) + declarations. */
export function libraryBuild(entry: Record<string, string> | string[] = ['src/index.ts']): Options {
  return {
    entry,
    format: ['esm', 'cjs'],
    dts: { entry: declarationEntries(entry) },
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
 * The builds of core and browser: `<entry>.*` with every error message (the default export
 * condition), and `<entry>.production.*` without the development-only text (the `production`
 * condition), for each entry (`{ index: 'src/index.ts', api: 'src/api/index.ts' }`). Both shorten
 * the internal properties. With several entries the modules they share go to chunks, in the CJS
 * build too (`splitting`), so a module's state (the JWKS cache) exists once whichever entries an
 * app loads; each entry's declarations are built on their own, so `<entry>.d.ts` holds exactly
 * the names that entry exports (no shared declaration chunk shows another entry's names in the
 * API report). tsup runs the builds in parallel, so none cleans `dist` (the packages' build
 * script empties it first).
 */
export function messageBuilds(entries: Record<string, string> = { index: 'src/index.ts' }): Options[] {
  const several = Object.keys(entries).length > 1;
  const base: Options = {
    ...libraryBuild(entries),
    clean: false,
    esbuildOptions(options) {
      options.mangleProps = mangleProps;
    },
    ...(several ? { splitting: true, dts: false } : {}),
  };
  const production: Options = {
    ...base,
    entry: Object.fromEntries(Object.entries(entries).map(([name, path]) => [`${name}.production`, path])),
    dts: false,
    esbuildPlugins: [productionMessagesPlugin],
  };
  const declarations: Options[] = several
    ? Object.entries(entries).map(([name, path]) => ({ ...libraryBuild({ [name]: path }), clean: false, dts: { only: true, entry: declarationEntries({ [name]: path }) } }))
    : [];
  return [base, production, ...declarations];
}
