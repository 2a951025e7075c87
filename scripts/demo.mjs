// `pnpm demo`: builds the workspace, then runs the reference server (4000), the example
// SPA (5173) and the server-side example (3000) until Ctrl-C.
import { spawn, spawnSync } from 'node:child_process';

const build = spawnSync('pnpm', ['build'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const services = [
  { name: 'reference-server', args: ['--filter', '@oidc-rp/reference-server', 'start'], env: { PORT: '4000' } },
  { name: 'spa-example', args: ['--filter', '@oidc-rp/spa-example', 'preview'] },
  { name: 'node-example', args: ['--filter', '@oidc-rp/node-example', 'start'] },
];

const children = services.map(({ name, args, env }) => {
  const child = spawn('pnpm', ['--silent', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const prefix = `[${name}] `;
  const forward = (stream, out) =>
    stream.on('data', (chunk) => {
      for (const line of chunk.toString().split('\n')) if (line.trim()) out.write(`${prefix}${line}\n`);
    });
  forward(child.stdout, process.stdout);
  forward(child.stderr, process.stderr);
  child.on('exit', (code) => {
    if (!stopping) {
      console.error(`${prefix}exited with ${code}; stopping the demo`);
      stop(1);
    }
  });
  return child;
});

console.log(`
  oidc-rp demo
  ─────────────────────────────────────────────────────────────
  Example SPA (React):        http://127.0.0.1:5173
  Server-side example (Hono): http://127.0.0.1:3000
  Reference server (tenant):  http://127.0.0.1:4000/demo
  Log in as:                  alice / wonderland
  Ctrl-C stops everything.
`);

let stopping = false;
function stop(code = 0) {
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 500).unref();
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
