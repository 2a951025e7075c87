/**
 * The package bundled from its sources (core's too) as one script defining `window.oidcRp`, for
 * pages in real Chromium: the tests run what the sources say, without a build first.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

let bundle: Promise<string> | undefined;

/** The bundle, built once per run: the files that drive Chromium share one module graph. */
export function bundleSdkFromSources(): Promise<string> {
  bundle ??= buildSdk();
  return bundle;
}

async function buildSdk(): Promise<string> {
  const bundled = await build({
    entryPoints: [fileURLToPath(new URL('../../src/index.ts', import.meta.url))],
    alias: {
      '@oidc-rp/core': fileURLToPath(new URL('../../../core/src/index.ts', import.meta.url)),
      '@oidc-rp/core/internal': fileURLToPath(new URL('../../../core/src/internal.ts', import.meta.url)),
    },
    bundle: true,
    format: 'iife',
    globalName: 'oidcRp',
    write: false,
    logLevel: 'silent',
  });
  return bundled.outputFiles[0]!.text;
}
