/**
 * Interleaved micro-benchmark rounds: every candidate runs for the same time slice in each
 * round, in a rotated order, so drift on a shared machine (frequency scaling, other jobs,
 * GC state) spreads evenly across candidates instead of favouring whoever ran first.
 * Results are per-round ops/s; the reported figure is the median round. Each slice also records
 * the process's CPU time (`process.cpuUsage()`): ops per CPU-second barely move when other jobs
 * take the cores away, so on a busy machine those ratios are the steadier ones.
 */

import { performance } from 'node:perf_hooks';

/**
 * @typedef {{ name: string, fn: () => unknown }} Candidate  fn may return a promise; it is awaited.
 * @typedef {{ name: string, opsPerSec: number, rounds: number[], cpuRounds: number[], usPerOp: number }} CandidateResult
 *   rounds: ops per wall-clock second per round; cpuRounds: ops per CPU-second of this process.
 */

/**
 * Runs `candidates` in `rounds` interleaved rounds of `sliceMs` each (after a warm-up slice
 * each) and resolves one result per candidate, in the given order.
 * @param {Candidate[]} candidates
 * @param {{ rounds?: number, sliceMs?: number, warmupMs?: number, maxOpsPerSlice?: number }} [options]
 * @returns {Promise<CandidateResult[]>}
 */
export async function interleave(candidates, { rounds = 3, sliceMs = 400, warmupMs = 150, maxOpsPerSlice = 5_000_000 } = {}) {
  for (const candidate of candidates) await slice(candidate.fn, warmupMs, maxOpsPerSlice);
  const perRound = candidates.map(() => []);
  const perRoundCpu = candidates.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < candidates.length; k++) {
      const index = (k + round) % candidates.length; // rotate who goes first
      const { wall, cpu } = await slice(candidates[index].fn, sliceMs, maxOpsPerSlice);
      perRound[index].push(wall);
      perRoundCpu[index].push(cpu);
    }
  }
  return candidates.map((candidate, i) => {
    const opsPerSec = median(perRound[i]);
    return { name: candidate.name, opsPerSec, rounds: perRound[i], cpuRounds: perRoundCpu[i], usPerOp: 1e6 / opsPerSec };
  });
}

// Sequential awaited calls for `ms`, checking the clock every few calls (bounded by maxOps):
// ops per wall-clock second and per CPU-second of this process.
async function slice(fn, ms, maxOps) {
  let ops = 0;
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  let elapsed = 0;
  while (elapsed < ms && ops < maxOps) {
    for (let i = 0; i < 16; i++) await fn();
    ops += 16;
    elapsed = performance.now() - start;
  }
  const cpu = process.cpuUsage(cpuStart);
  return { wall: (ops / elapsed) * 1000, cpu: ops / ((cpu.user + cpu.system) / 1e6 || Number.MIN_VALUE) };
}

/** Median of numbers (mean of the middle two for an even count). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Percentile (nearest rank) of numbers, p in 0..100. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/**
 * Ratio of two interleaved results, robust to machine drift: the median over rounds of
 * a's ops/s divided by b's ops/s in the same round.
 * @param {CandidateResult} a
 * @param {CandidateResult} b
 * @param {'rounds' | 'cpuRounds'} [which] wall-clock (default) or CPU-time rounds
 */
export function pairedRatio(a, b, which = 'rounds') {
  return median(a[which].map((ops, i) => ops / b[which][i]));
}
