import type { Options } from 'tsup';
// Development-only error messages of core and browser, dropped by the app's production build.
import { devMessagesPlugin } from './scripts/lib/dev-messages-plugin.mjs';
// Internal property names shortened in the browser-facing packages (see the list's rules).
import { mangleProps } from './scripts/lib/internal-props.mjs';

/** One build shape for every publishable package: ESM (.mjs) + CJS (.cjs) + declarations. */
export function libraryBuild(
  entry: Record<string, string> | string[] = ['src/index.ts'],
  { shortenInternalProps = false }: { shortenInternalProps?: boolean } = {},
): Options {
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
    esbuildPlugins: [devMessagesPlugin],
    esbuildOptions(options) {
      if (shortenInternalProps) options.mangleProps = mangleProps;
    },
  };
}
