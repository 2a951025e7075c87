// @vitest-environment node
/**
 * The builds of core and browser shorten every property whose name ends in `_` (esbuild
 * `mangleProps`, scripts/lib/internal-props.mjs). That is safe only while no public member and no
 * platform member ends in `_`: a caller's or the DOM's property of such a name would be renamed too.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { mangleProps } from '../../../scripts/lib/internal-props.mjs';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('internal property names shortened by the builds', () => {
  it('are no member of any package’s public API (the API reports hold no name ending in _)', () => {
    const reports = readdirSync(join(root, 'api')).map((file) => readFileSync(join(root, 'api', file), 'utf8'));
    expect(reports.length).toBeGreaterThan(3);
    const members = reports.flatMap((report) => [...report.matchAll(/^\s*(?:readonly\s+)?([A-Za-z$][\w$]*)\??\s*[:(<]/gm)].map((m) => m[1]!));
    expect(members.length).toBeGreaterThan(100);
    expect(members.filter((name) => mangleProps.test(name))).toEqual([]);
  });

  it('are renamed in a build, and names without the mark are left alone', async () => {
    const { outputFiles } = await build({
      stdin: { contents: 'export const o = { redirectUrl_: 1, clientId: 2 }; export const r = o.redirectUrl_;', loader: 'js' },
      mangleProps,
      write: false,
      logLevel: 'silent',
    });
    expect(outputFiles[0]!.text).not.toContain('redirectUrl');
    expect(outputFiles[0]!.text).toContain('clientId');
  });
});
