// Every code block of every README (root, CONTRIBUTING, packages, apps, tests), extracted from
// the Markdown: type-checked strict against the packed packages as a user installs them, and
// run against the packed reference server over HTTP on 127.0.0.1 unless its marker says why
// not. The markers: ../README.md.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packAll } from '../../../scripts/release-check.mjs';
import { type RunningRedis, startRedisServer } from '../../../test-support/redis-server.ts';
import { closeBrowser, runInBrowser, runServerInBrowser, walkQuickStart } from '../src/browser.ts';
import { isCodeLang, type Snippet } from '../src/extract.ts';
import { collectBlocks, collectSnippets, createScratch, failure, limitConcurrency, ROOT, type RunResult, runSnippet, runVitestSnippets, typecheck } from '../src/harness.ts';
import { checkInstallNotes } from '../src/install-note.ts';

const blocks = collectBlocks();
const snippets = collectSnippets();
const started = Date.now();

let work: string;
let scratch: string;
let errors: Map<string, string[]>;
let origin: string;
// biome-ignore lint/suspicious/noExplicitAny: the packed server's control, loaded at run time
let control: any;
let validateConfig: (config: unknown) => unknown;
let closeServer: (() => Promise<void>) | undefined;
let vitestResults: Promise<Map<string, RunResult>>;
const nodeResults = new Map<string, Promise<RunResult>>();
// The Redis server a README's `process.env.REDIS_URL` names when its blocks run.
let redis: RunningRedis | undefined;

const phases: string[] = [];
function lap(name: string, since: number): number {
  phases.push(`${name} ${((Date.now() - since) / 1000).toFixed(1)} s`);
  return Date.now();
}

beforeAll(async () => {
  let t = Date.now();
  work = mkdtempSync(join(tmpdir(), 'oidc-rp-readme-'));
  const redisStarted = startRedisServer();
  redisStarted.catch(() => undefined); // awaited below, after packing
  const packed = await packAll(join(work, 'packs'));
  t = lap('pack', t);
  scratch = await createScratch(packed, join(work, 'scratch'));
  t = lap('npm install', t);
  // The packed reference server (what `npx @oidc-rp/reference-server` serves) on a free port.
  const packedServer = createRequire(join(scratch, 'package.json'))('@oidc-rp/reference-server');
  const { createReferenceServer, demoConfig } = packedServer;
  validateConfig = packedServer.validateConfig;
  const server = await createReferenceServer(demoConfig(), { developmentKeys: true, logger: false });
  origin = (await server.listen({ port: 0 })).origin;
  control = server.control;
  closeServer = () => server.close();
  redis = await redisStarted;
  // The vitest and global-setup runs start servers of their own (createTestServer): child
  // processes, started now, they run beside the type check (a tsc process); the plain runs, which
  // call the reference server above, start after it. Their tests read the results.
  vitestResults = runVitestSnippets(
    snippets.filter((s) => s.mode === 'vitest'),
    scratch,
    origin,
  );
  // A few programs at a time, each timed from its own start: the limit is a hang guard (a server
  // left listening), not a speed test.
  const slot = limitConcurrency(Math.max(2, availableParallelism()));
  const startRuns = (mode: Snippet['mode']) => {
    for (const snippet of snippets.filter((s) => s.mode === mode)) {
      const result = slot(() => runSnippet(snippet, scratch, origin, 60_000, { REDIS_URL: redis?.url ?? '' })).catch((error: Error) => ({ ok: false, output: error.stack ?? error.message }));
      nodeResults.set(snippet.name, result);
    }
  };
  startRuns('global-setup');
  errors = await typecheck(snippets, scratch);
  startRuns('run');
  lap('server start and tsc (vitest runs beside it)', t);
});

afterAll(async () => {
  await closeBrowser();
  await closeServer?.();
  await redis?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
  const code = blocks.filter((b) => isCodeLang(b.lang));
  const ran = snippets.filter((s) => s.mode !== 'compile-only');
  console.log(
    `README check: ${blocks.length} fenced blocks in ${new Set(blocks.map((b) => b.file)).size} files; ${code.length} code blocks, ` +
      `${snippets.length} programs type-checked (continued blocks joined), ${ran.length} run (${ran.filter((s) => s.mode === 'run').length} with node, ` +
      `${ran.filter((s) => s.mode === 'browser').length} page scripts and ${ran.filter((s) => s.mode === 'server').length} web servers in Chromium, ` +
      `${ran.filter((s) => s.mode === 'vitest').length} with vitest, ${ran.filter((s) => s.mode === 'global-setup').length} global setup), ` +
      `${snippets.length - ran.length} compile-only; ${blocks.filter((b) => b.lang === 'json').length} JSON blocks; ` +
      `${((Date.now() - started) / 1000).toFixed(1)} s (${phases.join(', ')})`,
  );
});

describe.each([...new Set(snippets.map((s) => s.file))])('%s', (file) => {
  for (const snippet of snippets.filter((s) => s.file === file)) {
    const how = snippet.mode === 'compile-only' ? ` (compile-only: ${snippet.reason})` : '';
    it(`line ${snippet.line}: type-checks against the packed packages${how}`, () => {
      const found = errors.get(snippet.name) ?? [];
      if (found.length > 0) throw new Error(failure(snippet, 'does not type-check', found.join('\n')));
    });
  }
});

