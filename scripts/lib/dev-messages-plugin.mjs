/**
 * esbuild plugin for the development-only error messages of @oidc-rp/core and
 * @oidc-rp/browser, which write each message `DEV && '...'` (`DEV` from their `src/dev.ts`).
 * It puts `process.env.NODE_ENV !== "production"` in place of every `DEV`, so that a bundler
 * defining `NODE_ENV` folds the condition where it stands and drops the text together with
 * the helpers only messages use. A shared `DEV` variable would not do: esbuild inlines a
 * constant from another module only after tree shaking (the helpers would stay), and never
 * the `var` a bundled file holds. Used by the packages' build (tsup.shared.ts) and by the
 * bundle-size measurements that build from sources (bench, packages/browser's budget test).
 */

import { readFile } from 'node:fs/promises';

const IMPORT = /^import \{ DEV \} from '\.\/dev';$/m;

/** @type {import('esbuild').Plugin} */
export const devMessagesPlugin = {
  name: 'oidc-rp-dev-messages',
  setup(build) {
    build.onLoad({ filter: /[\\/]packages[\\/](core|browser)[\\/]src[\\/][^\\/]+\.ts$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      if (!IMPORT.test(source)) return undefined;
      // The replacement names the global `process`: a local binding of that name would capture it.
      if (/\b(?:function\*?|const|let|var|class)\s+process\b/.test(source)) {
        return { errors: [{ text: `${path} binds the name "process", which DEV's replacement reads: rename it.` }] };
      }
      const contents = source.replace(IMPORT, '').replace(/\bDEV\b/g, '(process.env.NODE_ENV !== "production")');
      return { contents, loader: 'ts' };
    });
  },
};
