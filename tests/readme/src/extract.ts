// Finds every fenced code block of a Markdown file and the `<!-- snippet: … -->` markers written
// on the lines right above it. The markers say what the harness does with a block beyond the
// default (TypeScript and JavaScript: type-check, then run; JSON: parse):
//
//   <!-- snippet: vitest -->                   a vitest test file: type-checked, run by vitest
//   <!-- snippet: browser (signs in as alice, then expects "TEXT") -->
//                                              a page script: bundled, opened in Chromium at
//                                              http://127.0.0.1:5173/ (or the app URL the marker
//                                              starts with), signed in through the server's login
//                                              page; passes when TEXT shows
//   <!-- snippet: server (http://127.0.0.1:3000/login signs in as alice, then expects "TEXT") -->
//                                              a web server: run with node on a free port in
//                                              place of the URL's, the URL opened in Chromium,
//                                              signed in; passes when TEXT shows
//   <!-- snippet: compile-only (REASON) -->    type-checked, not run (REASON says why)
//   <!-- snippet: skip (REASON) -->            neither (REASON says why; e.g. an outline with …)
//   <!-- snippet: continues -->                joined to the file's previous checked block
//   <!-- snippet: declare NAME: TYPE; … -->    names the reader has (a button, a request):
//                                              declared for the type check only
//   <!-- snippet: global-setup -->             a Playwright or vitest global setup file: run
//                                              with node, its default export called, the issuer
//                                              it exports in process.env checked, its teardown
//                                              called; the process must then exit
//   <!-- snippet: file lib/auth.ts -->        the block is that file of an app: other blocks import
//                                              it as `@/lib/auth` (create-next-app's alias); one
//                                              block of all READMEs per path
//   <!-- snippet: id NAME -->                  names a block so that another test can find it
//                                              (NAME: lowercase words and hyphens, unique per file)

/** Languages whose blocks are TypeScript programs (JavaScript ones are checked as JS). */
export const CODE_LANGS = ['ts', 'tsx', 'js', 'mjs', 'jsx'] as const;
export type CodeLang = (typeof CODE_LANGS)[number];

export type Mode = 'run' | 'global-setup' | 'vitest' | 'browser' | 'server' | 'compile-only' | 'skip';

/** What a browser snippet's page does: who signs in, and the text that then shows. */
export interface BrowserRun {
  user?: string;
  /** A button the reader clicks first (`clicks "Log in"`): the page shows a signed-out state before any login. */
  clicks?: string;
  expects: string;
  /** The documented URL the browser opens: for a server, its origin is where the server listens; for a page, it is on http://127.0.0.1:5173. */
  url?: string;
}

export interface Block {
  /** The Markdown file, relative to the repository root. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  code: string;
  mode: Mode;
  /** Why a block is not run (compile-only, skip). */
  reason?: string;
  continues: boolean;
  /** TypeScript declarations (`declare const …`) from `declare` markers. */
  declarations: string[];
  browser?: BrowserRun;
  /** The name an `id` marker gives the block. */
  id?: string;
  /** The app file a `file` marker says the block is (`lib/auth.ts`). */
  appFile?: string;
}

export class MarkerError extends Error {}

