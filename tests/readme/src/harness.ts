// The steps of the README check: find the READMEs and their blocks, install the packed packages
// into a scratch project as a user would, type-check every code block in one TypeScript program,
// and run the runnable ones against the reference server over HTTP.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { transform } from 'esbuild';
import { nativeTsc, nativeTscArgs, nativeTscEnv } from '../../../scripts/lib/native-tsc.mjs';
import { assertInstalledFromTarballs } from '../../../scripts/release-check.mjs';
import { type Block, extractBlocks, type Snippet, snippetsOf } from './extract.ts';

const exec = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(HERE, '../../..');
const HARNESS = resolve(HERE, '..');

/** The Markdown files whose blocks are checked, relative to the repository root. */
export function readmeFiles(root = ROOT): string[] {
  const inDirs = ['packages', 'apps', 'tests'].flatMap((dir) =>
    readdirSync(join(root, dir))
      .sort()
      .map((name) => `${dir}/${name}/README.md`)
      .filter((file) => existsSync(join(root, file))),
  );
  return ['README.md', 'CONTRIBUTING.md', ...inDirs];
}

export function collectBlocks(root = ROOT): Block[] {
  return readmeFiles(root).flatMap((file) => extractBlocks(file, readFileSync(join(root, file), 'utf8')));
}

export function collectSnippets(root = ROOT): Snippet[] {
  return snippetsOf(collectBlocks(root));
}

interface Packed {
  name: string;
  /** The workspace directory it was packed from, relative to the repository root. */
  dir: string;
  tarball: string;
  unpacked: string;
}

/**
 * The registry packages the tarballs depend on (hono, zod, jose, @redis/client) that have no
 * dependencies of their own, as `file:` links to the copy this workspace's package resolves:
 * the same version and bytes npm would fetch, linked instead of unpacked. Unpacking them was
 * most of the npm install's files (about 3,400 of 3,600) and over half its CPU, and removing
 * them again after the run. A name two packages resolve to different copies, or one with
 * dependencies (npm would install those inside the linked directory), is left to npm.
 */
