// A real redis-server (Debian's /usr/bin/redis-server) on a free loopback port, without
// persistence, for the Redis tests of the node package and the reference server. Every wait
// is bounded. Shared by path, not as a package: it is test code only.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';

export interface RunningRedis {
  port: number;
  url: string;
  /** Stops the server (SIGTERM, then SIGKILL if it lingers) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty (nothing is saved), and waits until it answers PING. */
  start(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open, nothing is answered. */
  pause(): void;
  /** Lets a paused process run again (SIGCONT). */
  resume(): void;
  /** Whether the server was started and not stopped since. */
  readonly running: boolean;
}

const READY_TIMEOUT_MS = 10_000;
const EXIT_TIMEOUT_MS = 5_000;

export async function startRedisServer(): Promise<RunningRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    if (child) throw new Error('redis-server is already running');
    const stderr: string[] = [];
    const proc = spawn(
      process.env.REDIS_SERVER ?? 'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    proc.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
    child = proc;
    const exited = once(proc, 'exit').then(([code]) => {
      throw new Error(`redis-server exited (code ${String(code)}) before answering PING: ${stderr.join('').trim()}`);
    });
    exited.catch(() => undefined);
    const spawnFailed = once(proc, 'error').then(([error]) => {
      throw new Error(`redis-server could not start (is it installed? .ci/run installs it): ${String(error)}`);
    });
    spawnFailed.catch(() => undefined);
    await Promise.race([untilPing(port), exited, spawnFailed]);
  }

  async function stop(): Promise<void> {
    const proc = child;
    if (!proc) return;
    child = undefined;
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = once(proc, 'exit');
    proc.kill('SIGCONT'); // a paused server would not act on SIGTERM
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), EXIT_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  function signal(name: 'SIGSTOP' | 'SIGCONT'): void {
    if (!child) throw new Error('redis-server is not running');
    child.kill(name);
  }

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    pause: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
    get running() {
      return child !== undefined;
    },
  };
}

/** A port nobody listens on right now: listen on 0, read the port, close. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

/** Resolves once the server answers PING; retries a refused connection until READY_TIMEOUT_MS. */
async function untilPing(port: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let delay = 10;
  for (;;) {
    if (await ping(port)) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within ${READY_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 200);
  }
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
  });
}
