/**
 * The reference server in a child process (see provider-child.mjs), for suites that run in
 * a DOM environment: happy-dom's fetch hides Set-Cookie, so the login forms are filled there.
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import type { ServerConfig } from '@oidc-rp/reference-server';

export interface ProviderProcess {
  origin: string;
  /** Signs alice in at `authorizeUrl` on the real forms; the URL the provider redirects back to. */
  login(authorizeUrl: string): Promise<string>;
  /** How many requests like `GET /conformance/oidc/jwks` the server has answered. */
  count(request: string): Promise<number>;
  stop(): Promise<void>;
}

interface Message {
  ready?: boolean;
  id?: number;
  ok?: boolean;
  value?: unknown;
  message?: string;
}

/**
 * Starts the server with `config` on 127.0.0.1, port 0.
 *
 * @example
 * const provider = await startProviderProcess(conformanceConfig());
 */
export async function startProviderProcess(config: ServerConfig): Promise<ProviderProcess> {
  const child = fork(join(import.meta.dirname, 'provider-child.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the provider process exited with ${code}`)));
    child.on('message', (message: Message) => {
      if (message.ready) return resolve();
      const call = pending.get(message.id ?? -1);
      pending.delete(message.id ?? -1);
      if (message.ok) call?.resolve(message.value);
      else call?.reject(new Error(message.message));
    });
  });
  const call = <T>(type: string, args: object = {}) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.send({ id, type, ...args });
    });
  const origin = await call<string>('start', { config });
  return {
    origin,
    login: (authorizeUrl) => call<string>('login', { url: authorizeUrl }),
    count: (request) => call<number>('count', { request }),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}
