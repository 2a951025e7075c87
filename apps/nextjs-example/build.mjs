// `pnpm build`: `next build`, its output shown as it comes and kept in .next/build-output.txt,
// where the end-to-end tests check that a clean build of the example prints no warning.
// Exits with next's code; a hang ends after 8 minutes (two shared cores, other builds beside it).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const appRoot = fileURLToPath(new URL('.', import.meta.url));
const child = spawn(`${appRoot}node_modules/.bin/next`, ['build'], {
  cwd: appRoot,
  env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
for (const [stream, out] of [
  [child.stdout, process.stdout],
  [child.stderr, process.stderr],
]) {
  stream.on('data', (chunk) => {
    output += chunk.toString();
    out.write(chunk);
  });
}
const timer = setTimeout(() => child.kill('SIGKILL'), 8 * 60_000);
const [code] = await once(child, 'exit');
clearTimeout(timer);
mkdirSync(`${appRoot}.next`, { recursive: true });
writeFileSync(`${appRoot}.next/build-output.txt`, output);
process.exit(code ?? 1);
