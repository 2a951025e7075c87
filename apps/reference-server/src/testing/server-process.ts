/**
 * The reference server in a child Node process, driven over IPC. For test suites that run in a
 * DOM environment (happy-dom, jsdom): their `fetch` hides `Set-Cookie`, so the login forms are
 * filled in the child, which also owns the server's clock and its request log.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerConfig } from '../config/schema';
import { CONTROL_METHODS, type ServerControl } from '../control/control';
import { ControlError, type ControlErrorCode } from '../control/errors';
import type { CompleteLoginResult } from './complete-login';

/** A running server process. Every method is a round trip over IPC. */
export interface ServerProcess {
  /** `http://127.0.0.1:PORT`; a tenant's issuer is `${origin}/${tenantId}`. */
  origin: string;
  /** Signs the user in at `authorizeUrl` through the real forms (see `completeLogin`). */
  login(authorizeUrl: string, options?: { username?: string; password?: string; consent?: 'allow' | 'deny' }): Promise<CompleteLoginResult>;
  /** Moves the server's clock forward (token lifetimes, code expiry). */
  advanceClock(ms: number): Promise<void>;
  /** Sets the server's clock back to real time. */
  resetClock(): Promise<void>;
  /** Every request answered so far, as `METHOD /path` (the journal, `control.requests.list(match)`, has the details). */
  requests(): Promise<string[]>;
  /**
   * Runtime control of the server in the child, the same methods as the in-process
   * `server.control`, each a round trip over IPC; bad input rejects with a `ControlError`.
   */
  control: ServerControl;
  /** Closes the server and ends the process. */
  stop(): Promise<void>;
}

interface Reply {
  ready?: boolean;
  origin?: string;
  id?: number;
  ok?: boolean;
  value?: unknown;
  message?: string;
  /** Set when the child refused a control call: rebuilt as a ControlError. */
  control?: { code: ControlErrorCode; field: string; problem: string };
}

/** The control methods as IPC calls: `{ type: 'control', method: 'users.add', args: [...] }`. */
function remoteControl(call: (type: string, args: object) => Promise<unknown>): ServerControl {
  const control: Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>> = {};
  for (const method of CONTROL_METHODS) {
    const [area, name] = method.split('.') as [string, string];
    control[area] ??= {};
    // Trailing undefined arguments dropped: the child sees the call as written.
    (control[area] as Record<string, (...args: unknown[]) => Promise<unknown>>)[name] = (...args) => call('control', { method, args });
  }
  return control as unknown as ServerControl;
}

/**
 * Starts the server with `config` (default: the demo config) on 127.0.0.1, port 0, in a child process.
 *
 * @example
 * const provider = await startServerProcess(config);
 * const result = await provider.login(authorizeUrl);
 * await provider.stop();
 */
export async function startServerProcess(config?: ServerConfig): Promise<ServerProcess> {
  // From the string, not `new URL(…)`: DOM test environments replace the global URL class.
  const script = join(dirname(fileURLToPath(import.meta.url)), 'server-process-child.mjs');
  // The config goes as an argument: a message could arrive before the child listens.
  // Advanced serialization: control calls may carry a Date or undefined.
  const child: ChildProcess = fork(script, [JSON.stringify(config ?? null)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  const origin = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the server process exited with ${code}`)));
    child.on('message', (reply: Reply) => {
      if (reply.ready) return resolve(reply.origin ?? '');
      const call = pending.get(reply.id ?? -1);
      pending.delete(reply.id ?? -1);
      if (reply.ok) call?.resolve(reply.value);
      else if (reply.control) call?.reject(new ControlError(reply.control.code, reply.control.field, reply.control.problem));
      else call?.reject(new Error(reply.message));
    });
  });
  const call = <T>(type: string, args: object = {}) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.send({ id, type, ...args });
    });
  return {
    origin,
    async login(url, options = {}) {
      const result = await call<{ type: 'redirect'; location: string } | { type: 'form_post'; action: string; body: string }>('login', { url, options });
      return result.type === 'form_post' ? { ...result, body: new URLSearchParams(result.body) } : result;
    },
    advanceClock: (ms) => call('advanceClock', { ms }),
    resetClock: () => call('resetClock'),
    requests: () => call<string[]>('requests'),
    control: remoteControl(call),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}
