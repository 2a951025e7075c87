// `npm run test:stress`: the whole test command several times in a row, without turbo's cache,
// while other processes keep the CPUs busy. A suite that is green only on an idle machine is
// flaky; this is how to find out before CI does.
//
//   npm run test:stress -- --runs 3 --burners 2
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { root, run } from './lib/bootstrap.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, burners: { type: 'string', default: '2' } } });
const runs = Number(values.runs);
const burnerCount = Number(values.burners);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(burnerCount) || burnerCount < 0) {
  console.error('--runs must be a whole number ≥ 1 and --burners ≥ 0');
  process.exit(2);
}

// Each burner spins one core until it is killed.
const burners = Array.from({ length: burnerCount }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const stopBurners = () => {
  for (const burner of burners) burner.kill('SIGKILL');
};
process.on('exit', stopBurners);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

const results = [];
for (let i = 1; i <= runs; i++) {
  console.log(`\n═══ stress run ${i} of ${runs} (${burnerCount} CPU burners) ═══`);
  const started = Date.now();
  const code = run(process.execPath, ['scripts/test.mjs', '--force'], { cwd: root });
  results.push({ run: i, code, seconds: Math.round((Date.now() - started) / 1000) });
}
stopBurners();

console.log('\n═══ stress summary ═══');
for (const r of results) console.log(`run ${r.run}: ${r.code === 0 ? 'green' : `FAILED (exit ${r.code})`} in ${r.seconds} s`);
const failed = results.filter((r) => r.code !== 0).length;
console.log(`${runs - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
