/**
 * Runs a CommonJS bundle with a V8 code cache: the bytecode V8 compiled in an earlier run is
 * reused, so a start skips parsing and compiling the half megabyte of the CLI bundle (about 20 ms
 * of CPU on Node 20). The cache is keyed by the bundle's content, Node's version and the CPU
 * architecture, lives in a directory of the current user that nobody else can write (bytecode is
 * code: a cache someone else could plant would run as this user), and every failure to read,
 * use or write it is silent: the bundle then runs compiled from source, as without a cache.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, constants as fs } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

/** What {@link runWithCodeCache} did with the cache, for tests. */
export type CacheOutcome = 'used' | 'rejected' | 'absent' | 'disabled';

export interface CodeCacheOptions {
  /** Where caches are kept (default: `<os.tmpdir()>/oidc-rp-reference-server-<uid>`). */
  directory?: string;
}

/** The default cache directory: per user, so no one else's cache is ever read. */
export function defaultCacheDirectory(): string {
  const user = typeof process.getuid === 'function' ? String(process.getuid()) : 'user';
  return join(tmpdir(), `oidc-rp-reference-server-${user}`);
}

/** The directory, made if missing; undefined unless it is a real directory of this user that only this user can write. */
function privateDirectory(directory: string): string | undefined {
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const stat = lstatSync(directory);
    if (!stat.isDirectory()) return undefined;
    if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) return undefined;
    if ((stat.mode & 0o022) !== 0) return undefined;
    return directory;
  } catch {
    return undefined;
  }
}

/** The cache's bytes if the file is a regular file of this user (opened without following a link). */
function readOwnFile(path: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, fs.O_RDONLY | fs.O_NOFOLLOW);
    const stat = fstatSync(fd);
    if (!stat.isFile()) return undefined;
    if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) return undefined;
    if ((stat.mode & 0o022) !== 0) return undefined;
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Writes through a temporary file and a rename, so a concurrent start never reads half a cache. */
function writeOwnFile(path: string, data: Buffer): void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, data, { mode: 0o600, flag: 'wx' });
    renameSync(temporary, path);
  } catch {
    try {
      unlinkSync(temporary);
    } catch {
      // Nothing was written, or it cannot be removed: it is never read either way.
    }
  }
}

/**
 * Runs the CommonJS file `bundlePath` as Node would `require` it, with a code cache; the bundle
 * must not use `import()` (a script has no module loader for it: build it with `require`). The cache is
 * written when the process exits (it then holds the functions the run compiled, the ones a
 * request needs included) and only when the run had no usable one.
 *
 * @example
 * runWithCodeCache(fileURLToPath(new URL('./cli-bundle.cjs', import.meta.url)));
 */
export function runWithCodeCache(bundlePath: string, options: CodeCacheOptions = {}): CacheOutcome {
  const source = readFileSync(bundlePath, 'utf8');
  const directory = privateDirectory(options.directory ?? defaultCacheDirectory());
  const key = createHash('sha256').update(source).update(`\0${process.version}\0${process.arch}`).digest('hex').slice(0, 32);
  const cachePath = directory === undefined ? undefined : join(directory, `${basename(bundlePath)}-${key}.v8cache`);
  const cachedData = cachePath === undefined ? undefined : readOwnFile(cachePath);
  // The wrapper Node itself puts around a CommonJS module, on one line so positions in the bundle's source map still match.
  // A `#!` line is only valid at the very start of a file: dropped, its line break kept.
  const body = source.startsWith('#!') ? source.slice(source.indexOf('\n')) : source;
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${body}\n})`;
  const script = new Script(wrapped, {
    filename: bundlePath,
    ...(cachedData ? { cachedData } : {}),
  });
  const outcome: CacheOutcome = cachePath === undefined ? 'disabled' : cachedData === undefined ? 'absent' : script.cachedDataRejected ? 'rejected' : 'used';
  if (cachePath !== undefined && outcome !== 'used') {
    process.once('exit', () => {
      try {
        writeOwnFile(cachePath, script.createCachedData());
      } catch {
        // No cache this time: the next start compiles from source again.
      }
    });
  }
  const module = { exports: {} as unknown };
  const run = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void;
  run(module.exports, createRequire(bundlePath), module, bundlePath, dirname(bundlePath));
  return outcome;
}
