/**
 * Mutual exclusion for token refreshes. With refresh-token rotation a refresh token can be
 * used once: two tabs refreshing with the same one would make the provider revoke the whole
 * token family. The lock lets exactly one refresh run at a time.
 */

/**
 * Runs `task` while holding the lock called `name`; the lock is released when the task settles.
 *
 * @example
 * ```ts
 * const lock: Lock = webLock();
 * await lock.run('refresh', async () => refreshOnce());
 * ```
 */
export interface Lock {
  run<T>(name: string, task: () => Promise<T>): Promise<T>;
}

/**
 * An in-page mutex: tasks with the same name run one after the other in this page only.
 * Guarantees nothing across tabs. Also handy in tests, where one instance shared by several
 * clients stands for the browser's origin-wide lock.
 *
 * @example
 * ```ts
 * const lock = mutexLock();
 * await Promise.all([lock.run('a', first), lock.run('a', second)]); // second starts after first settles
 * ```
 */
export function mutexLock(): Lock {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run(name, task) {
      const result = (tails.get(name) ?? Promise.resolve()).then(task);
      const tail = result.then(
        () => undefined,
        () => undefined,
      );
      tails.set(name, tail);
      void tail.then(() => {
        if (tails.get(name) === tail) tails.delete(name);
      });
      return result;
    },
  };
}

/**
 * The Web Locks API (`navigator.locks`): held across every tab and worker of the origin and
 * released by the browser if the holding tab closes. Where the API is missing (browsers
 * before 2022, some embedded webviews) it falls back to {@link mutexLock}, which serialises
 * refreshes within the tab only; tabs sharing `indexedDB` tokens can then still race, and
 * rotation may end the session of the tab that loses (it gets `login_required`).
 *
 * @example
 * ```ts
 * const client = createBrowserClient({ ...options, lock: webLock() }); // the default
 * ```
 */
export function webLock(): Lock {
  const fallback = mutexLock();
  return {
    run(name, task) {
      const locks = globalThis.navigator?.locks;
      return locks ? (locks.request(name, task) as Promise<Awaited<ReturnType<typeof task>>>) : fallback.run(name, task);
    },
  };
}
