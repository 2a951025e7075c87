import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

// Every relative specifier: `import ... from`, `import type ... from`, `export ... from`,
// side-effect `import '...'` and `import('...')`. Type-only edges count: they are circles to a reader too.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

function resolveSpecifier(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier.replace(/\.(m?js|ts)$/, ''));
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {}
  }
  throw new Error(`${relative(SRC, from)}: cannot resolve ${specifier}`);
}

/** Relative imports of every source file, by absolute path. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(SPECIFIER)].map((m) => resolveSpecifier(file, m[1] ?? ''));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Every circle found by a depth-first search, as `a.ts -> b.ts -> a.ts`. */
function cycles(graph: Map<string, string[]>): string[] {
  const done = new Set<string>();
  const found: string[] = [];
  const path: string[] = [];
  const onPath = new Set<string>();
  function visit(file: string): void {
    if (onPath.has(file)) {
      found.push([...path.slice(path.indexOf(file)), file].map((f) => relative(SRC, f)).join(' -> '));
      return;
    }
    if (done.has(file)) return;
    path.push(file);
    onPath.add(file);
    for (const next of graph.get(file) ?? []) visit(next);
    onPath.delete(file);
    path.pop();
    done.add(file);
  }
  for (const file of [...graph.keys()].sort()) visit(file);
  return found;
}

/**
 * The layers of src, lowest first: a file may import its own folder and the layers below it,
 * never one above. Top-level files are the composition root (app, server) and the entries.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['crypto'],
  ['http'],
  ['config'],
  ['store'],
  ['keys'],
  ['backchannel'],
  ['request'],
  ['faults'],
  ['oauth'],
  ['endpoints'],
  ['control'],
  ['app.ts', 'server.ts'],
  ['testing'],
  ['index.ts', 'cli.ts', 'cli-launcher.ts', 'testing.ts'],
];

function layerOf(file: string): number {
  const first = relative(SRC, file).split('/')[0] ?? '';
  const layer = LAYERS.findIndex((names) => names.includes(first));
  if (layer < 0) throw new Error(`${relative(SRC, file)} is in no layer: add its folder to LAYERS`);
  return layer;
}

/** Imports that point up a layer, as `from.ts -> to.ts`. */
function upwardImports(graph: Map<string, string[]>): string[] {
  return [...graph].flatMap(([from, targets]) =>
    targets.filter((to) => layerOf(to) > layerOf(from)).map((to) => `${relative(SRC, from)} -> ${relative(SRC, to)}`),
  );
}

describe('import graph of src', () => {
  it('has no import cycle, type-only imports included', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(20);
    expect(cycles(graph)).toEqual([]);
  });

  it('imports only point down the layers (entries -> endpoints -> oauth -> faults -> keys/store/config -> http)', () => {
    expect(upwardImports(importGraph())).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself works)', () => {
    const graph = new Map([
      ['/a.ts', ['/b.ts']],
      ['/b.ts', ['/c.ts']],
      ['/c.ts', ['/a.ts']],
    ]);
    expect(cycles(graph)).toHaveLength(1);
  });
});
