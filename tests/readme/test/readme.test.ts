// Every code block of every README (root, CONTRIBUTING, packages, apps, tests), extracted from
// the Markdown: type-checked strict against the packed packages as a user installs them, and
// run against the reference server over HTTP on 127.0.0.1 unless its marker says why not.
// What the markers mean: ../README.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packAll } from '../../../scripts/release-check.mjs';
import { isCodeLang } from '../src/extract.ts';
import { checkInstallNotes } from '../src/install-note.ts';
import { collectBlocks, collectSnippets, createScratch, failure, type RunResult, ROOT, runSnippet, runVitestSnippets, typecheck } from '../src/harness.ts';
import { readFileSync } from 'node:fs';

const blocks = collectBlocks();
const snippets = collectSnippets();

let work: string;
let scratch: string;
let errors: Map<string, string[]>;
let origin: string;
let closeServer: () => Promise<void>;
let vitestResults: Promise<Map<string, RunResult>>;
const started = Date.now();

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'oidc-rp-readme-'));
  const packed = await packAll(join(work, 'packs'));
  scratch = await createScratch(packed, join(work, 'scratch'));
  errors = typecheck(snippets, scratch);
  // The packed reference server, as the READMEs' `npx @oidc-rp/reference-server` serves it, on a free port.
  const { createReferenceServer, demoConfig } = createRequire(join(scratch, 'package.json'))('@oidc-rp/reference-server');
  const server = await createReferenceServer(demoConfig(), { developmentKeys: true, logger: false });
  const listener = await server.listen({ port: 0 });
  origin = listener.origin;
  closeServer = () => server.close();
  vitestResults = runVitestSnippets(
    snippets.filter((s) => s.mode === 'vitest'),
    scratch,
    origin,
  );
});

afterAll(async () => {
  await closeServer?.();
  rmSync(work, { recursive: true, force: true });
  const code = blocks.filter((b) => isCodeLang(b.lang));
  console.log(
    `README check: ${blocks.length} fenced blocks, ${code.length} code blocks (${snippets.length} programs after joining), ` +
      `${snippets.length} type-checked, ${snippets.filter((s) => s.mode !== 'compile-only').length} run, ` +
      `${blocks.filter((b) => b.lang === 'json').length} JSON blocks; ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
});

describe.each([...new Set(snippets.map((s) => s.file))])('%s', (file) => {
  for (const snippet of snippets.filter((s) => s.file === file)) {
    const what = snippet.mode === 'compile-only' ? ` (compile-only: ${snippet.reason})` : '';
    it(`line ${snippet.line}: type-checks against the packed packages${what}`, () => {
      const found = errors.get(snippet.name) ?? [];
      if (found.length > 0) throw new Error(failure(snippet, 'does not type-check', found.join('\n')));
    });
    if (snippet.mode === 'run') {
      it(`line ${snippet.line}: runs against the reference server`, async () => {
        const result = await runSnippet(snippet, scratch, origin);
        if (!result.ok) throw new Error(failure(snippet, 'failed when run', result.output));
      });
    }
    if (snippet.mode === 'vitest') {
      it(`line ${snippet.line}: passes as a vitest test file`, async () => {
        const result = (await vitestResults).get(snippet.name);
        if (!result?.ok) throw new Error(failure(snippet, 'failed under vitest', result?.output ?? 'no result'));
      });
    }
  }
});

describe('JSON blocks', () => {
  for (const block of blocks.filter((b) => b.lang === 'json' && b.mode !== 'skip')) {
    it(`${block.file}:${block.line} parses`, () => {
      try {
        JSON.parse(block.code);
      } catch (error) {
        throw new Error(`${block.file}:${block.line} (\`\`\`json block) is not JSON: ${(error as Error).message}`);
      }
    });
  }
});

describe('install commands', () => {
  it('every one of an @oidc-rp package is followed by the note on installing packed tarballs', () => {
    const problems = [...new Set(blocks.map((b) => b.file))].flatMap((file) => checkInstallNotes(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(problems).toEqual([]);
  });
});

it('finds the blocks of every README', () => {
  expect(new Set(blocks.map((b) => b.file))).toEqual(new Set(['README.md', 'CONTRIBUTING.md', 'packages/core/README.md', 'packages/browser/README.md', 'packages/react/README.md', 'packages/node/README.md', 'apps/reference-server/README.md', 'apps/spa-example/README.md', 'tests/conformance/README.md']));
  expect(snippets.filter((s) => s.mode !== 'compile-only').length).toBeGreaterThan(0);
});
