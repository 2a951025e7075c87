// @vitest-environment node
/**
 * The class name survives the build: an OidcError from the built files (ESM and CJS, the
 * default and the `production` build) prints as `OidcError` when logged with console.log and
 * when thrown uncaught, in a real Node process. A bundler renames a class that names itself in
 * its own body (`class _OidcError`), which Node then printed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dist = (file: string) => fileURLToPath(new URL(`../../core/dist/${file}`, import.meta.url));

describe.each(['index.mjs', 'index.cjs', 'index.production.mjs', 'index.production.cjs'])('core/dist/%s in Node', (file) => {
  const load = file.endsWith('.mjs') ? `const { OidcError, TokenEndpointError } = await import(${JSON.stringify(dist(file))});` : `const { OidcError, TokenEndpointError } = require(${JSON.stringify(dist(file))});`;
  const run = (code: string) => {
    if (!existsSync(dist(file))) throw new Error(`${dist(file)} is missing: run pnpm build first`);
    // CommonJS needs `require`, ESM top-level await: each runs in its own module type.
    const args = file.endsWith('.mjs') ? ['--input-type=module', '-e', `${load}\n${code}`] : ['-e', `(async () => { ${load}\n${code} })().catch((e) => { setImmediate(() => { throw e; }); });`];
    return spawnSync(process.execPath, args, { encoding: 'utf8' });
  };

  it('console.log prints OidcError', () => {
    const { stdout } = run("console.log(new OidcError('invalid_options', 'Pass a clientId.')); console.log(new TokenEndpointError({ status: 400, error: 'invalid_grant' }));");
    expect(stdout).toMatch(/^OidcError: /m);
    expect(stdout).toMatch(/^TokenEndpointError: /m);
    expect(stdout).not.toMatch(/_OidcError|_TokenEndpointError/);
  });

  it('an uncaught throw prints OidcError', () => {
    const { stderr, status } = run("throw new OidcError('invalid_options', 'Pass a clientId.');");
    expect(status).not.toBe(0);
    expect(stderr).toMatch(/^OidcError: /m);
    expect(stderr).not.toContain('_OidcError');
  });
});
