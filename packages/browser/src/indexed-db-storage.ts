/**
 * IndexedDB as a {@link StorageAdapter}: the store for a session that every tab of the origin
 * shares. It is chosen over `localStorage` for consistency, not capacity: Chromium caches
 * `localStorage` in each tab's process and tells other tabs of a write later, so a tab that is
 * handed the refresh lock can still read the refresh token the previous holder just used (one
 * hand-over in three, measured), and sending it makes a rotating provider revoke the whole
 * token family. IndexedDB reads go to the one database every tab writes to: a write whose
 * transaction has committed is what any later read sees, in every tab.
 */

import { memoryStorage, type StorageAdapter } from './storage';

const STORE = 'kv';

/**
 * Key-value storage in the IndexedDB database `database` (object store `kv`), shared by every
 * tab and kept after the browser closes. A write resolves once committed. Where IndexedDB is
 * missing (server rendering), it is memory.
 *
 * @example
 * ```ts
 * const storage = indexedDbStorage();
 * await storage.set('k', '"v"');
 * await storage.get('k'); // '"v"', in every tab of the origin
 * ```
 */
export function indexedDbStorage(database = 'oidc-rp'): StorageAdapter {
  return keyValueStore<string>(database);
}

/** What {@link keyValueStore} keeps: any value the structured clone algorithm copies. Internal. */
export interface KeyValueStore<T> {
  get(key: string): Promise<T | null>;
  set(key: string, value: T): Promise<void>;
  remove(key: string): Promise<void>;
  keys(): Promise<string[]>;
}

/**
 * The object store `kv` of IndexedDB database `database` for values of any structured-clonable
 * type (strings for {@link indexedDbStorage}, a `CryptoKeyPair` for the DPoP part: a
 * non-extractable key is stored and read back as the key object itself, never as bytes).
 * Memory where IndexedDB is missing. Internal.
 *
 * @example
 * ```ts
 * await keyValueStore<CryptoKeyPair>().set('oidc-rp.dpop:spa', keyPair);
 * ```
 */
export function keyValueStore<T>(database = 'oidc-rp'): KeyValueStore<T> {
  const idb = globalThis.indexedDB;
  if (!idb) return memoryStorage() as unknown as KeyValueStore<T>;

  // One connection per operation, closed as soon as its transaction is done (close() waits for
  // it): nothing stays open to block another tab's upgrade or deletion of the database.
  async function run<R>(mode: IDBTransactionMode, act: (store: IDBObjectStore) => IDBRequest<R>): Promise<R> {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = idb.open(database, 1);
      open.onupgradeneeded = () => open.result.createObjectStore(STORE);
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    return new Promise((resolve, reject) => {
      try {
        const transaction = db.transaction(STORE, mode);
        const request = act(transaction.objectStore(STORE));
        // Settled by the transaction, not the request: a write counts once it is committed.
        transaction.oncomplete = () => resolve(request.result);
        transaction.onerror = transaction.onabort = () => reject(transaction.error);
      } finally {
        db.close(); // also when the transaction could not start (a throw here rejects)
      }
    });
  }

  return {
    get: async (key) => ((await run('readonly', (store) => store.get(key))) as T | undefined) ?? null,
    set: async (key, value) => void (await run('readwrite', (store) => store.put(value, key))),
    remove: async (key) => void (await run('readwrite', (store) => store.delete(key))),
    keys: async () => (await run('readonly', (store) => store.getAllKeys())).map(String),
  };
}