export function linkedDependencies(packed: Packed[], root = ROOT): Record<string, string> {
  const links = new Map<string, string | undefined>();
  for (const p of packed) {
    const manifest = JSON.parse(readFileSync(join(p.unpacked, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      if (name.startsWith('@oidc-rp/')) continue;
      const source = join(root, p.dir, 'node_modules', name);
      const copy = existsSync(source) ? realpathSync(source) : undefined;
      const own = copy && (JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8')) as { dependencies?: object; optionalDependencies?: object });
      const leaf = own && Object.keys({ ...own.dependencies, ...own.optionalDependencies }).length === 0 ? copy : undefined;
      links.set(name, links.has(name) && links.get(name) !== leaf ? undefined : leaf);
    }
  }
  return Object.fromEntries([...links].flatMap(([name, copy]) => (copy ? [[name, `file:${copy}`]] : [])));
}

/**
 * A scratch project with the tarballs installed by npm (as a user installs them), plus the
 * third-party packages the READMEs import (Hono, Express, Next.js, …), linked from this
 * workspace's install instead of downloaded again.
 */
export async function createScratch(packed: Packed[], dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const dependencies = { ...linkedDependencies(packed), ...Object.fromEntries(packed.map((p) => [p.name, `file:${p.tarball}`])) };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'oidc-rp-readme-scratch', private: true, type: 'module', dependencies }, null, 2)}\n`);
  // Peers (react, redis) are linked below, the same copies the READMEs' imports resolve to.
  await exec('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', '--ignore-scripts', '--legacy-peer-deps'], {
    cwd: dir,
    maxBuffer: 16 * 1024 * 1024,
  });
  assertInstalledFromTarballs(dir);
  const own = JSON.parse(readFileSync(join(HARNESS, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  for (const name of Object.keys(own.devDependencies)) {
    const target = join(dir, 'node_modules', name);
    if (name.startsWith('@oidc-rp/') || existsSync(target)) continue;
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(realpathSync(join(HARNESS, 'node_modules', name)), target, 'dir');
  }
  return dir;
}

/**
 * What a user's strict tsconfig says: the repository's own settings, plus exact optional
 * properties. As tsconfig.json spells them: the snippets are checked by TypeScript 7's native
 * compiler (`typescript-native`, scripts/lib/native-tsc.mjs), a quarter of 5.9's CPU for the
 * same program (about 2.5 s against 10 s).
 */
export const COMPILER_OPTIONS = {
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  target: 'ES2022',
  module: 'ESNext',
  moduleResolution: 'bundler',
  moduleDetection: 'force',
  jsx: 'react-jsx',
  lib: ['ES2022', 'DOM', 'DOM.Iterable', 'ESNext.Disposable'],
  types: ['node'],
  allowJs: true,
  checkJs: true,
  esModuleInterop: true,
  skipLibCheck: true,
  noEmit: true,
};

const EXTENSION: Record<Snippet['lang'], string> = { ts: '.ts', tsx: '.tsx', js: '.js', mjs: '.mjs', jsx: '.jsx' };

export function snippetPath(dir: string, snippet: Snippet): string {
  if (snippet.appFile) return join(dir, 'snippets', 'app', snippet.appFile);
  return join(dir, 'snippets', `${snippet.name}${snippet.mode === 'vitest' ? '.test' : ''}${EXTENSION[snippet.lang]}`);
}

/** One diagnostic of `tsc --pretty false`: `file(line,col): error TSn: text`, or `error TSn: text` for the whole program; chained lines indented below. */
const DIAGNOSTIC = /^(?:(.+)\((\d+),(\d+)\): )?error TS(\d+): (.*)$/;

/**
 * Type-checks every snippet in one program (one file each) against the scratch project's
 * packages. Returns each snippet's errors, each naming its README file and line.
 */
export async function typecheck(snippets: Snippet[], dir: string): Promise<Map<string, string[]>> {
  mkdirSync(join(dir, 'snippets'), { recursive: true });
  const byPath = new Map<string, Snippet>();
  for (const snippet of snippets) {
    const path = snippetPath(dir, snippet);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, snippet.code);
    byPath.set(realpathSync(path), snippet);
  }
  // `@/…` is the app's own files (`file` markers), as create-next-app's alias makes it.
  const paths = { '@/*': [join(dir, 'snippets', 'app', '*')] };
  const config = join(dir, 'tsconfig.snippets.json');
  writeFileSync(config, JSON.stringify({ compilerOptions: { ...COMPILER_OPTIONS, paths }, files: [...byPath.keys()] }, null, 2));
  const result = await exec(nativeTsc, nativeTscArgs(['-p', config, '--pretty', 'false']), { cwd: dir, env: nativeTscEnv(), maxBuffer: 64 * 1024 * 1024 }).catch(
    (error: { stdout?: string; stderr?: string; code?: number }) => error,
  );
  const errors = new Map<string, string[]>(snippets.map((s) => [s.name, []]));
  const diagnostics: { file?: string; line: number; column: number; code: string; text: string }[] = [];
  for (const line of `${result.stdout ?? ''}${result.stderr ?? ''}`.split('\n')) {
    const match = DIAGNOSTIC.exec(line);
    const last = diagnostics.at(-1);
    if (match) diagnostics.push({ file: match[1], line: Number(match[2]), column: Number(match[3]), code: match[4] ?? '', text: match[5] ?? '' });
    else if (last && line.startsWith(' ')) last.text += `\n${line}`;
    else if (line.trim() && !/^Found \d+ errors?/.test(line)) diagnostics.push({ line: 0, column: 0, code: '?', text: line.trim() });
  }
  if (diagnostics.length === 0 && 'code' in result && result.code !== undefined) diagnostics.push({ line: 0, column: 0, code: '?', text: `tsc exited with ${result.code} and no error` });
  for (const diagnostic of diagnostics) {
    const snippet = diagnostic.file && byPath.get(realpathOr(resolve(dir, diagnostic.file)));
    if (!snippet) {
      // Not located in a snippet (a global option problem): every snippet fails with it.
      for (const list of errors.values()) list.push(`${diagnostic.file ? `${diagnostic.file}(${diagnostic.line},${diagnostic.column}): ` : ''}TS${diagnostic.code}: ${diagnostic.text}`);
      continue;
    }
    const at = snippet.lineOf(diagnostic.line - 1);
    const source = snippet.code.split('\n')[diagnostic.line - 1] ?? '';
    errors.get(snippet.name)?.push(`${at.file}:${at.line}:${diagnostic.column} TS${diagnostic.code}: ${diagnostic.text}\n    ${source.trim()}`);
  }
  return errors;
}

/** README origins replaced by the test server's real one when a snippet runs. */
export const DOCUMENTED_ORIGINS = ['http://127.0.0.1:4000', 'http://localhost:4000'];

/**
 * The snippet as it runs: documented origins mapped, TypeScript removed (ES2022 for Node 20),
 * with an inline source map to `<name>.<lang>` (positions a failed run reports at README lines).
 * esbuild, whose service the browser bundles use too: the test process no longer loads
 * TypeScript 5.9's compiler for this (about a second of CPU with the transpiles).
 */
export async function runnableSource(snippet: Snippet, origin: string, moreOrigins: [documented: string, real: string][] = []): Promise<string> {
  let code = snippet.code;
  for (const documented of DOCUMENTED_ORIGINS) code = code.split(documented).join(origin);
  for (const [documented, real] of moreOrigins) code = code.split(documented).join(real);
  const result = await transform(code, {
    loader: snippet.lang === 'mjs' ? 'js' : snippet.lang,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    sourcemap: 'inline',
    sourcefile: `${snippet.name}${EXTENSION[snippet.lang]}`,
    logLevel: 'silent',
  });
  return result.code;
}

/**
 * Rewrites positions in the snippet's source-mapped file (`<name>.ts:LINE`) as README file:line,
 * and those in the generated JavaScript, which no reader has, as such.
 */
export function readmePositions(snippet: Snippet, output: string): string {
  const name = snippet.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return output
    .replace(new RegExp(`(?:file://)?[^\\s(]*${name}\\${EXTENSION[snippet.lang]}:(\\d+)`, 'g'), (_match, line: string) => {
      const at = snippet.lineOf(Number(line) - 1);
      return `${at.file}:${at.line}`;
    })
    .replace(new RegExp(`(?:file://)?[^\\s(]*${name}\\.mjs:(\\d+)`, 'g'), (_match, line: string) => `(the snippet as JavaScript, line ${line})`);
}

