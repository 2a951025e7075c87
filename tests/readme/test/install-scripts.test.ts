// First contact: a fresh `pnpm install` (what `npm test` and `npm run demo` run on a new clone)
// prints pnpm's "Ignored build scripts" box for every dependency with an install script that
// pnpm-workspace.yaml does not decide. So every installed one must be decided there.
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../src/harness.ts';

/** The names listed under `key:` in pnpm-workspace.yaml. */
function listed(yaml: string, key: string): string[] {
  const section = new RegExp(`^${key}:\\n((?:[ \\t]+.*\\n|[ \\t]*#.*\\n|\\n)*)`, 'm').exec(yaml)?.[1] ?? '';
  return [...section.matchAll(/^\s+-\s+'?([^'#\s]+)'?/gm)].map((m) => m[1] ?? '');
}

/** Every package in pnpm's store layout that has an install script (as pnpm counts them). */
function packagesWithInstallScripts(): string[] {
  const store = join(ROOT, 'node_modules/.pnpm');
  const found = new Set<string>();
  for (const entry of readdirSync(store)) {
    const modules = join(store, entry, 'node_modules');
    if (!existsSync(modules)) continue;
    const dirs = readdirSync(modules).flatMap((name) => (name.startsWith('@') ? readdirSync(join(modules, name)).map((sub) => `${name}/${sub}`) : [name]));
    for (const name of dirs) {
      const dir = join(modules, name);
      if (lstatSync(dir).isSymbolicLink()) continue; // a dependency's link, not this entry's package
      const manifest = join(dir, 'package.json');
      if (!existsSync(manifest)) continue;
      const scripts = (JSON.parse(readFileSync(manifest, 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};
      if (scripts.preinstall || scripts.install || scripts.postinstall || existsSync(join(dir, 'binding.gyp'))) found.add(name);
    }
  }
  return [...found].sort();
}

it('pnpm-workspace.yaml decides every installed dependency that has an install script, and only those', () => {
  const yaml = readFileSync(join(ROOT, 'pnpm-workspace.yaml'), 'utf8');
  const decided = new Set([...listed(yaml, 'onlyBuiltDependencies'), ...listed(yaml, 'ignoredBuiltDependencies')]);
  const withScripts = packagesWithInstallScripts();
  expect(withScripts.filter((name) => !decided.has(name))).toEqual([]); // each would be in pnpm's warning box
  expect([...decided].filter((name) => !withScripts.includes(name))).toEqual([]); // an entry that decides nothing misleads
});
