// The README check itself: that it finds blocks where a reader sees them, honours its markers,
// and fails on a broken snippet with the README's file and line and the compiler's or the
// program's own error. Type-checked here against the workspace's built packages (the packed
// ones are readme.test.ts's business), so this runs in seconds.
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractBlocks, MarkerError, snippetsOf } from '../src/extract.ts';
import { failure, runnableSource, runSnippet, typecheck } from '../src/harness.ts';
import { checkInstallNotes, INSTALL_NOTE } from '../src/install-note.ts';

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
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'oidc-rp-readme-unit-'));
    symlinkSync(resolve(import.meta.dirname, '../node_modules'), join(dir, 'node_modules'), 'dir');
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

  it('a typo: the compiler error at the README line and column, with the line itself', () => {
    const snippets = snippetsOf(extractBlocks('packages/x/README.md', readme));
    const errors = typecheck(snippets, dir);
    const [snippet] = snippets;
    if (!snippet) throw new Error('no snippet');
    expect(errors.get(snippet.name)).toEqual([
      expect.stringMatching(/^packages\/x\/README\.md:7:14 TS2551: Property 'initt' does not exist on type 'BrowserClient'.*\n {4}await client\.initt\(\);$/s),
    ]);
    expect(failure(snippet, 'does not type-check', errors.get(snippet.name)?.join('\n') ?? '')).toMatch(/^packages\/x\/README\.md:3 \(```ts block\) does not type-check:\npackages\/x\/README\.md:7:14 TS2551/);
  });

  it('the same block without the typo type-checks', () => {
    const snippets = snippetsOf(extractBlocks('packages/x/README.md', readme.replace('initt', 'init')));
    expect([...typecheck(snippets, dir).values()]).toEqual([[]]);
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

    const hung = await runSnippet(hangs, dir, 'http://127.0.0.1:1', 1_000);
    expect(hung).toEqual({ ok: false, output: expect.stringMatching(/^did not exit within 1 s/) });
  });

  it('runs with the documented origin mapped to the test server and the types removed', () => {
    const [snippet] = snippetsOf(extractBlocks('X.md', `${fence}ts\nconst issuer: string = 'http://127.0.0.1:4000/demo';\n${fence}`));
    if (!snippet) throw new Error('no snippet');
    expect(runnableSource(snippet, 'http://127.0.0.1:40123').split('//# sourceMappingURL')[0]?.trim()).toBe("const issuer = 'http://127.0.0.1:40123/demo';");
  });
});

describe('install commands', () => {
  it('the first one of an @oidc-rp package in a file needs the tarball note right after its block; others do not', () => {
    const install = [`${fence}sh`, 'npm install @oidc-rp/core', fence].join('\n');
    expect(checkInstallNotes('X.md', `${install}\n\ntext`)).toEqual([expect.stringMatching(/^X\.md:1: an install command/)]);
    expect(checkInstallNotes('X.md', `${install}\n\n${INSTALL_NOTE}\n`)).toEqual([]);
    expect(checkInstallNotes('X.md', `${fence}sh\nnpx @oidc-rp/reference-server --port 4000\n${fence}\n`)).toHaveLength(1);
    expect(checkInstallNotes('X.md', `${fence}sh\nnpm install hono\nnpm test\n${fence}\n`)).toEqual([]);
    expect(checkInstallNotes('X.md', `${install}\n\n${INSTALL_NOTE}\n\n${install}\n`)).toEqual([]);
  });
});
