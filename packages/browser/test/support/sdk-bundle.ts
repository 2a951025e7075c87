/**
 * The package bundled from its sources (core's too) as one script defining `window.oidcRp`, for
 * pages in real Chromium: the tests run what the sources say, without a build first.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const bundles = new Map<string, Promise<string>>();

/** The bundle of `entry`, built once per run: the files that drive Chromium share one module graph. */
export function bundleSdkFromSources(entry = 'index.ts', globalName = 'oidcRp'): Promise<string> {
  const key = `${entry} ${globalName}`;
  let bundle = bundles.get(key);
  if (!bundle) {
    bundle = buildSdk(entry, globalName);
    bundles.set(key, bundle);
  }
  return bundle;
}

async function buildSdk(entry: string, globalName: string): Promise<string> {
  const bundled = await build({
    entryPoints: [fileURLToPath(new URL(`../../src/${entry}`, import.meta.url))],
    alias: {
      '@oidc-rp/core': fileURLToPath(new URL('../../../core/src/index.ts', import.meta.url)),
      '@oidc-rp/core/internal': fileURLToPath(new URL('../../../core/src/internal.ts', import.meta.url)),
    },
    bundle: true,
    format: 'iife',
    globalName,
    write: false,
    logLevel: 'silent',
  });
  return bundled.outputFiles[0]!.text;
}
