/**
 * Where the client keeps login transactions and (by explicit choice) tokens: a tiny async
 * key-value interface, so an app can plug in its own store (IndexedDB, an encrypted store...).
 */

/**
 * Async key-value storage. Values are JSON strings written by the client.
 *
 * @example
 * ```ts
 * const storage: StorageAdapter = memoryStorage();
 * await storage.set('k', '"v"');
 * await storage.get('k'); // '"v"'
 * ```
 */
export interface StorageAdapter {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
  remove(key: string): Promise<void>;
  /** Every key currently stored; used to find and clean expired login transactions. */
  keys(): Promise<string[]>;
}

/**
 * A storage that lives in this page's memory: gone on reload, invisible to other tabs and to
 * scripts that read `localStorage`. The default for tokens.
 *
 * @example
 * ```ts
 * const client = createBrowserClient({ ...options, tokenStorage: memoryStorage() });
 * ```
 */
export function memoryStorage(): StorageAdapter {
  const items = new Map<string, string>();
  return {
    get: async (key) => items.get(key) ?? null,
    set: async (key, value) => void items.set(key, value),
    remove: async (key) => void items.delete(key),
    keys: async () => [...items.keys()],
  };
}

/**
 * Adapts a Web Storage object (`sessionStorage`, `localStorage`).
 *
 * @example
 * ```ts
 * const storage = webStorage(window.sessionStorage);
 * ```
 */
export function webStorage(storage: Storage): StorageAdapter {
  return {
    get: async (key) => storage.getItem(key),
    set: async (key, value) => storage.setItem(key, value),
    remove: async (key) => storage.removeItem(key),
    // key(i) is null only past the end, which a synchronous walk never reaches.
    keys: async () => Array.from({ length: storage.length }, (_, i) => storage.key(i) as string),
  };
}

/**
 * The browser's `sessionStorage` or `localStorage` when it can be used, else memory (SSR,
 * storage disabled by the user, or a sandboxed frame where touching it throws).
 *
 * @example
 * ```ts
 * const storage = browserStorage('sessionStorage');
 * ```
 */
export function browserStorage(kind: 'sessionStorage' | 'localStorage'): StorageAdapter {
  try {
    const storage = globalThis[kind];
    if (storage) return webStorage(storage);
  } catch {
    // Access denied (e.g. cookies blocked): fall through to memory.
  }
  return memoryStorage();
}

/**
 * The JSON value stored under `key`, when `valid` accepts it; a missing, unreadable or invalid
 * entry (or a storage that fails) reads as undefined. Internal: the token and transaction stores.
 *
 * @example
 * ```ts
 * const session = await readStored<Session>(storage, key, (value) => typeof value.id === 'string');
 * ```
 */
export async function readStored<T extends object>(storage: StorageAdapter, key: string, valid: (value: T) => boolean): Promise<T | undefined> {
  try {
    const value = JSON.parse((await storage.get(key)) ?? 'null') as T | null;
    return value && valid(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
