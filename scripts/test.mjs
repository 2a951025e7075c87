// `npm test` (or `pnpm test`): sets up what a fresh machine lacks, then runs every workspace's
// tests (unit, integration, Redis, conformance, end-to-end in Chromium), type checks and lint,
// and ends with one summary of this run: the failed tests by name and a closing
// `Tests: N passed, N failed` line, also when something failed.
import { rmSync } from 'node:fs';
import { ensureDependencies, ensurePnpm, ensureSystemPackages, root, runBin } from './lib/bootstrap.mjs';
import { clearReports, summarize } from './lib/test-report.mjs';

// Debian's packages download in the background while pnpm and the dependencies install.
const systemPackages = ensureSystemPackages();
ensurePnpm();
ensureDependencies();
await systemPackages;

// Reports of earlier runs must not count: each task writes (or turbo's cache restores) its own.
clearReports();
rmSync(`${root}/.turbo/runs`, { recursive: true, force: true });

const extra = process.argv.slice(2); // e.g. `npm test -- --force` to ignore turbo's cache
// At most four tasks at once: on two cores turbo's default of ten kept the load at 15-20 and
// stretched every task; four keeps both cores busy (each vitest run has workers of its own).
// Clean clones on the same quiet machine: 7 min 59 s with ten; 7 min 31 s and 8 min 18 s with
// four. The wall time is within noise; the point is a lower load, so timer-bound tests keep their margin.
// Every task turbo starts costs a pnpm start (about 0.8 s of CPU): the type checks run as one task
// (`typecheck:all`), and publint runs once on the packed tarballs in `tests/release`.
const turbo = runBin('turbo', ['run', 'test', 'test:e2e', 'typecheck:all', 'lint', '--continue', '--concurrency=4', '--summarize', ...extra]);
const biome = runBin('biome', ['lint', '.']);

const ok = summarize({ failedSteps: [...(turbo === 0 ? [] : ['turbo']), ...(biome === 0 ? [] : ['biome lint'])] });
process.exit(ok ? 0 : 1);
