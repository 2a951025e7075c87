// The release check: what a user installing from npm gets. Packs every publishable package
// from its built dist, lints the tarballs (publint --strict, arethetypeswrong on every
// resolution), installs them into a scratch consumer outside the workspace, type-checks it under
// node16, bundler and node10 resolution, and runs an ESM and a CJS program against the reference
// server from its tarball.
//
//   node scripts/release-check.mjs              (after `pnpm build`; `pnpm release:check` does both)
//   node scripts/release-check.mjs --pack-only  (only packs, into the cache the checks read)
//
// tests/release drives the same functions under vitest, so `pnpm test` runs it in CI.
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CONSUMER_FIXTURE = join(ROOT, 'tests/release/consumer');

/** Every package published to npm, by workspace directory. */
export const PACKAGES = ['packages/core', 'packages/browser', 'packages/react', 'packages/node', 'apps/reference-server'];

/** Files every tarball must carry besides its exports. */
const REQUIRED_FILES = ['package.json', 'README.md', 'LICENSE'];

function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/**
 * Checks a workspace package's manifest: pack and publish build it first (`prepack` is the
 * package's tsup build; core and browser empty `dist` before their two builds).
 */
export function inspectSource(dir) {
  const scripts = readJson(join(ROOT, dir, 'package.json')).scripts ?? {};
  const builds = typeof scripts.prepack === 'string' && /(^|&& )tsup$/.test(scripts.prepack) && scripts.prepack === scripts.build;
  return builds ? [] : ['"prepack" is not the package\'s tsup build: an unbuilt clone would pack without dist'];
}

