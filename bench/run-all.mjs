/**
 * Runs every benchmark in sequence, each in its own Node process (so no JWKS cache, JIT or
 * heap state leaks from one into the next), collects their JSON results into
 * bench/.out/results/latest.json and regenerates /BENCHMARKS.md.
 *
 *   node run-all.mjs            all of them (what `pnpm bench` runs)
 *   node run-all.mjs id-token   only the named ones (BENCHMARKS.md keeps only those then)
 */

import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { renderReport } from './lib/report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = join(here, '.out', 'results');
const BENCH_TIMEOUT_MS = 150_000;

export const BENCHES = ['id-token', 'cold-jwks', 'bundle-size', 'client-credentials', 'server', 'test-server', 'dpop', 'access-token', 'api-middleware'];

function runBench(name) {
  const jsonFile = join(resultsDir, `${name}.json`);
  rmSync(jsonFile, { force: true });
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(here, `${name}.mjs`)], {
      cwd: here,
      env: { ...process.env, BENCH_JSON: jsonFile },
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      const text = String(chunk);
      // oidc-provider warns about Node 20 and its dev-only defaults; keep the noise out.
      if (!/oidc-provider WARNING|NOTICE/.test(text)) process.stderr.write(text);
      stderr = (stderr + text).slice(-4000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), BENCH_TIMEOUT_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      if (code === 0) {
        try {
          resolve({ name, ok: true, seconds, ...JSON.parse(readFileSync(jsonFile, 'utf8')) });
          return;
        } catch (error) {
          stderr += `\nno results file: ${error.message}`;
        }
      }
      const why = signal ? `killed (${signal}${signal === 'SIGKILL' ? `, over ${BENCH_TIMEOUT_MS / 1000} s` : ''})` : `exit code ${code}`;
      resolve({ name, ok: false, seconds, error: `${why}\n${stderr.trim().split('\n').slice(-12).join('\n')}` });
    });
  });
}

function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: os.totalmem() / 1024 ** 3,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverage: os.loadavg(),
    date: new Date().toISOString(),
  };
}

const selected = process.argv.slice(2);
const unknown = selected.filter((name) => !BENCHES.includes(name));
if (unknown.length) {
  process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')}; choose from ${BENCHES.join(', ')}\n`);
  process.exit(2);
}
mkdirSync(resultsDir, { recursive: true });
const info = machine();
const started = performance.now();
const results = [];
for (const name of selected.length ? selected : BENCHES) {
  process.stdout.write(`\n=== ${name} ===\n`);
  results.push(await runBench(name));
}
info.totalSeconds = (performance.now() - started) / 1000;

writeFileSync(join(resultsDir, 'latest.json'), JSON.stringify({ machine: info, results }, null, 2));
const reportPath = join(here, '..', 'BENCHMARKS.md');
writeFileSync(reportPath, renderReport(info, results));
process.stdout.write(`\nWrote ${reportPath} (all benchmarks in ${info.totalSeconds.toFixed(0)} s).\n`);
const failed = results.filter((r) => !r.ok);
if (failed.length) {
  process.stderr.write(`Failed: ${failed.map((r) => r.name).join(', ')}\n`);
  process.exitCode = 1;
}
