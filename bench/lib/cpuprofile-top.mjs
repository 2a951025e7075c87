/**
 * Summarises a V8 CPU profile (from `node --cpu-prof`) by self time per function, to find
 * where a benchmark's time goes without opening DevTools.
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/id-token.mjs
 *   node bench/lib/cpuprofile-top.mjs /tmp/prof/CPU.*.cpuprofile [top=30]
 */

import { readFileSync } from 'node:fs';

const [file, top = '30'] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/lib/cpuprofile-top.mjs FILE.cpuprofile [top]\n');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  const { functionName, url, lineNumber } = nodes.get(id).callFrame;
  const where = url ? ` ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}` : '';
  const key = `${functionName || '(anonymous)'}${where}`;
  const dt = profile.timeDeltas[i] ?? 0;
  total += dt;
  self.set(key, (self.get(key) ?? 0) + dt);
});
process.stdout.write(`${(total / 1000).toFixed(0)} ms sampled\n`);
for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) {
  process.stdout.write(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${key}\n`);
}
