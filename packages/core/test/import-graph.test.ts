/**
 * Core's folders by role (ARCHITECTURE.md): the shared base (`errors`, `options`, `clock`,
 * `types`, `dev`), `http/`, `jose/`, `provider/`, then the two sides, `client/` and `api/`, which
 * never import each other, then the entries. A file imports its own folder and the layers below
 * it only, never one above, and no file is part of an import circle (type-only imports included).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });

// `from '…'`, `import '…'` and `import('…')` with a relative specifier.
const RELATIVE = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

function edges(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files(SRC)) {
    const targets = [...readFileSync(file, 'utf8').matchAll(RELATIVE)].map(([, spec]) => {
      const base = resolve(dirname(file), spec ?? '');
      const found = [`${base}.ts`, join(base, 'index.ts')].find((candidate) => statSync(candidate, { throwIfNoEntry: false })?.isFile());
      if (!found) throw new Error(`${relative(SRC, file)}: cannot resolve ${spec}`);
      return found;
    });
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The layer of a file: 0 the shared base at the root, 4 both sides, 5 the root entries. */
function layer(file: string): { rank: number; side?: 'client' | 'api' } {
  const [top, ...rest] = relative(SRC, file).split(sep);
  if (rest.length === 0) return { rank: top === 'index.ts' || top === 'internal.ts' || top === 'signed.ts' ? 5 : 0 };
  if (top === 'client' || top === 'api') return { rank: 4, side: top };
  const rank = { http: 1, jose: 2, provider: 3 }[top ?? ''];
  if (rank === undefined) throw new Error(`src/${top}/ is not a known folder: add it to the layers here and in ARCHITECTURE.md.`);
  return { rank };
}

describe("core's source layout", () => {
  it('imports point down the layers, and the client and API sides never import each other', () => {
    const wrong: string[] = [];
    for (const [file, targets] of edges()) {
      const from = layer(file);
      for (const target of targets) {
        const to = layer(target);
        const crossesSides = from.side !== undefined && to.side !== undefined && from.side !== to.side;
        if (to.rank > from.rank || crossesSides) wrong.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('has no import circle', () => {
    const graph = edges();
    const circles: string[] = [];
    const done = new Set<string>();
    const path: string[] = [];
    const visit = (file: string): void => {
      if (path.includes(file)) {
        circles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(SRC, f)).join(' -> '));
        return;
      }
      if (done.has(file)) return;
      path.push(file);
      for (const next of graph.get(file) ?? []) visit(next);
      path.pop();
      done.add(file);
    };
    for (const file of [...graph.keys()].sort()) visit(file);
    expect(circles).toEqual([]);
  });
});
