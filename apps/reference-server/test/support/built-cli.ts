// The command line built from source for the CLI tests, once per test process: the CLI files
// run in one worker (one module graph), and each built the same bundle into a directory of its
// own, a second esbuild run of the whole server for nothing.
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { build } from 'tsup';
import { cliBuilds } from '../../build/cli-build';

const outDir = resolve(__dirname, '../../node_modules/.cache/reference-server-cli-test');
let built: Promise<string> | undefined;

/**
 * The path of `cli.js` built with the package's CLI build settings (the shipped shape: cli.js
 * loading the CommonJS bundle), so the tests never run a stale dist/ nor race a concurrent
 * `build` of the package.
 *
 * @example
 * beforeAll(async () => { cli = await builtCli(); }, 60_000);
 */
export function builtCli(): Promise<string> {
  built ??= (async () => {
    await rm(outDir, { recursive: true, force: true });
    // The build's entries as absolute paths (vitest's working directory may differ).
    const absolute = (entry: unknown) => Object.fromEntries(Object.entries(entry as Record<string, string>).map(([k, v]) => [k, resolve(__dirname, '../..', v)]));
    for (const options of cliBuilds({ outDir, silent: true })) await build({ ...options, entry: absolute(options.entry), config: false });
    return join(outDir, 'cli.js');
  })();
  return built;
}