/** Every file path named by `exports`, `main`, `module`, `types`, `typesVersions` and `bin`. */
export function declaredFiles(pkg) {
  const paths = new Set();
  const walk = (value) => {
    if (typeof value === 'string') paths.add(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(pkg.exports);
  walk([pkg.main, pkg.module, pkg.types].filter(Boolean));
  walk(pkg.typesVersions);
  walk(typeof pkg.bin === 'string' ? pkg.bin : pkg.bin && Object.values(pkg.bin));
  return [...paths].filter((p) => !p.includes('*')).map((p) => p.replace(/^\.\//, ''));
}

const BARE_BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith('_') && !m.startsWith('node:')));
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s*)(['"])([^'"\n]+)\1/gm;

/** Imports of Node built-ins without the `node:` prefix in a built JS file. */
export function bareBuiltinImports(source) {
  const found = [];
  for (const match of source.matchAll(SPECIFIER)) {
    const specifier = match[2];
    if (BARE_BUILTINS.has(specifier.split('/')[0]) && !specifier.startsWith('node:')) found.push(specifier);
  }
  return found;
}

/**
 * Checks an unpacked package directory: required files, every declared entry file present, no
 * bare Node built-in import in any JS file, and the React build marked as client code.
 * Returns the problems (empty when fine).
 */
export function inspectPackage(dir) {
  const problems = [];
  if (!existsSync(join(dir, 'package.json'))) return ['package.json missing'];
  const pkg = readJson(join(dir, 'package.json'));
  for (const file of REQUIRED_FILES) if (!existsSync(join(dir, file))) problems.push(`${file} is not in the package`);
  for (const file of declaredFiles(pkg)) {
    if (!existsSync(join(dir, file))) problems.push(`${file} (named in package.json) is not in the package: was it built?`);
  }
  for (const field of ['repository', 'homepage', 'bugs', 'license']) if (!pkg[field]) problems.push(`package.json has no "${field}"`);
  if (pkg.engines?.node !== readJson(join(ROOT, 'package.json')).engines.node) {
    problems.push(`engines.node is ${JSON.stringify(pkg.engines?.node)}, not the root's`);
  }
  if (!pkg.files?.includes('CHANGELOG.md')) problems.push('CHANGELOG.md is not in "files"');
  if (existsSync(join(dir, 'README.md'))) problems.push(...readmeProblems(readFileSync(join(dir, 'README.md'), 'utf8')));
  for (const file of listFiles(join(dir, 'dist'))) {
    if (!/\.(c|m)?js$/.test(file)) continue;
    const source = readFileSync(file, 'utf8');
    for (const specifier of bareBuiltinImports(source)) {
      problems.push(`${relative(dir, file)} imports "${specifier}" without the node: prefix`);
    }
    if (pkg.name === '@oidc-rp/react' && !source.startsWith("'use client';")) {
      problems.push(`${relative(dir, file)} does not start with 'use client'`);
    }
  }
  return problems;
}

/**
 * What breaks a README on the npm registry: links relative to the repository (they resolve
 * against npmjs.com) and monorepo-only commands in the quick start.
 */
export function readmeProblems(readme) {
  const problems = [];
  for (const [, target] of readme.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (!/^(https?:|mailto:|#)/.test(target)) problems.push(`README links to "${target}", which does not resolve on the registry`);
  }
  const quickStart = /^## Quick start[^\n]*\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(readme)?.[1] ?? '';
  for (const command of ['pnpm demo', 'pnpm --filter']) {
    if (quickStart.includes(command)) problems.push(`the README's quick start uses "${command}", which only exists in the repository`);
  }
  if (!/^## Quick start/m.test(readme)) problems.push('the README has no "## Quick start" section');
  return problems;
}

function listFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

/** Where tarballs are kept between runs, each named by a hash of what it packs (see `packKey`). */
const PACK_CACHE = join(ROOT, 'node_modules', '.cache', 'oidc-rp-packs');

/** A hash of what `pnpm pack` puts in a package's tarball: its manifest, README, LICENSE and dist. */
function packKey(cwd) {
  const hash = createHash('sha256');
  const dist = listFiles(join(cwd, 'dist')).map((path) => relative(cwd, path)).sort();
  for (const file of [...REQUIRED_FILES, ...dist]) {
    hash.update(`${file}\0`);
    if (existsSync(join(cwd, file))) hash.update(readFileSync(join(cwd, file)));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The package's tarball for its current files: packed once (lifecycle scripts off: the tree was
 * just built, and a rebuild here would wipe dist under tests running in parallel) and kept in
 * PACK_CACHE, so the README and release checks of one run share it. A tarball is written under a
 * temporary name and renamed, so a check never reads a half-written one.
 */
async function cachedTarball(dir) {
  const cwd = join(ROOT, dir);
  const pkg = readJson(join(cwd, 'package.json'));
  const prefix = `${pkg.name.replace('@', '').replace('/', '-')}-`;
  const cached = join(PACK_CACHE, `${prefix}${pkg.version}-${packKey(cwd)}.tgz`);
  if (existsSync(cached)) return { pkg, cached };
  mkdirSync(PACK_CACHE, { recursive: true });
  const scratch = mkdtempSync(join(PACK_CACHE, 'packing-'));
  try {
    await run('pnpm', ['pack', '--pack-destination', scratch, '--config.ignore-scripts=true'], { cwd });
    const tarball = readdirSync(scratch).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error(`pnpm pack left no tarball for ${pkg.name}`);
    renameSync(join(scratch, tarball), cached);
    // Tarballs of this package's earlier builds are of no further use.
    for (const old of readdirSync(PACK_CACHE)) if (old.startsWith(prefix) && old.endsWith('.tgz') && join(PACK_CACHE, old) !== cached) rmSync(join(PACK_CACHE, old), { force: true });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return { pkg, cached };
}

/**
 * Every package's tarball from its current dist, copied into `dest` (under pnpm's file name)
 * and unpacked beside it. `node scripts/release-check.mjs --pack-only` fills the cache ahead
 * (the suite's `//#pack` task), so the checks that run after it pack nothing.
 */
export async function packAll(dest) {
  mkdirSync(dest, { recursive: true });
  const packed = [];
  for (const dir of PACKAGES) {
    const { pkg, cached } = await cachedTarball(dir);
    const tarball = join(dest, `${pkg.name.replace('@', '').replace('/', '-')}-${pkg.version}.tgz`);
    copyFileSync(cached, tarball);
    const unpacked = join(dest, basename(tarball, '.tgz'));
    mkdirSync(unpacked);
    await run('tar', ['xzf', tarball, '-C', unpacked, '--strip-components=1']);
    packed.push({ name: pkg.name, dir, tarball, unpacked });
  }
  return packed;
}

/** publint --strict over a tarball; returns the formatted messages. */
export async function publintTarball(tarball) {
  const { publint } = await import('publint');
  const { formatMessage } = await import('publint/utils');
  const buffer = readFileSync(tarball);
  const tarballBytes = buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength);
  const { messages, pkg } = await publint({ pack: { tarball: tarballBytes }, strict: true, level: 'suggestion' });
  return messages.map((m) => `${m.type}: ${formatMessage(m, pkg) ?? m.code}`);
}

/**
 * arethetypeswrong's analysis (what `attw <tarball> --format json` prints, without options),
 * run in this process: the CLI as a process per tarball loaded attw and its TypeScript five
 * times and checked each with a cold compiler, three times the CPU of one warm process.
 */
async function attwCore() {
  const cli = createRequire(join(ROOT, 'package.json')).resolve('@arethetypeswrong/cli/package.json');
  return import(pathToFileURL(createRequire(cli).resolve('@arethetypeswrong/core')).href);
}

/** arethetypeswrong over a tarball, every resolution mode; returns the problems found. */
export async function attwTarball(tarball) {
  const core = await attwCore();
  const analysis = await core.checkPackage(core.createPackageFromTarballData(new Uint8Array(readFileSync(tarball))), {});
  if (!analysis.types) return { problems: ['the package has no types'], resolutions: [] };
  const resolutions = Object.entries(analysis.entrypoints).flatMap(([entry, info]) =>
    Object.entries(info.resolutions).map(([mode, r]) => ({ entry, mode, ok: Boolean(r.resolution) })),
  );
  return { problems: analysis.problems.map((p) => `${p.kind} ${p.entrypoint ?? ''} ${p.resolutionKind ?? ''}`.trim()), resolutions };
}

function installedVersion(workspaceDir, name) {
  return readJson(join(ROOT, workspaceDir, 'node_modules', name, 'package.json')).version;
}

/**
 * A scratch project outside the workspace with the tarballs installed by npm (no workspace
 * links, no hoisted dev dependencies), plus the consumer sources from tests/release/consumer.
 */
export async function createConsumer(packed, dir = mkdtempSync(join(tmpdir(), 'oidc-rp-consumer-'))) {
  mkdirSync(dir, { recursive: true });
  const dependencies = Object.fromEntries(packed.map((p) => [p.name, pathToFileURL(p.tarball).href.replace(/^file:\/\//, 'file:')]));
  Object.assign(dependencies, {
    react: installedVersion('packages/react', 'react'),
    '@types/react': installedVersion('packages/react', '@types/react'),
    '@types/node': installedVersion('.', '@types/node'),
    // The oldest TypeScript the READMEs promise; the workspace's own (5.9) is checked too.
    typescript: MIN_TYPESCRIPT,
  });
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'oidc-rp-release-consumer', private: true, type: 'module', dependencies }, null, 2)}\n`,
  );
  for (const file of listFiles(CONSUMER_FIXTURE)) {
    const target = join(dir, relative(CONSUMER_FIXTURE, file));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, readFileSync(file));
  }
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', '--ignore-scripts'], {
    cwd: dir,
    maxBuffer: 16 * 1024 * 1024,
  });
  assertInstalledFromTarballs(dir);
  return dir;
}

/** Throws unless every copy of our packages in `dir`'s npm install came from a tarball, never the registry. */
export function assertInstalledFromTarballs(dir) {
  const lock = readJson(join(dir, 'package-lock.json'));
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (/(^|\/)node_modules\/@oidc-rp\//.test(path) && !(entry.resolved ?? '').startsWith('file:')) {
      throw new Error(`${path} was installed from ${entry.resolved ?? entry.version}, not from a tarball`);
    }
  }
}

/** [resolution, TypeScript] pairs the consumer must type-check under. */
export const TYPECHECKS = [
  ['node16', 'workspace'],
  ['bundler', 'workspace'],
  ['node10', 'workspace'],
  // With the minimum, bundler (the resolution that needs 5.0); node16 and node10 pass too.
  ['bundler', 'minimum'],
];

/** The minimum TypeScript version documented in every README. */
export const MIN_TYPESCRIPT = '5.0.4';

/** A declaration file that adds to globals or to another module: its conflicts surface in the other file. */
const AUGMENTS = /\bdeclare\s+global\b|\bdeclare\s+module\s+['"]/;

/**
 * The consumer compiled with one of its tsconfigs (node16, bundler, node10) as its `tsc -p`
 * does: same compiler, same options (skipLibCheck off, so every declaration file we ship is
 * checked), errors formatted as tsc prints them. `typescript` 'workspace' is the repository's
 * version, 'minimum' is {@link MIN_TYPESCRIPT}, installed in the consumer.
 *
 * In this process, and with the type errors asked of the consumer's sources and our packages'
 * declarations only: the bodies of @types/node, @types/react and the DOM lib are not ours to
 * check, and checking them was two thirds of each program's CPU. Syntax, option and global
 * errors are still collected from every file; and when one of our declaration files augments
 * globals or another module (whose conflicts are reported in the other file), every file is
 * checked.
 */
export async function typecheckConsumer(dir, resolution, typescript = 'workspace') {
  const ts = createRequire(join(typescript === 'minimum' ? dir : ROOT, 'package.json'))('typescript');
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} };
  const config = ts.getParsedCommandLineOfConfigFile(join(dir, `tsconfig.${resolution}.json`), {}, host);
  if (!config) return { ok: false, output: `tsconfig.${resolution}.json could not be read` };
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, configFileParsingDiagnostics: config.errors });
  const ours = (file) => !file.fileName.includes('/node_modules/') || file.fileName.includes('/node_modules/@oidc-rp/');
  const files = program.getSourceFiles();
  const augments = files.some((file) => ours(file) && file.isDeclarationFile && AUGMENTS.test(file.text));
  const diagnostics = [
    ...program.getConfigFileParsingDiagnostics(),
    ...program.getOptionsDiagnostics(),
    ...program.getSyntacticDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...files.filter((file) => augments || ours(file)).flatMap((file) => program.getSemanticDiagnostics(file)),
  ];
  const output = ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => dir, getNewLine: () => '\n' });
  return { ok: diagnostics.length === 0, output };
}

/** Runs a consumer program with node; resolves with its stdout, rejects with its output on failure. */
export async function runProgram(dir, file, env = {}) {
  const { stdout } = await run(process.execPath, [file], { cwd: dir, env: { ...process.env, ...env }, timeout: 60_000 });
  return stdout;
}

/** Starts the packed CLI (`oidc-rp-reference-server --port 0`); resolves once it prints its origin. */
export function startPackedCli(dir) {
  const child = spawn(join(dir, 'node_modules/.bin/oidc-rp-reference-server'), ['--port', '0'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolveStart, rejectStart) => {
    let out = '';
    let err = '';
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) {
        const stop = () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          });
        resolveStart({ origin: match[1], stop });
      }
    });
    child.once('exit', (code) => rejectStart(new Error(`the packed CLI exited with ${code} before listening: ${err}`)));
    child.once('error', rejectStart);
  });
}

/** The whole check, for the command line. Throws on the first failing step. */
export async function releaseCheck({ log = console.log } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'oidc-rp-release-'));
  const failures = [];
  try {
    const packed = await packAll(join(work, 'packs'));
    log(`packed ${packed.map((p) => basename(p.tarball)).join(', ')}`);
    for (const p of packed) {
      const problems = [
        ...inspectSource(p.dir),
        ...inspectPackage(p.unpacked),
        ...(await publintTarball(p.tarball)).map((m) => `publint ${m}`),
        ...(await attwTarball(p.tarball)).problems.map((m) => `arethetypeswrong ${m}`),
      ];
      for (const problem of problems) failures.push(`${p.name}: ${problem}`);
      log(`${p.name}: ${problems.length ? `${problems.length} problem(s)` : 'files, publint --strict, arethetypeswrong ok'}`);
    }
    if (failures.length) throw new Error(failures.join('\n'));
    const consumer = await createConsumer(packed, join(work, 'consumer'));
    for (const [resolution, typescript] of TYPECHECKS) {
      const { ok, output } = await typecheckConsumer(consumer, resolution, typescript);
      if (!ok) throw new Error(`the consumer does not type-check under ${resolution} (${typescript} TypeScript):\n${output}`);
      log(`consumer type-checks under ${resolution} (${typescript} TypeScript)`);
    }
    log(`esm: ${(await runProgram(consumer, 'esm.mjs')).trim()}`);
    const cli = await startPackedCli(consumer);
    try {
      log(`cjs: ${(await runProgram(consumer, 'cjs.cjs', { ISSUER: `${cli.origin}/demo` })).trim()}`);
    } finally {
      await cli.stop();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const packOnly = process.argv.includes('--pack-only');
  const work = packOnly ? mkdtempSync(join(tmpdir(), 'oidc-rp-pack-')) : undefined;
  (packOnly ? packAll(work).finally(() => rmSync(work, { recursive: true, force: true })) : releaseCheck()).then(
    () => console.log(packOnly ? `packed ${PACKAGES.length} packages into ${relative(ROOT, PACK_CACHE)}` : 'release check passed'),
    (error) => {
      console.error(`release check failed:\n${error.message}`);
      process.exit(1);
    },
  );
}