// Each a node process of its own, all started in beforeAll.
describe('run with node against the reference server', () => {
  for (const snippet of snippets.filter((s) => s.mode === 'run' || s.mode === 'global-setup')) {
    it(`${snippet.file}:${snippet.line}`, async () => {
      const result = (await nodeResults.get(snippet.name)) ?? { ok: false, output: 'never started' };
      if (!result.ok) throw new Error(failure(snippet, 'failed when run with node', result.output));
    });
  }
});

describe('run with vitest (one run for all)', () => {
  for (const snippet of snippets.filter((s) => s.mode === 'vitest')) {
    it(`${snippet.file}:${snippet.line}`, async () => {
      const result = (await vitestResults).get(snippet.name);
      if (!result?.ok) throw new Error(failure(snippet, 'failed under vitest', result?.output ?? 'no result'));
    });
  }
});

// Two at a time (the suite has 2 cores): each a browser context of one Chromium, and for a
// server a node process. A test's time includes its wait for a turn, so its bound is the whole
// queue's; each run bounds its own steps (30 s each, see ../src/browser.ts).
const CHROMIUM_RUNS_AT_ONCE = 2;
const CHROMIUM_QUEUE_TIMEOUT = 600_000;
let running = 0;
const waiting: (() => void)[] = [];
async function inTurn<T>(run: () => Promise<T>): Promise<T> {
  if (running >= CHROMIUM_RUNS_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await run();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

describe.concurrent('run in Chromium, signed in through the reference server', () => {
  for (const snippet of snippets.filter((s) => s.mode === 'browser' || s.mode === 'server')) {
    const how = snippet.mode === 'browser' ? 'a page script' : 'a web server run with node';
    it(`${snippet.file}:${snippet.line} (${how})`, async () => {
      const result = await inTurn(() => (snippet.mode === 'browser' ? runInBrowser : runServerInBrowser)(snippet, scratch, origin, control));
      if (!result.ok) throw new Error(failure(snippet, 'failed in Chromium', result.output));
    }, CHROMIUM_QUEUE_TIMEOUT);
  }
});

// The React quick start as a newcomer walks it, built as the README writes it: opened first where
// Vite says (localhost), then at the redirect URI's origin; a signed-out page with a sign-in
// button; after the login, after the logout. In its turn among the Chromium runs.
describe('the React quick start, walked', () => {
  const block = blocks.find((b) => b.file === 'packages/react/README.md' && b.id === 'react-quick-start');
  const snippet = block && snippets.find((s) => s.file === block.file && s.line === block.line);

  it('says on the page which origin to open, starts signed out with a Log in button, and lands signed out after Log out', async () => {
    if (!snippet) throw new Error('packages/react/README.md has no block marked "id react-quick-start"');
    const walk = await inTurn(() =>
      walkQuickStart(snippet, scratch, origin, control, {
        atLocalhost: 'open the app at http://127.0.0.1:5173',
        signedOut: 'You are signed out.',
        login: 'Log in',
        signedIn: 'Hello Alice Liddell',
        logout: 'Log out',
      }),
    );
    // At localhost: not a blank page; the origin to open, in words, on the page.
    expect(walk.atLocalhost).toContain('This page is at http://localhost:5173 but redirectUri is at http://127.0.0.1:5173');
    expect(walk.atLocalhost).toContain('open the app at http://127.0.0.1:5173');
    // At 127.0.0.1: a signed-out page first (no jump to the provider), then the user.
    expect(walk.signedOut).toContain('You are signed out.');
    expect(walk.signedIn).toContain('Hello Alice Liddell');
    // After Log out: back on the app, signed out; not the provider's sign-in form.
    expect(walk.afterLogout.url).toBe('http://127.0.0.1:5173/');
    expect(walk.afterLogout.text).toContain('You are signed out.');
    expect(walk.afterLogout.text).not.toMatch(/Username|Password/);
    expect(walk.problems).toEqual([]);
  }, CHROMIUM_QUEUE_TIMEOUT);
});

describe('JSON blocks', () => {
  for (const block of blocks.filter((b) => b.lang === 'json' && b.mode !== 'skip')) {
    it(`${block.file}:${block.line} parses; a reference server config (with "tenants") is valid`, () => {
      let json: unknown;
      try {
        json = JSON.parse(block.code);
      } catch (error) {
        throw new Error(`${block.file}:${block.line} (\`\`\`json block) is not JSON: ${(error as Error).message}`);
      }
      if (json && typeof json === 'object' && Array.isArray((json as { tenants?: unknown }).tenants)) {
        try {
          validateConfig(json);
        } catch (error) {
          throw new Error(`${block.file}:${block.line} (\`\`\`json block) is not a valid reference server config: ${(error as Error).message}`);
        }
      }
    });
  }
});

describe('install commands', () => {
  it('every one of an @oidc-rp package is followed by the note on installing packed tarballs', () => {
    const files = [...new Set(blocks.map((b) => b.file))];
    expect(files.flatMap((file) => checkInstallNotes(file, readFileSync(join(ROOT, file), 'utf8')))).toEqual([]);
  });
});

it('reads the root README, CONTRIBUTING and every package README, and runs some of their blocks', () => {
  const files = new Set(blocks.map((b) => b.file));
  for (const file of ['README.md', 'CONTRIBUTING.md', 'packages/core/README.md', 'packages/browser/README.md', 'packages/react/README.md', 'packages/node/README.md', 'apps/reference-server/README.md']) {
    expect(files).toContain(file);
  }
  expect(snippets.filter((s) => s.file === 'README.md').map((s) => s.mode)).toEqual(['browser', 'run', 'vitest']);
});
