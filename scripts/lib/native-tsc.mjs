// TypeScript 7's native compiler (`typescript-native` in the root package.json): the type checks
// and the declaration emit of the build. TypeScript 5.9 (`typescript`) stays the compiler API
// that tsup's declaration bundling, TypeDoc and the release check load.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

// The compiler is a Go executable. The package's bin/tsc is a Node launcher that looks it up and
// runs it as a child (Node 20 has no process.execve): one more Node start per check. Its lookup
// (lib/getExePath.js, Node built-ins only) is imported by path, as the package exports only its
// package.json.
const packageDir = dirname(createRequire(import.meta.url).resolve('typescript-native/package.json'));
const { default: getExePath } = await import(pathToFileURL(join(packageDir, 'lib', 'getExePath.js')).href);

/** The native compiler's executable. */
export const nativeTsc = getExePath();

/**
 * Runs the native tsc with `args` in `cwd` (default: the current directory), output inherited;
 * returns its exit code. Single-threaded: by default it checks with several checkers at once, and
 * on two cores shared with the rest of `npm test` that cost two to three times the CPU
 * (packages/node: 8–11 s against 3.7–4.3 s) and was slower in wall time too. The checks and
 * their results are the same.
 */
export function runNativeTsc(args, { cwd } = {}) {
  const result = spawnSync(nativeTsc, nativeTscArgs(args), { stdio: 'inherit', cwd, env: nativeTscEnv() });
  return result.status ?? 1;
}

/**
 * The environment for {@link nativeTsc}: this process's, with Go's collector running when the heap
 * has grown 5× (`GOGC=400`) instead of 2×. A check allocates most of what it keeps, so the default
 * collected often for little: the type checks took 9% less CPU (21.7 s → 19.7 s for every
 * workspace, the mean of four alternating runs each) for about 8% more memory at the peak
 * (446 → 479 MB, the largest). A `GOGC` already set wins.
 */
export function nativeTscEnv() {
  return { GOGC: '400', ...process.env };
}

/**
 * The arguments for {@link nativeTsc} that run it with `args`, single-threaded (see
 * {@link runNativeTsc}): for a caller that runs it its own way (async, output captured).
 *
 * @example
 * await execFileAsync(nativeTsc, nativeTscArgs(['-p', 'tsconfig.json', '--pretty', 'false']), { env: nativeTscEnv() });
 */
export function nativeTscArgs(args) {
  return ['--singleThreaded', ...args];
}