/** Environment a reader is told to set (secrets of at least 32 characters). */
export const RUN_ENV = {
  COOKIE_SECRET: 'readme-cookie-TYnjFxgfPcJCAo-iNrXKcu0Wzc4l80m-',
  SESSION_SECRET: 'readme-session-QC8b-C9iB12YN8IyZVniDKF9KzuFmnua',
};

export interface RunResult {
  ok: boolean;
  output: string;
}

/**
 * Runs at most `slots` tasks at once, in the order they were queued. The README programs are
 * started together; run all at once on a 2-core machine each one's time limit measured the
 * crowd, not the program (a busy machine made several miss 30 s while alone they take 2 s).
 */
export function limitConcurrency(slots: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running >= slots) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/** Runs a snippet with node as a module of the scratch project; it must exit 0 within `timeout` ms. */
export async function runSnippet(snippet: Snippet, dir: string, origin: string, timeout = 30_000, env: Record<string, string> = {}): Promise<RunResult> {
  mkdirSync(join(dir, 'run'), { recursive: true });
  let file = join(dir, 'run', `${snippet.name}.mjs`);
  writeFileSync(file, await runnableSource(snippet, origin));
  if (snippet.mode === 'global-setup') {
    file = join(dir, 'run', `${snippet.name}.global-setup.mjs`);
    writeFileSync(file, globalSetupRunner(`./${snippet.name}.mjs`));
  }
  const run = (flags: string[]): Promise<RunResult & { killed: boolean }> =>
    exec(process.execPath, [...flags, file], { cwd: dir, timeout, env: { ...process.env, ...RUN_ENV, ...env, NODE_ENV: 'development' } }).then(
      ({ stdout, stderr }) => ({ ok: true, killed: false, output: `${stdout}${stderr}` }),
      (error: { stdout?: string; stderr?: string; killed?: boolean; code?: number }) => ({
        ok: false,
        killed: error.killed === true,
        output: `${error.killed ? `did not exit within ${timeout / 1000} s (a server left listening, a promise never settled?)\n` : `exited with ${error.code}\n`}${error.stdout ?? ''}${error.stderr ?? ''}`,
      }),
    );
  // Without --enable-source-maps: it made node read the source map of every module it loaded
  // (the packed packages ship theirs), about 60 ms a program. A program that fails runs again
  // with it, for its error's positions at README lines; it fails either way. A hang is not run
  // again (its output has no positions to map).
  const first = await run([]);
  if (first.ok || first.killed) return { ok: first.ok, output: readmePositions(snippet, first.output) };
  const again = await run(['--enable-source-maps']);
  const output = again.ok ? `${first.output}(it passed when run again with --enable-source-maps: a flaky program)\n` : again.output;
  return { ok: false, output: readmePositions(snippet, output) };
}

/**
 * Runs a global setup file as Playwright and vitest do: calls its default export; then every
 * URL it put in process.env (how a setup hands the issuer to the tests) must serve discovery
 * with itself as issuer; then the teardown it returned is called, and the process must exit
 * (a server the teardown left open keeps it alive past the time limit).
 */
export function globalSetupRunner(module: string): string {
  return `const before = { ...process.env };
const { default: setup } = await import(${JSON.stringify(module)});
if (typeof setup !== 'function') throw new Error('a global setup file default-exports a function; this one does not');
const teardown = await setup();
const issuers = Object.entries(process.env).filter(([name, value]) => value !== before[name] && /^https?:\\/\\//.test(value ?? ''));
if (issuers.length === 0) throw new Error('the global setup put no issuer URL in process.env for the tests to read');
for (const [name, issuer] of issuers) {
  const response = await fetch(\`\${issuer}/.well-known/openid-configuration\`);
  const discovered = response.ok ? (await response.json()).issuer : \`HTTP \${response.status}\`;
  if (discovered !== issuer) throw new Error(\`process.env.\${name} (\${issuer}) does not serve its discovery document: \${discovered}\`);
}
if (typeof teardown === 'function') await teardown();
`;
}

