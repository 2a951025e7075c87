// @vitest-environment node
/**
 * The builds of core and browser shorten the property names in scripts/lib/internal-props.mjs
 * everywhere in their code. That is safe only for names no caller and no platform object uses:
 * a public option or a DOM method of the same name would be renamed too, and break.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { INTERNAL_PROPS, mangleProps } from '../../../scripts/lib/internal-props.mjs';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const member = (name: string) => new RegExp(`^\\s*(?:readonly\\s+)?${name}\\??\\s*[:(<]`, 'm');

describe('internal property names shortened by the builds', () => {
  it('are no member of any package’s public API', () => {
    const reports = readdirSync(join(root, 'api')).map((file) => readFileSync(join(root, 'api', file), 'utf8'));
    expect(reports.length).toBeGreaterThan(3);
    const public_ = INTERNAL_PROPS.filter((name) => reports.some((report) => member(name).test(report)));
    expect(public_).toEqual([]);
  });

  it('are no member of a DOM or JavaScript built-in (TypeScript’s libraries)', () => {
    const lib = dirname(createRequire(join(root, 'package.json')).resolve('typescript/lib/lib.dom.d.ts'));
    const texts = readdirSync(lib)
      .filter((file) => /^lib\.(dom|webworker|es20\d\d|esnext)[\w.]*\.d\.ts$/.test(file))
      .map((file) => readFileSync(join(lib, file), 'utf8'));
    expect(texts.length).toBeGreaterThan(10);
    const builtIn = INTERNAL_PROPS.filter((name) => texts.some((text) => member(name).test(text)));
    expect(builtIn).toEqual([]);
  });

  it('are renamed in a build, and the guard would catch a public name', async () => {
    const { outputFiles } = await build({
      stdin: { contents: 'export const o = { redirectUrl: 1, clientId: 2 };', loader: 'js' },
      mangleProps,
      write: false,
      logLevel: 'silent',
    });
    expect(outputFiles[0]!.text).not.toContain('redirectUrl');
    expect(outputFiles[0]!.text).toContain('clientId');
    expect(member('clientId').test('    clientId: string;')).toBe(true);
  });
});
