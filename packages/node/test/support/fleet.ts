// Instances of a service as separate Node processes (test/fixtures/fleet-instance.mjs),
// driven over IPC. They run the built package, so dist must be current.
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = join(PACKAGE_DIR, 'test/fixtures/fleet-instance.mjs');

export type InstanceMessage =
  | { type: 'ready' }
  | { type: 'lock-busy' }
  | { type: 'requesting' }
  | { type: 'token'; accessToken: string }
  | { type: 'error'; code: string };

export interface Instance<M extends { type: string } = InstanceMessage> {
  readonly messages: M[];
  /** The first message of this type, already received or still to come; rejects if the process ends first. */
  next<T extends M['type']>(type: T): Promise<Extract<M, { type: T }>>;
  send(message: { type: string; [key: string]: unknown }): void;
  /** SIGKILL, and wait for the process to be gone. */
  kill(): Promise<void>;
  readonly exited: Promise<void>;
}

export interface InstanceEnv {
  REDIS_URL: string;
  ISSUER: string;
  LOCK_TTL?: string;
  LOCK_WAIT?: string;
  ON_REQUEST?: 'send' | 'wait' | 'hang';
}

const running = new Set<ChildProcess>();

export function startInstance(env: InstanceEnv): Promise<Instance> {
  return startProcess<InstanceMessage>(FIXTURE, { ...env });
}

/** Forks `fixture` (a module of test/fixtures) with `env`, and waits for its `ready` message. */
export async function startProcess<M extends { type: string }>(fixture: string, env: Record<string, string>): Promise<Instance<M>> {
  const child = fork(join(PACKAGE_DIR, 'test/fixtures', fixture.replace(/^.*\//, '')), [], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  running.add(child);
  const stderr: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const messages: M[] = [];
  const waiters: Array<() => void> = [];
  child.on('message', (message) => {
    messages.push(message as M);
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = once(child, 'exit').then(() => {
    running.delete(child);
    for (const wake of waiters.splice(0)) wake();
  });

  const instance: Instance<M> = {
    messages,
    exited,
    async next(type) {
      for (;;) {
        const found = messages.find((m) => m.type === type);
        if (found) return found as never;
        if (child.exitCode !== null || child.signalCode !== null) {
          throw new Error(`instance ended before "${type}": ${stderr.join('').trim() || `exit ${child.exitCode}`}`);
        }
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    send(message) {
      child.send(message);
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  await instance.next('ready' as M['type']);
  return instance;
}

/** Ends every instance still running (afterEach), so no process outlives the test. */
export async function killAllInstances(): Promise<void> {
  await Promise.all(
    [...running].map(async (child) => {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }),
  );
}

/** Throws unless dist/ is at least as new as every file in src/: the processes run dist. */
export function assertDistIsCurrent(): void {
  const built = ['index.mjs', 'redis.mjs'].map((file) => {
    try {
      return statSync(join(PACKAGE_DIR, 'dist', file)).mtimeMs;
    } catch {
      return 0;
    }
  });
  const newestSource = Math.max(...sourceFiles(join(PACKAGE_DIR, 'src')).map((file) => statSync(file).mtimeMs));
  if (Math.min(...built) < newestSource) {
    throw new Error('The multi-process tests run the built package: run `pnpm --filter @oidc-rp/node build` first (dist is missing or older than src).');
  }
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}
