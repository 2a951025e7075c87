// Runs `scripts/demo.mjs` as a user would (on free ports, after turbo built everything) and
// collects its output. Every wait is bounded and on a condition: a line, an exit.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

export interface Demo {
  ports: { server: number; spa: number; node: number };
  issuer: string;
  spaOrigin: string;
  nodeOrigin: string;
  output(): string;
  /** Resolves when a line matching `pattern` was printed; rejects on exit or after `ms`. */
  waitFor(pattern: RegExp, ms?: number): Promise<string>;
  /** Sends SIGINT (Ctrl-C) and waits for the exit code. */
  interrupt(): Promise<number | null>;
  exited: Promise<number | null>;
}

/** A port nobody listens on now. */
export async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  await once(probe, 'close');
  return port;
}

/** Holds a port busy, as another program would. */
export async function occupy(port: number): Promise<Server> {
  const server = createServer().listen(port, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/** The environment a person's shell would give the demo: this one minus the variables vitest sets for Vite. */
function userEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['BASE_URL', 'MODE', 'DEV', 'PROD', 'SSR']) delete env[name];
  return env;
}

export async function startDemo(ports?: Demo['ports']): Promise<Demo> {
  const chosen = ports ?? { server: await freePort(), spa: await freePort(), node: await freePort() };
  const child: ChildProcess = spawn(
    process.execPath,
    ['scripts/demo.mjs', '--no-build', '--server-port', String(chosen.server), '--spa-port', String(chosen.spa), '--node-port', String(chosen.node)],
    // Without what vitest adds to the environment: BASE_URL ("/") would be read by the node example as its own URL.
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: userEnvironment() },
  );
  let text = '';
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    text += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = once(child, 'exit').then(([code]) => code as number | null);

  return {
    ports: chosen,
    issuer: `http://127.0.0.1:${chosen.server}/demo`,
    spaOrigin: `http://127.0.0.1:${chosen.spa}`,
    nodeOrigin: `http://127.0.0.1:${chosen.node}`,
    output: () => text,
    exited,
    waitFor(pattern, ms = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(text);
          if (!match) return;
          done();
          resolve(match[0]);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`demo did not print ${pattern} within ${ms} ms; it printed:\n${text}`));
        }, ms);
        const onExit = () => {
          done();
          reject(new Error(`demo exited before printing ${pattern}; it printed:\n${text}`));
        };
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('exit', onExit);
        };
        listeners.add(check);
        child.once('exit', onExit);
        check();
      });
    },
    async interrupt() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      return exited;
    },
  };
}
