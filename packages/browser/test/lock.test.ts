import { afterEach, describe, expect, it, vi } from 'vitest';
import { mutexLock, webLock } from '../src/index';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('locks', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('mutexLock runs tasks with the same name one at a time, in order', async () => {
    const lock = mutexLock();
    const gate = deferred();
    const log: string[] = [];
    const first = lock.run('refresh', async () => {
      log.push('first:start');
      await gate.promise;
      log.push('first:end');
      return 1;
    });
    const second = lock.run('refresh', async () => {
      log.push('second');
      return 2;
    });
    await Promise.resolve();
    expect(log).toEqual(['first:start']);
    gate.resolve();
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(log).toEqual(['first:start', 'first:end', 'second']);
  });

  it('mutexLock releases the lock when a task fails', async () => {
    const lock = mutexLock();
    await expect(lock.run('x', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await lock.run('x', async () => 'next')).toBe('next');
  });

  it('mutexLock does not serialise different names', async () => {
    const lock = mutexLock();
    const gate = deferred();
    const held = lock.run('a', () => gate.promise);
    expect(await lock.run('b', async () => 'free')).toBe('free');
    gate.resolve();
    await held;
  });

  it('webLock uses navigator.locks when the browser has it', async () => {
    const request = vi.fn((_name: string, task: () => Promise<unknown>) => task());
    vi.stubGlobal('navigator', { locks: { request } });
    expect(await webLock().run('oidc', async () => 42)).toBe(42);
    expect(request).toHaveBeenCalledWith('oidc', expect.any(Function));
  });

  it('webLock falls back to an in-tab mutex without Web Locks', async () => {
    vi.stubGlobal('navigator', {});
    const lock = webLock();
    const gate = deferred();
    const order: number[] = [];
    const first = lock.run('n', async () => {
      await gate.promise;
      order.push(1);
    });
    const second = lock.run('n', async () => {
      order.push(2);
    });
    gate.resolve();
    await Promise.all([first, second]);
    expect(order).toEqual([1, 2]);
  });
});
