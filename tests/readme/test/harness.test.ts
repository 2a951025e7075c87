// The README check itself: that it finds blocks where a reader sees them, honours its markers,
// and fails on a broken snippet with the README's file and line and the compiler's or the
// program's own error. Type-checked here against the workspace's built packages (the packed
// ones are readme.test.ts's business), so this runs in seconds.
import { mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractBlocks, MarkerError, snippetsOf } from '../src/extract.ts';
import { failure, limitConcurrency, linkedDependencies, runnableSource, runSnippet, runVitestSnippets, typecheck, vitestConfig } from '../src/harness.ts';
import { checkInstallNotes, INSTALL_NOTE, installNote } from '../src/install-note.ts';

const fence = '```';

describe('extracting blocks', () => {
  it('finds each fenced block with its language, first line and code, list-indented ones too', () => {
    const markdown = ['# x', '', `${fence}ts`, 'const a = 1;', fence, '', '- step', `  ${fence}sh`, '  npm test', `  ${fence}`, '', `${fence}`, 'plain', fence].join('\n');
    expect(extractBlocks('X.md', markdown).map(({ line, lang, code }) => ({ line, lang, code }))).toEqual([
      { line: 3, lang: 'ts', code: 'const a = 1;\n' },
      { line: 8, lang: 'sh', code: 'npm test\n' },
      { line: 12, lang: '', code: 'plain\n' },
    ]);
  });

  it('reads the markers on the lines right above a block', () => {
    const markdown = [
      '<!-- snippet: compile-only (needs a DOM button) -->',
      '<!-- snippet: declare loginButton: HTMLButtonElement; next: () => void; user: { name: string; roles?: string[] } -->',
      `${fence}ts`,
      'loginButton.onclick = next;',
      fence,
      '<!-- snippet: continues -->',
      `${fence}ts`,
      'next();',
      fence,
    ].join('\n');
    const [first, second] = extractBlocks('X.md', markdown);
    expect(first).toMatchObject({ mode: 'compile-only', reason: 'needs a DOM button', declarations: ['declare const loginButton: HTMLButtonElement;', 'declare const next: () => void;', 'declare const user: { name: string; roles?: string[] };'] });
    expect(second).toMatchObject({ continues: true, mode: 'run' });
  });

  it('reads what a browser or server run opens, who signs in and the text it then expects', () => {
    const [page, server] = extractBlocks(
      'X.md',
      [
        '<!-- snippet: browser (signs in as alice, then expects "Hello Alice Liddell") -->',
        `${fence}ts`,
        'x;',
        fence,
        '<!-- snippet: server (http://127.0.0.1:3000/login signs in as bob, then expects "Bob") -->',
        `${fence}ts`,
        'y;',
        fence,
      ].join('\n'),
    );
    expect(page).toMatchObject({ mode: 'browser', browser: { user: 'alice', expects: 'Hello Alice Liddell' } });
    expect(server).toMatchObject({ mode: 'server', browser: { url: 'http://127.0.0.1:3000/login', user: 'bob', expects: 'Bob' } });
    expect(() => extractBlocks('X.md', `<!-- snippet: server (signs in as bob, then expects "Bob") -->\n${fence}ts\ny;\n${fence}`)).toThrow(/needs the URL to open/);
  });

  it('refuses an exclusion without a reason, an unknown marker and a browser run without its expected text', () => {
    expect(() => extractBlocks('X.md', `<!-- snippet: compile-only -->\n${fence}ts\nx;\n${fence}`)).toThrow(MarkerError);
    expect(() => extractBlocks('X.md', `<!-- snippet: compile-only -->\n${fence}ts\nx;\n${fence}`)).toThrow(/X\.md:2: .*needs a reason/);
    expect(() => extractBlocks('X.md', `<!-- snippet: compile-olny (typo) -->\n${fence}ts\nx;\n${fence}`)).toThrow(/X\.md:2: unknown marker/);
    expect(() => extractBlocks('X.md', `<!-- snippet: browser (signs in as alice) -->\n${fence}ts\nx;\n${fence}`)).toThrow(/needs the text the page then shows/);
  });

  it('reads an app page a browser run starts on, and refuses one off the app origin', () => {
    const [page] = extractBlocks('X.md', `<!-- snippet: browser (http://127.0.0.1:5173/orders signs in as alice, then expects "Orders of Alice") -->\n${fence}tsx\nx;\n${fence}`);
    expect(page).toMatchObject({ mode: 'browser', browser: { url: 'http://127.0.0.1:5173/orders', user: 'alice', expects: 'Orders of Alice' } });
    expect(() => extractBlocks('X.md', `<!-- snippet: browser (http://127.0.0.1:3000/ then expects "A") -->\n${fence}ts\nx;\n${fence}`)).toThrow(/X\.md:2: a "browser" page opens on the app origin/);
  });

  it('reads the button a browser run clicks first, for a page that starts signed out', () => {
    const [page] = extractBlocks('X.md', `<!-- snippet: browser (clicks "Log in", signs in as alice, then expects "Hello Alice") -->\n${fence}tsx\nx;\n${fence}`);
    expect(page).toMatchObject({ mode: 'browser', browser: { clicks: 'Log in', user: 'alice', expects: 'Hello Alice' } });
  });

  it('names blocks with id (unique per file) and app files with file (unique across READMEs), and reads global-setup', () => {
    const [named, setup] = extractBlocks('X.md', `<!-- snippet: vitest -->\n<!-- snippet: id first-test -->\n${fence}ts\nx;\n${fence}\n<!-- snippet: global-setup -->\n${fence}ts\ny;\n${fence}`);
    expect(named).toMatchObject({ mode: 'vitest', id: 'first-test' });
    expect(setup).toMatchObject({ mode: 'global-setup' });
    expect(() => extractBlocks('X.md', `<!-- snippet: id a -->\n${fence}ts\nx;\n${fence}\n<!-- snippet: id a -->\n${fence}ts\ny;\n${fence}`)).toThrow(/X\.md:6: "id a" names another block/);
    expect(() => extractBlocks('X.md', `<!-- snippet: id Not A Name -->\n${fence}ts\nx;\n${fence}`)).toThrow(/"id" takes one name/);
    const lib = `<!-- snippet: file lib/auth.ts -->\n${fence}ts\nexport const a = 1;\n${fence}`;
    expect(snippetsOf(extractBlocks('X.md', lib))[0]).toMatchObject({ appFile: 'lib/auth.ts' });
    expect(() => snippetsOf([...extractBlocks('X.md', lib), ...extractBlocks('Y.md', lib)])).toThrow(/Y\.md:2: "file lib\/auth\.ts" is already the block at X\.md:2/);
    expect(() => extractBlocks('X.md', `<!-- snippet: file ../secrets -->\n${fence}ts\nx;\n${fence}`)).toThrow(/"file" takes a relative path/);
  });

  it('joins a continued block to the previous one and maps each line back to its README line', () => {
    const markdown = [`${fence}ts`, 'const a = 1;', fence, 'text', '<!-- snippet: continues -->', `${fence}ts`, 'const b = a;', 'b.x;', fence].join('\n');
    const [snippet, ...others] = snippetsOf(extractBlocks('X.md', markdown));
    expect(others).toEqual([]);
    expect(snippet?.code).toBe('const a = 1;\nconst b = a;\nb.x;\n');
    expect([0, 1, 2].map((l) => snippet?.lineOf(l).line)).toEqual([2, 7, 8]);
  });
});

