// TypeScript 7's native compiler (`typescript-native` in the root package.json): the type checks
// and the declaration emit of the build. TypeScript 5.9 (`typescript`) stays the compiler API
// that tsup's declaration bundling, TypeDoc and the release check load.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

// The package exports no bin path; its package.json is exported, and bin/tsc sits beside it.
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript-native/package.json')), 'bin', 'tsc');

/**
 * Runs the native tsc with `args` in the current directory, output inherited; returns its exit code.
 * Single-threaded: by default it checks with several checkers at once, and on two cores shared
 * with the rest of `npm test` that cost two to three times the CPU (packages/node: 8–11 s against
 * 3.7–4.3 s) and was slower in wall time too. The checks and their results are the same.
 */
export function runNativeTsc(args) {
  const result = spawnSync(process.execPath, nativeTscArgs(args), { stdio: 'inherit' });
  return result.status ?? 1;
}

/**
 * The arguments for `node` that run the native tsc with `args`, single-threaded (see
 * {@link runNativeTsc}): for a caller that runs it its own way (async, output captured).
 *
 * @example
 * await execFileAsync(process.execPath, nativeTscArgs(['-p', 'tsconfig.json', '--pretty', 'false']));
 */
export function nativeTscArgs(args) {
  return [tsc, '--singleThreaded', ...args];
}
