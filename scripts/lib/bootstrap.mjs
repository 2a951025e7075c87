// First-run set-up shared by `npm test` and `npm run demo`: a fresh machine has only Node and
// npm, so these use Node built-ins alone. Each step is skipped when already done.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const pinnedPnpm = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.split('@')[1];
const localPnpmDir = join(root, '.tools', `pnpm-${pinnedPnpm}`);

/** Runs a command with inherited output; returns its exit code. */
export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.error) return 127;
  return result.status ?? 1;
}

/**
 * Runs a tool the workspace installed (`node_modules/.bin/<name>`), as `pnpm exec` would, without
 * starting pnpm for it: about a second of CPU per call, spent only on finding that same file.
 */
export function runBin(name, args, options = {}) {
  return run(join(root, 'node_modules', '.bin', name), args, options);
}

function versionOf(command) {
  const result = spawnSync(command, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/** Fails with one line saying what to do. */
export function fail(message) {
  console.error(`\n✖ ${message}`);
  process.exit(1);
}

/**
 * Puts the pinned pnpm on PATH: the one installed if it is that version, else a copy installed
 * once under `.tools/` (no global install, so no privilege is needed).
 */
export function ensurePnpm() {
  if (versionOf('pnpm') === pinnedPnpm) return;
  const bin = join(localPnpmDir, 'node_modules', '.bin');
  if (!existsSync(join(bin, 'pnpm'))) {
    console.log(`› installing pnpm ${pinnedPnpm} into .tools/ (once)`);
    const code = run('npm', ['install', '--prefix', localPnpmDir, '--no-save', '--no-package-lock', '--loglevel=error', `pnpm@${pinnedPnpm}`]);
    if (code !== 0) fail(`could not install pnpm ${pinnedPnpm} from the npm registry (npm exited ${code}); check the network and run again.`);
  }
  process.env.PATH = `${bin}${delimiter}${process.env.PATH ?? ''}`;
}

/** `pnpm install` when node_modules is missing or older than the lockfile. */
export function ensureDependencies() {
  const marker = join(root, 'node_modules', '.modules.yaml');
  const stale = !existsSync(marker) || statSync(join(root, 'pnpm-lock.yaml')).mtimeMs > statSync(marker).mtimeMs;
  if (!stale) return;
  console.log('› installing dependencies (pnpm install --frozen-lockfile)');
  const code = run('pnpm', ['install', '--frozen-lockfile', '--reporter=append-only']);
  if (code !== 0) fail(`pnpm install failed (exit ${code}); the messages above say why.`);
}

/**
 * Debian packages the tests need (Chromium's headless build for the browser tests, redis-server
 * for the scale-out tests), installed with apt-get when missing and the user may. The install
 * runs in the background (the returned promise settles when it is done), so on a fresh machine
 * it downloads while `pnpm install` does: start it first, await it before the tests.
 */
export function ensureSystemPackages() {
  const missing = [];
  if (!existsSync('/usr/bin/chromium-headless-shell')) missing.push('chromium-headless-shell');
  if (!process.env.REDIS_SERVER && versionOf('redis-server') === undefined) missing.push('redis-server');
  if (missing.length === 0) return Promise.resolve();
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const sudo = isRoot ? [] : spawnSync('sudo', ['-n', 'true']).status === 0 ? ['sudo', '-n'] : undefined;
  if (!sudo || versionOf('apt-get') === undefined) {
    fail(`the tests need Debian's ${missing.join(' and ')}, and this user cannot install them: run \`sudo apt-get install -y ${missing.join(' ')}\`, then run the tests again.`);
  }
  return aptInstall(missing, sudo);
}

/** `apt-get update && apt-get install` of `packages` as one child process (`sudo`: the prefix, or none). */
export function aptInstall(packages, sudo = []) {
  console.log(`› installing ${packages.join(', ')} with apt-get (once, beside the other steps)`);
  // One shell for both steps: a second child would wait for this process's event loop, which the
  // synchronous steps beside it hold.
  const script = `apt-get update -qq && apt-get install -y -qq ${packages.join(' ')}`;
  const [command, ...args] = [...sudo, 'sh', '-c', script];
  const child = spawn(command, args, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve) => {
    child.on('error', () => resolve(127));
    child.on('exit', (code) => resolve(code ?? 1));
  }).then((code) => {
    if (code !== 0) fail(`apt-get could not install ${packages.join(' and ')} (exit ${code}); install them by hand and run the tests again.`);
  });
}