const FENCE = /^( {0,3})(`{3,}|~{3,})\s*([\w+-]*)[^\n]*$/;
const MARKER = /^\s*<!--\s*snippet:\s*([\s\S]*?)\s*-->\s*$/;

/** Every fenced block of `markdown`, with the markers above it. Throws MarkerError on a bad marker. */
export function extractBlocks(file: string, markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  const ids = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? '');
    if (!open) continue;
    const [, indent = '', fence = '', lang = ''] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const text = lines[j] ?? '';
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(text)?.[1];
      if (close && close[0] === fence[0] && close.length >= fence.length) break;
      // A fence indented in a list item indents its lines the same way.
      body.push(text.startsWith(indent) ? text.slice(indent.length) : text.trimStart());
    }
    const markers: string[] = [];
    for (let k = i - 1; k >= 0; k--) {
      const marker = MARKER.exec(lines[k] ?? '');
      if (!marker) break;
      markers.unshift(marker[1] ?? '');
    }
    const block = withMarkers({ file, line: i + 1, lang: lang.toLowerCase(), code: `${body.join('\n')}\n`, mode: 'run', continues: false, declarations: [] }, markers);
    if (block.id !== undefined) {
      if (ids.has(block.id)) throw new MarkerError(`${file}:${block.line}: "id ${block.id}" names another block of this file too`);
      ids.add(block.id);
    }
    blocks.push(block);
    i = j;
  }
  return blocks;
}

function withMarkers(block: Block, markers: string[]): Block {
  const where = `${block.file}:${block.line}`;
  for (const marker of markers) {
    const [, kind = '', rest = ''] = /^([\w-]+)\s*([\s\S]*)$/.exec(marker) ?? [];
    const reason = /^\((.+)\)$/s.exec(rest)?.[1]?.trim();
    switch (kind) {
      case 'vitest':
      case 'global-setup':
        block.mode = kind;
        break;
      case 'file':
        if (!/^(?:[\w-]+\/)*[\w-]+\.(?:ts|tsx|js|mjs|jsx)$/.test(rest)) throw new MarkerError(`${where}: "file" takes a relative path of a code file, e.g. "<!-- snippet: file lib/auth.ts -->", not "${rest}"`);
        block.appFile = rest;
        break;
      case 'id':
        if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(rest)) throw new MarkerError(`${where}: "id" takes one name of lowercase words and hyphens, e.g. "<!-- snippet: id login-as-roles -->", not "${rest}"`);
        block.id = rest;
        break;
      case 'browser':
      case 'server': {
        const expects = reason && /expects "([^"]+)"/.exec(reason)?.[1];
        if (!expects) throw new MarkerError(`${where}: "${kind}" needs the text the page then shows, e.g. "<!-- snippet: browser (signs in as alice, then expects "Hello Alice") -->"`);
        const user = /signs in as (\w+)/.exec(reason ?? '')?.[1];
        const clicks = /clicks "([^"]+)"/.exec(reason ?? '')?.[1];
        const url = /(https?:\/\/[^\s)]+)/.exec(reason ?? '')?.[1];
        if (kind === 'server' && !url) throw new MarkerError(`${where}: "server" needs the URL to open, e.g. "<!-- snippet: server (http://127.0.0.1:3000/login signs in as alice, then expects "Alice") -->"`);
        block.mode = kind;
        if (kind === 'browser' && url && !url.startsWith('http://127.0.0.1:5173/')) throw new MarkerError(`${where}: a "browser" page opens on the app origin, e.g. "<!-- snippet: browser (http://127.0.0.1:5173/orders signs in as alice, then expects "Alice") -->", not ${url}`);
        block.browser = { expects, ...(user === undefined ? {} : { user }), ...(clicks === undefined ? {} : { clicks }), ...(url ? { url } : {}) };
        break;
      }
      case 'compile-only':
      case 'skip':
        if (!reason) throw new MarkerError(`${where}: "<!-- snippet: ${kind} -->" needs a reason in parentheses, e.g. "<!-- snippet: ${kind} (needs a DOM button) -->"`);
        block.mode = kind;
        block.reason = reason;
        break;
      case 'continues':
        block.continues = true;
        break;
      case 'declare':
        for (const part of splitTopLevel(rest).map((p) => p.trim()).filter(Boolean)) {
          if (!/^[A-Za-z_$][\w$]*\s*:/.test(part)) throw new MarkerError(`${where}: "declare" takes NAME: TYPE pairs separated by ";", not "${part}"`);
          block.declarations.push(`declare const ${part};`);
        }
        break;
      default:
        throw new MarkerError(`${where}: unknown marker "<!-- snippet: ${marker} -->" (vitest, browser (…), server (…), global-setup, compile-only (reason), skip (reason), continues, declare NAME: TYPE, file PATH, id NAME)`);
    }
  }
  return block;
}

/** Splits `a: T; b: { c: U; d: V }` at the semicolons outside brackets. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{' || c === '(' || c === '[' || c === '<') depth++;
    else if (c === '}' || c === ')' || c === ']' || (c === '>' && text[i - 1] !== '=')) depth--;
    else if (c === ';' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** A program made of one block, or of a block and the ones that continue it. */
export interface Snippet {
  /** File name for the program: the README path and line, e.g. `packages-node-README.md-L22.ts`. */
  name: string;
  file: string;
  line: number;
  lang: CodeLang;
  mode: Exclude<Mode, 'skip'>;
  reason?: string;
  browser?: BrowserRun;
  /** The app file the block is (`file` marker), imported by others as `@/<path without extension>`. */
  appFile?: string;
  /** The code as written, then the declarations. */
  code: string;
  /** Maps 0-based lines of `code` to README lines. */
  lineOf(codeLine: number): { file: string; line: number };
}

export function isCodeLang(lang: string): lang is CodeLang {
  return (CODE_LANGS as readonly string[]).includes(lang);
}

/** Joins continued blocks and keeps the code blocks that are checked. */
export function snippetsOf(blocks: Block[]): Snippet[] {
  const appFiles = new Map<string, string>();
  for (const block of blocks) {
    if (block.appFile === undefined) continue;
    const other = appFiles.get(block.appFile);
    if (other) throw new MarkerError(`${block.file}:${block.line}: "file ${block.appFile}" is already the block at ${other}`);
    if (block.continues) throw new MarkerError(`${block.file}:${block.line}: "file" names a whole program: put it on the first of the joined blocks`);
    appFiles.set(block.appFile, `${block.file}:${block.line}`);
  }
  const snippets: (Snippet & { segments: { start: number; line: number; file: string }[]; parts: string[]; decls: string[] })[] = [];
  for (const block of blocks) {
    if (!isCodeLang(block.lang) || block.mode === 'skip') continue;
    const previous = snippets.at(-1);
    if (block.continues) {
      if (!previous || previous.file !== block.file) {
        throw new MarkerError(`${block.file}:${block.line}: "continues" but no checked code block comes before it in this file`);
      }
      previous.segments.push({ start: previous.parts.join('').split('\n').length - 1, line: block.line + 1, file: block.file });
      previous.parts.push(block.code);
      previous.decls.push(...block.declarations);
      // The joined program runs only if every part may run.
      if (block.mode === 'compile-only') Object.assign(previous, { mode: block.mode, reason: block.reason });
      if (block.lang === 'tsx' || block.lang === 'jsx') previous.lang = block.lang;
      continue;
    }
    const segments = [{ start: 0, line: block.line + 1, file: block.file }];
    snippets.push({
      name: `${block.file.replace(/[^\w.]+/g, '-')}-L${block.line}`,
      file: block.file,
      line: block.line,
      lang: block.lang,
      mode: block.mode,
      ...(block.reason === undefined ? {} : { reason: block.reason }),
      ...(block.browser === undefined ? {} : { browser: block.browser }),
      ...(block.appFile === undefined ? {} : { appFile: block.appFile }),
      code: '',
      segments,
      parts: [block.code],
      decls: [...block.declarations],
      lineOf(codeLine) {
        const segment = [...segments].reverse().find((s) => s.start <= codeLine) ?? segments[0];
        if (!segment) return { file: block.file, line: block.line };
        return { file: segment.file, line: segment.line + codeLine - segment.start };
      },
    });
  }
  return snippets.map(({ segments: _s, parts, decls, ...snippet }) => ({ ...snippet, code: `${parts.join('')}${decls.map((d) => `${d}\n`).join('')}` }));
}
