// The TypeDoc half of the API check (`node scripts/api-docs.mjs --check`) fails on a TypeDoc
// warning: run on a fixture package instead of the workspace's five, with the root typedoc.json
// (every warning an error, the validation options) and the check's own arguments, reading the
// package's `.types/` declarations. One small file and the ES2022 lib keep the run cheap.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TYPEDOC_CHECK_ARGS, typedocProblems } from '../../../scripts/api-docs.mjs';

let work: string;

// A link to nothing, as TypeScript emits the comment into the declarations. One TypeDoc run
// (about 2.5 s of CPU); the other fault TypeDoc warns about, a public type that is not exported,
// is tried by hand as CONTRIBUTING.md describes, and the workspace itself is checked by `pnpm lint`.
const brokenLink = `/** What {@link greet} takes. */
export interface GreetOptions {
  name: string;
}
/** A greeting; see {@link NoSuchName}. */
export declare function greet(options: GreetOptions): string;
`;

/** A package directory whose build "emitted" `declarations` as `.types/index.d.ts`. */
function fixturePackage(name: string, declarations: string): string {
  const dir = join(work, name);
  mkdirSync(join(dir, '.types'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `@fixture/${name}`, version: '0.0.0', type: 'module' }));
  const compilerOptions = { target: 'ES2022', lib: ['ES2022'], types: [], module: 'ESNext', moduleResolution: 'Bundler', strict: true, noEmit: true };
  writeFileSync(join(dir, 'tsconfig.typedoc.json'), JSON.stringify({ compilerOptions, files: ['.types/index.d.ts'] }));
  writeFileSync(join(dir, '.types', 'index.d.ts'), declarations);
  return dir;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'oidc-rp-api-check-'));
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('the TypeDoc check', () => {
  it('fails on a {@link} to nothing in the emitted declarations', async () => {
    const problems = await typedocProblems([...TYPEDOC_CHECK_ARGS, '--entryPoints', fixturePackage('broken-link', brokenLink)]);
    expect(problems).toContain('Failed to resolve link to "NoSuchName" in comment for greet');
  });
});
