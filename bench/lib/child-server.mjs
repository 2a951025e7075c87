/**
 * Servers under test run in child processes (one per target), so the load generator in the
 * bench process and the server each get a core, and no target's heap or GC affects another.
 * Each child prints `listening on http://127.0.0.1:PORT` once it accepts connections.
 */

import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

const START_TIMEOUT_MS = 15_000;

/**
 * Spawns `node script ...args` and resolves once it printed its origin.
 * @returns {Promise<{ origin: string, pid: number, spawnedAt: number, listeningAt: number, stop: () => Promise<void> }>}
 */
export function startServer(script, args = [], env = {}) {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-2000);
  });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${script} did not start within ${START_TIMEOUT_MS} ms: ${stderr}`));
    }, START_TIMEOUT_MS);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        resolve({ origin: match[1], pid: child.pid, spawnedAt, listeningAt: performance.now(), stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before listening: ${stderr}`));
    });
  });
}
