// Writes the root README's "Certification readiness" table from the plan data (src/), between
// its markers; the readiness test fails while the README says anything else.
// Usage: pnpm --filter @oidc-rp/certification readiness
import { readFileSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const here = new URL('..', import.meta.url);
const bundled = await build({ entryPoints: [new URL('src/tables.ts', here).pathname], bundle: true, format: 'esm', platform: 'node', write: false, logLevel: 'silent' });
const { README_END, README_START, readmeSection } = await import(`data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString('base64')}`);

const readmePath = new URL('../../README.md', here);
const readme = readFileSync(readmePath, 'utf8');
const start = readme.indexOf(README_START);
const end = readme.indexOf(README_END);
if (start === -1 || end === -1) throw new Error(`README.md has no certification readiness markers: add\n${README_START}\n${README_END}`);
const next = readme.slice(0, start) + readmeSection() + readme.slice(end + README_END.length);
if (next === readme) console.log('README.md: the certification readiness table is up to date');
else {
  writeFileSync(readmePath, next);
  console.log('README.md: certification readiness table written');
}