describe('a broken snippet fails with its README file and line', () => {
  let dir: string;
  let errors: Map<string, string[]>;
  // One TypeScript program for the three READMEs below, as the real check makes one for all.
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'oidc-rp-readme-unit-'));
    symlinkSync(resolve(import.meta.dirname, '../node_modules'), join(dir, 'node_modules'), 'dir');
    errors = await typecheck([...typo, ...fixed, ...app], dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const readme = [
    '# Example',
    '',
    `${fence}ts`,
    "import { createBrowserClient, serviceProvider } from '@oidc-rp/browser';",
    '',
    "const client = createBrowserClient({ provider: serviceProvider('http://127.0.0.1:4000/demo'), clientId: 'spa', redirectUri: 'http://127.0.0.1:5173/callback' });",
    'await client.initt();',
    fence,
  ].join('\n');

  const appReadme = [
    '<!-- snippet: file lib/auth.ts -->',
    `${fence}ts`,
    'export const auth = { user: (name: string) => name.toUpperCase() };',
    fence,
    `${fence}ts`,
    "import { auth } from '@/lib/auth';",
    'auth.user(42);',
    fence,
  ].join('\n');
  const typo = snippetsOf(extractBlocks('packages/x/README.md', readme));
  const fixed = snippetsOf(extractBlocks('packages/y/README.md', readme.replace('initt', 'init')));
  const app = snippetsOf(extractBlocks('X.md', appReadme));

  it('a typo: the compiler error at the README line and column, with the line itself', () => {
    const [snippet] = typo;
    if (!snippet) throw new Error('no snippet');
    expect(errors.get(snippet.name)).toEqual([
      expect.stringMatching(/^packages\/x\/README\.md:7:14 TS2551: Property 'initt' does not exist on type 'BrowserClient'.*\n {4}await client\.initt\(\);$/s),
    ]);
    expect(failure(snippet, 'does not type-check', errors.get(snippet.name)?.join('\n') ?? '')).toMatch(/^packages\/x\/README\.md:3 \(```ts block\) does not type-check:\npackages\/x\/README\.md:7:14 TS2551/);
  });

  it('the same block without the typo type-checks', () => {
    expect(fixed.map((s) => errors.get(s.name))).toEqual([[]]);
  });

  it('a snippet that throws when run: its exit code and error; one that never ends: a bounded wait', async () => {
    const [throws, hangs] = snippetsOf(
      extractBlocks('X.md', [`${fence}ts`, "throw new Error('no such tenant');", fence, `${fence}ts`, 'setInterval(() => {}, 1000);', fence].join('\n')),
    );
    if (!throws || !hangs) throw new Error('no snippets');
    const thrown = await runSnippet(throws, dir, 'http://127.0.0.1:1');
    expect(thrown.ok).toBe(false);
    expect(thrown.output).toMatch(/^exited with 1\n[\s\S]*Error: no such tenant/);
    expect(thrown.output).toContain('X.md:2'); // the README line of the throw, not the generated file's

    // Run without source maps first; a failure runs again with them, and a pass then stays a failure.
    const [flaky] = snippetsOf(extractBlocks('X.md', `${fence}ts\nif (!process.execArgv.includes('--enable-source-maps')) throw new Error('first run');\n${fence}`));
    if (!flaky) throw new Error('no snippet');
    expect(await runSnippet(flaky, dir, 'http://127.0.0.1:1')).toEqual({ ok: false, output: expect.stringMatching(/^exited with 1\n[\s\S]*Error: first run[\s\S]*passed when run again/) });

    const hung = await runSnippet(hangs, dir, 'http://127.0.0.1:1', 1_000);
    expect(hung).toEqual({ ok: false, output: expect.stringMatching(/^did not exit within 1 s/) });
  });

  it('an app file is imported by the others as @/path', () => {
    expect(app.map((s) => errors.get(s.name))).toEqual([[], [expect.stringMatching(/^X\.md:7:11 TS2345: Argument of type 'number' is not assignable/)]]);
  });

  // The vitest blocks of the next two tests, run in one vitest run as the real check runs all of its blocks (a vitest start each was most of this file's CPU).
  const vitestBlocks = ['# Testing', '', '<!-- snippet: vitest -->', `${fence}ts`, "import { expect, it } from 'vitest';", '', "it('adds', () => {", '  expect(1 + 1).toBe(3);', '});', fence].join('\n');
  const [fails] = snippetsOf(extractBlocks('packages/x/README.md', vitestBlocks));
  const [passes] = snippetsOf(extractBlocks('packages/y/README.md', vitestBlocks.replace('toBe(3)', 'toBe(2)')));
  // Each stubs a global and expects the other's absent: in one shared graph, whichever ran second would fail.
  const stubbing = (own: string, other: string) =>
    ['<!-- snippet: vitest -->', `${fence}ts`, "import { expect, it, vi } from 'vitest';", "it('stubs', () => {", `  vi.stubGlobal('${own}', 1);`, `  expect('${other}' in globalThis).toBe(false);`, '});', fence].join('\n');
  const [stubsA] = snippetsOf(extractBlocks('packages/a/README.md', stubbing('readmeLeakA', 'readmeLeakB')));
  const [stubsB] = snippetsOf(extractBlocks('packages/b/README.md', stubbing('readmeLeakB', 'readmeLeakA')));
  let vitestRun: ReturnType<typeof runVitestSnippets> | undefined;
  const vitestResults = () => {
    if (!fails || !passes || !stubsA || !stubsB) throw new Error('no snippets');
    vitestRun ??= runVitestSnippets([fails, passes, stubsA, stubsB], dir, 'http://127.0.0.1:1');
    return vitestRun;
  };

  it('a vitest block whose assertion fails: the assertion error at its README line; one that passes passes', async () => {
    const results = await vitestResults();
    expect(results.get(fails?.name ?? '')).toEqual({ ok: false, output: expect.stringMatching(/^adds: failed\nAssertionError: expected 2 to be 3[\s\S]*packages\/x\/README\.md:8:/) });
    expect(results.get(passes?.name ?? '')).toEqual({ ok: true, output: '' });
  });

  it('vitest blocks share a module graph, but those that stub a global get their own: the others do not see the stub', async () => {
    expect(vitestConfig([{ file: 'a.test.ts', code: stubsA?.code ?? '' }, { file: 'plain.test.ts', code: 'it()' }])).toContain('"isolate":true,"include":["a.test.ts"]');
    const results = await vitestResults();
    expect([results.get(stubsA?.name ?? ''), results.get(stubsB?.name ?? '')]).toEqual([{ ok: true, output: '' }, { ok: true, output: '' }]);
  });

  it('a global setup runs: its issuer must serve discovery, and a teardown that leaves the server open fails', async () => {
    const setup = (close: string) =>
      snippetsOf(
        extractBlocks(
          'X.md',
          [
            '<!-- snippet: global-setup -->',
            `${fence}ts`,
            "import { createServer } from 'node:http';",
            'export default async function globalSetup() {',
            '  const server = createServer((request, response) => {',
            "    response.setHeader('content-type', 'application/json').end(JSON.stringify({ issuer: process.env.OIDC_ISSUER }));",
            '  });',
            "  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));",
            "  const { port } = server.address() as import('node:net').AddressInfo;",
            "  process.env.OIDC_ISSUER = 'http://127.0.0.1:' + port + '/demo';",
            `  return () => ${close};`,
            '}',
            fence,
          ].join('\n'),
        ),
      )[0];
    const closes = setup('new Promise<void>((resolve) => server.close(() => resolve()))');
    const leaks = setup('Promise.resolve()');
    if (!closes || !leaks) throw new Error('no snippets');
    expect(await runSnippet(closes, dir, 'http://127.0.0.1:1')).toEqual({ ok: true, output: '' });
    expect(await runSnippet(leaks, dir, 'http://127.0.0.1:1', 2_000)).toEqual({ ok: false, output: expect.stringMatching(/^did not exit within 2 s/) });
    const [none] = snippetsOf(extractBlocks('X.md', `<!-- snippet: global-setup -->\n${fence}ts\nexport default async () => () => {};\n${fence}`));
    if (!none) throw new Error('no snippet');
    expect((await runSnippet(none, dir, 'http://127.0.0.1:1')).output).toMatch(/exited with 1[\s\S]*put no issuer URL in process\.env/);
  });

  it('runs with the documented origin mapped to the test server and the types removed', async () => {
    const [snippet] = snippetsOf(extractBlocks('X.md', `${fence}ts\nconst issuer: string = 'http://127.0.0.1:4000/demo';\n${fence}`));
    if (!snippet) throw new Error('no snippet');
    expect((await runnableSource(snippet, 'http://127.0.0.1:40123')).split('//# sourceMappingURL')[0]?.trim()).toBe('const issuer = "http://127.0.0.1:40123/demo";');
  });
});

describe('the scratch install', () => {
  it("links the tarballs' registry dependencies without dependencies of their own to the copies their workspace packages resolve", () => {
    const root = resolve(import.meta.dirname, '../../..');
    const unpacked = (dependencies: Record<string, string>) => {
      const dir = mkdtempSync(join(tmpdir(), 'oidc-rp-readme-unpacked-'));
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ dependencies }));
      return dir;
    };
    const server = unpacked({ hono: '4', zod: '4', '@oidc-rp/core': '0.0.0', redis: '6', 'not-installed': '1' });
    try {
      // Its hono and zod have no dependencies; its redis has (npm would install them inside the link), and a name it does not resolve is npm's.
      const links = linkedDependencies([{ name: '@oidc-rp/reference-server', dir: 'apps/reference-server', tarball: '', unpacked: server }], root);
      expect(Object.keys(links).sort()).toEqual(['hono', 'zod']);
      expect(links.hono).toBe(`file:${realpathSync(join(root, 'apps/reference-server/node_modules/hono'))}`);
    } finally {
      rmSync(server, { recursive: true, force: true });
    }
  });
});

describe('install commands', () => {
  it('the first one of an @oidc-rp package in a file needs the tarball note right after its block; others do not', () => {
    const install = [`${fence}sh`, 'npm install @oidc-rp/core', fence].join('\n');
    expect(checkInstallNotes('X.md', `${install}\n\ntext`)).toEqual([expect.stringMatching(/^X\.md:1: an install command/)]);
    expect(checkInstallNotes('X.md', `${install}\n\n${installNote(['core'])}\n`)).toEqual([]);
    expect(checkInstallNotes('X.md', `${fence}sh\nnpx @oidc-rp/reference-server --port 4000\n${fence}\n`)).toHaveLength(1);
    expect(checkInstallNotes('X.md', `${fence}sh\nnpm install hono\nnpm test\n${fence}\n`)).toEqual([]);
    expect(checkInstallNotes('X.md', `${install}\n\n${installNote(['core'])}\n\n${install}\n`)).toEqual([]);
  });

  it('names the tarballs of the packages the command installs, with those they depend on', () => {
    const react = [`${fence}sh`, 'npm install @oidc-rp/browser @oidc-rp/react', 'npx @oidc-rp/reference-server', fence].join('\n');
    const note = installNote(['browser', 'react']);
    expect(note).toContain('`npm install ./oidc-rp-core-0.0.0.tgz ./oidc-rp-browser-0.0.0.tgz ./oidc-rp-react-0.0.0.tgz`');
    expect(checkInstallNotes('packages/react/README.md', `${react}\n\n${note}\n`)).toEqual([]);
    // The core + browser note of the root README leaves the React tarball out: refused.
    expect(checkInstallNotes('packages/react/README.md', `${react}\n\n${INSTALL_NOTE}\n`)).toHaveLength(1);
    expect(installNote(['node'])).toContain('`npm install ./oidc-rp-core-0.0.0.tgz ./oidc-rp-node-0.0.0.tgz`');
    expect(installNote([])).not.toContain('npm install');
  });
});

describe('running the README programs a few at a time', () => {
  it('never runs more than its slots at once, and starts queued tasks in order as slots free', async () => {
    const slot = limitConcurrency(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const releases: (() => void)[] = [];
    const results = [0, 1, 2, 3, 4].map((n) =>
      slot(async () => {
        started.push(n);
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
        return n;
      }),
    );
    await expect.poll(() => started.length).toBe(2);
    for (let done = 0; done < 5; done++) {
      await expect.poll(() => releases.length).toBeGreaterThan(done);
      releases[done]?.();
    }
    expect(await Promise.all(results)).toEqual([0, 1, 2, 3, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
  });

  it('frees its slot when a task fails', async () => {
    const slot = limitConcurrency(1);
    await expect(slot(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await slot(async () => 'next')).toBe('next');
  });
});
