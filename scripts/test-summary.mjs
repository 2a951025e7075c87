// Sums the vitest JSON reports that `pnpm test` leaves in each workspace and prints one
// closing line ("Tests: N passed, N failed") so CI logs show what ran at a glance.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const roots = ['packages', 'apps', 'tests'];
let passed = 0;
let failed = 0;
let skipped = 0;
const { readdirSync } = await import('node:fs');
for (const root of roots) {
  if (!existsSync(root)) continue;
  for (const dir of readdirSync(root)) {
    const report = join(root, dir, 'test-results.json');
    if (!existsSync(report)) continue;
    const json = JSON.parse(readFileSync(report, 'utf8'));
    passed += json.numPassedTests ?? 0;
    failed += json.numFailedTests ?? 0;
    skipped += (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0);
  }
}
if (passed + failed === 0) {
  console.error('No test results found: did `turbo run test` run any vitest suite?');
  process.exit(1);
}
console.log(`Tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
