import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ViteUserConfig } from 'vitest/config';

/**
 * Settings every workspace's vitest config starts from: a JSON report for the root
 * summary line, and no silently passing suites.
 */
export const sharedTestConfig = {
  test: {
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
    passWithNoTests: false,
    restoreMocks: true,
    // A hang guard, not an assertion: room for a machine busy with other work (see CONTRIBUTING).
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // `expect.poll` waits for a condition that comes when the work it waits on is done: its budget
    // is the hang guard's, not vitest's 1 s default, so a slow machine makes it wait, not fail. A
    // poll that waits on a timer of the code under test says so and derives its budget from it.
    expect: { poll: { timeout: 25_000 } },
  },
} satisfies ViteUserConfig;

// A file that replaces modules (`vi.mock`, `vi.doMock`) needs a module graph of its own: in a
// shared one the module may already be loaded unmocked, and its mock would reach later files.
// So does a file that picks another environment (a docblock): its globals are not the others'.
// A docblock naming `node`, the environment of these suites, changes nothing: such a file shares
// the graph (it used to get a worker and a whole import of its own: five Chromium files of the
// conformance suite and the certification browser plans, 10-15 s of CPU per run).
const NEEDS_OWN_GRAPH = /\bvi\s*\.\s*(?:mock|doMock|unmock|doUnmock)\s*\(|@vitest-environment\s+(?!node\b)/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path);
    return /\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/**
 * Runs a node-environment workspace's test files one after another in one worker that keeps the
 * module graph (`isolate: false`), instead of a new process importing the whole graph again per
 * file (on two busy cores that import was a third of the run). Files that mock modules or pick
 * their own environment still get a fresh graph each. Only for suites whose files share no module
 * state they depend on: each file starts its own servers, clocks and stores, and vitest restores
 * mocks and spies between files either way. `setupFiles` run before every file: the place to
 * empty a process-wide cache (a JWKS cache) that each file used to start without.
 *
 * @example
 * export default defineConfig(mergeConfig(sharedTestConfig, sharedModuleGraph(fileURLToPath(new URL('.', import.meta.url)))));
 */
export function sharedModuleGraph(root: string, options: { testDir?: string; setupFiles?: string[] } = {}): ViteUserConfig {
  const ownGraph = testFiles(join(root, options.testDir ?? 'test'))
    .filter((file) => NEEDS_OWN_GRAPH.test(readFileSync(file, 'utf8')))
    .map((file) => relative(root, file).split('\\').join('/'));
  return {
    test: {
      projects: [
        {
          extends: true as const,
          test: { name: 'shared', isolate: false, exclude: ['**/node_modules/**', ...ownGraph], setupFiles: options.setupFiles ?? [] },
        },
        ...(ownGraph.length > 0 ? [{ extends: true as const, test: { name: 'isolated', isolate: true, include: ownGraph } }] : []),
      ],
    },
  };
}

/**
 * As {@link sharedModuleGraph}, for a workspace whose files pick their environment with a docblock
 * (`// @vitest-environment node` in a happy-dom suite): the files of each environment share one
 * worker and module graph of their own, instead of each such file getting a fresh process. Only
 * files that mock modules get a fresh graph each. The `setupFiles` run before every file of the
 * shared projects: the place to give each file the fresh page (storage, URL, channels) it used to
 * start with. `globalSetupFor` names the global setups of one environment's project.
 */
export function sharedModuleGraphPerEnvironment(
  root: string,
  options: { testDir?: string; setupFiles?: string[]; globalSetupFor?: Record<string, string[]> } = {},
): ViteUserConfig {
  const byEnvironment = new Map<string, string[]>();
  const ownGraph: string[] = [];
  for (const file of testFiles(join(root, options.testDir ?? 'test'))) {
    const source = readFileSync(file, 'utf8');
    const path = relative(root, file).split('\\').join('/');
    if (/\bvi\s*\.\s*(?:mock|doMock|unmock|doUnmock)\s*\(/.test(source)) ownGraph.push(path);
    else {
      const environment = /@vitest-environment\s+([\w-]+)/.exec(source)?.[1];
      if (environment) byEnvironment.set(environment, [...(byEnvironment.get(environment) ?? []), path]);
    }
  }
  const docblocked = [...byEnvironment.values()].flat();
  const shared = { isolate: false, setupFiles: options.setupFiles ?? [] };
  return {
    test: {
      projects: [
        { extends: true as const, test: { name: 'shared', ...shared, exclude: ['**/node_modules/**', ...ownGraph, ...docblocked] } },
        ...[...byEnvironment].map(([environment, include]) => ({
          extends: true as const,
          // A global setup (one Chromium) only for the environment whose files need it, not one per project.
          test: { name: `shared-${environment}`, ...shared, environment, include, globalSetup: options.globalSetupFor?.[environment] ?? [] },
        })),
        ...(ownGraph.length > 0 ? [{ extends: true as const, test: { name: 'isolated', isolate: true, include: ownGraph } }] : []),
      ],
    },
  };
}
