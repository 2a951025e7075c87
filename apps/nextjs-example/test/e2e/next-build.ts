// `next build` as a child process: bounded in time, telemetry off, its output kept for the error.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export const appRoot = fileURLToPath(new URL('../..', import.meta.url));
export const nextBin = `${appRoot}node_modules/.bin/next`;
// Two shared cores and other builds beside it: generous, but a hang still ends.
const BUILD_TIMEOUT_MS = 8 * 60_000;

/** Builds the Next.js app in `dir`; resolves with its output, rejects with it when the build fails. */
export async function nextBuild(dir: string): Promise<string> {
  const child = spawn(nextBin, ['build', dir], {
    cwd: appRoot,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), BUILD_TIMEOUT_MS);
  const [code] = await once(child, 'exit');
  clearTimeout(timer);
  if (code !== 0) throw new Error(`next build ${dir} failed (exit ${String(code)}):\n${output}`);
  return output;
}

/**
 * The warning lines of a build's output that concern the app. Next.js tells a CI run (`CI` set)
 * that it found no build cache to reuse: advice for the pipeline, not about the code built.
 */
export function warningsIn(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => /warn|⚠/i.test(line))
    .filter((line) => !/No build cache found/.test(line));
}