interface VitestReport {
  testResults: { name: string; status: string; message: string; assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[];
}

/** Runs every vitest snippet in one vitest run of the scratch project; each one's result. */
export async function runVitestSnippets(snippets: Snippet[], dir: string, origin: string): Promise<Map<string, RunResult>> {
  const root = join(dir, 'vitest');
  mkdirSync(root, { recursive: true });
  const files = new Map<string, Snippet>();
  for (const snippet of snippets) {
    const file = join(root, `${snippet.name}.test${EXTENSION[snippet.lang]}`);
    let code = snippet.code;
    for (const documented of DOCUMENTED_ORIGINS) code = code.split(documented).join(origin);
    writeFileSync(file, code);
    files.set(realpathSync(file), snippet);
  }
  writeFileSync(join(root, 'vitest.config.mjs'), vitestConfig([...files].map(([file, snippet]) => ({ file: relative(root, file), code: snippet.code }))));
  const report = join(dir, 'vitest-report.json');
  const vitest = join(dir, 'node_modules/vitest/vitest.mjs');
  await exec(process.execPath, [vitest, 'run', '--root', root, '--reporter=json', `--outputFile=${report}`], {
    cwd: root,
    env: { ...process.env, ...RUN_ENV, NODE_ENV: 'test' },
    maxBuffer: 16 * 1024 * 1024,
  }).catch(() => undefined); // failures are read from the report
  const results = new Map<string, RunResult>(snippets.map((s) => [s.name, { ok: false, output: 'vitest did not report this file' }]));
  if (!existsSync(report)) return results;
  const parsed = JSON.parse(readFileSync(report, 'utf8')) as VitestReport;
  for (const file of parsed.testResults) {
    const snippet = files.get(realpathOr(file.name));
    if (!snippet) continue;
    const failures = file.assertionResults.filter((a) => a.status !== 'passed');
    const ok = file.status === 'passed' && file.assertionResults.length > 0 && failures.length === 0;
    const output = [file.message, ...failures.map((f) => `${f.fullName}: ${f.status}\n${f.failureMessages.join('\n')}`)].filter(Boolean).join('\n');
    results.set(snippet.name, { ok, output: vitestPositions(snippet, output) || (ok ? '' : 'no test ran') });
  }
  return results;
}

// A block that replaces modules, stubs globals or the environment, fakes timers or picks its own
// environment could change what the blocks after it see in a shared module graph.
const NEEDS_OWN_GRAPH = /\bvi\s*\.\s*(?:mock|doMock|unmock|doUnmock|stubGlobal|stubEnv|useFakeTimers|setSystemTime)\s*\(|@vitest-environment\s|\b(?:process\.env|globalThis)\.\w+\s*=[^=]/;

/**
 * The snippets' vitest config: the blocks share one module graph (`isolate: false`, what the
 * repository's own suites do) instead of vitest's default of a fresh one per file, which
 * imported vitest and the packed reference server again for each block (four times the run's
 * CPU). A block that mocks or stubs (NEEDS_OWN_GRAPH) still gets a graph of its own.
 */
export function vitestConfig(files: { file: string; code: string }[]): string {
  const own = files.filter((f) => NEEDS_OWN_GRAPH.test(f.code)).map((f) => f.file);
  const shared = files.map((f) => f.file).filter((file) => !own.includes(file));
  const projects = [
    ...(shared.length > 0 ? [{ extends: true, test: { name: 'shared', isolate: false, include: shared } }] : []),
    ...(own.length > 0 ? [{ extends: true, test: { name: 'isolated', isolate: true, include: own } }] : []),
  ];
  return `export default ${JSON.stringify({ test: { testTimeout: 30000, hookTimeout: 30000, maxWorkers: 1, projects } })};\n`;
}

/** Positions in a vitest snippet's file (its code as written) as README file:line. */
function vitestPositions(snippet: Snippet, output: string): string {
  const name = `${snippet.name}.test${EXTENSION[snippet.lang]}`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return output.replace(new RegExp(`(?:file://)?[^\\s(]*${name}:(\\d+)`, 'g'), (_match, line: string) => {
    const at = snippet.lineOf(Number(line) - 1);
    return `${at.file}:${at.line}`;
  });
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** A failure's message: where the block is, and what went wrong. */
export function failure(snippet: Snippet, what: string, details: string): string {
  return `${snippet.file}:${snippet.line} (\`\`\`${snippet.lang} block) ${what}:\n${details}`;
}

export function relativeToRoot(path: string): string {
  return relative(ROOT, path);
}
