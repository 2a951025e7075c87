/**
 * `@oidc-rp/browser` as an app installs it (its built package), bundled into one script that
 * defines `window.oidcRp`, for the pages of the Chromium interop tests.
 */
import { build } from 'esbuild';

export async function bundleInstalledBrowserSdk(): Promise<string> {
  const bundled = await build({
    stdin: { contents: "import * as oidcRp from '@oidc-rp/browser'; window.oidcRp = oidcRp;", resolveDir: import.meta.dirname, loader: 'js' },
    bundle: true,
    format: 'iife',
    write: false,
    logLevel: 'silent',
  });
  return bundled.outputFiles[0]!.text;
}
