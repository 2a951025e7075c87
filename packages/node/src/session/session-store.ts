/**
 * Where sessions live when they should not travel in the cookie: large token sets, or a
 * back end that must be able to end a session (revocation). The cookie then carries only a
 * sealed session id; the store holds the session itself, sealed too, so a store dump reveals
 * no token.
 */

/**
 * A server-side session store: three async methods over opaque strings. Errors (the store is
 * down) make the session read fail with `session_store_unavailable`; the user is not signed
 * out, so the session is there again once the store is.
 *
 * @example
 * ```ts
 * // A store on any key-value database in a few lines:
 * const store: SessionStore = {
 *   get: async (id) => (await db.get(`session:${id}`)) ?? undefined,
 *   set: (id, value, ttlSeconds) => db.set(`session:${id}`, value, { ttl: ttlSeconds }),
 *   delete: (id) => db.delete(`session:${id}`),
 * };
 * ```
 */
export interface SessionStore {
  /** The value stored for `id`, or undefined when there is none (ended, expired, never existed). */
  get(id: string): Promise<string | undefined>;
  /** Stores `value` for `id`, replacing any; it may be dropped after `ttlSeconds`. */
  set(id: string, value: string, ttlSeconds: number): Promise<void>;
  /** Removes the session (logout, revocation). Deleting an unknown id is not an error. */
  delete(id: string): Promise<void>;
  /**
   * Optional, for back-channel logout: stores `value` only when `id` has none, atomically (one
   * winner across instances); true when it stored. Refuses replayed logout tokens.
   */
  setIfAbsent?(id: string, value: string, ttlSeconds: number): Promise<boolean>;
  /**
   * Optional, for back-channel logout with a session store: adds `sessionId` to the set named
   * `key` (sessions by provider `sid`, by `sub`), which lives at least `ttlSeconds` from now.
   */
  addToIndex?(key: string, sessionId: string, ttlSeconds: number): Promise<void>;
  /** Optional, with `addToIndex`: the session ids of the set `key`, removing it atomically. */
  takeIndex?(key: string): Promise<string[]>;
}

/**
 * Options of {@link MemorySessionStore}.
 *
 * @example
 * ```ts
 * const store = new MemorySessionStore({ maxEntries: 50_000 });
 * ```
 */
export interface MemorySessionStoreOptions {
  /** Sessions kept at most; past it the oldest are dropped. Default 10 000. */
  maxEntries?: number;
}

/**
 * A {@link SessionStore} in the process's memory: for one instance and for tests. A fleet, or
 * sessions that must survive a restart, use `RedisSessionStore` from `@oidc-rp/node/redis`.
 *
 * @example
 * ```ts
 * import { MemorySessionStore, createSessionAuth } from '@oidc-rp/node';
 * const auth = createSessionAuth({ client, secret: process.env.SESSION_SECRET!, store: new MemorySessionStore() });
 * ```
 */
export class MemorySessionStore implements SessionStore {
  private readonly entries = new Map<string, { value: string; expiresAt: number }>();
  private readonly maxEntries: number;

  constructor(options: MemorySessionStoreOptions = {}) {
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  async get(id: string): Promise<string | undefined> {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (Date.now() >= entry.expiresAt) {
      this.entries.delete(id);
      return undefined;
    }
    return entry.value;
  }

  async set(id: string, value: string, ttlSeconds: number): Promise<void> {
    this.entries.delete(id); // re-inserted last: the Map's order is the eviction order
    this.entries.set(id, { value, expiresAt: Date.now() + ttlSeconds * 1000 });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
    }
  }

  async delete(id: string): Promise<void> {
    this.entries.delete(id);
  }

  // Back-channel logout: set-if-absent and the sid / sub indexes (no await: atomic in this process).
  private readonly indexes = new Map<string, { ids: Set<string>; expiresAt: number }>();

  async setIfAbsent(id: string, value: string, ttlSeconds: number): Promise<boolean> {
    const entry = this.entries.get(id);
    if (entry && Date.now() < entry.expiresAt) return false;
    await this.set(id, value, ttlSeconds); // its body has no await: nothing runs between the check and the write
    return true;
  }

  async addToIndex(key: string, sessionId: string, ttlSeconds: number): Promise<void> {
    const now = Date.now();
    let index = this.indexes.get(key);
    if (!index || now >= index.expiresAt) {
      this.indexes.delete(key);
      index = { ids: new Set(), expiresAt: 0 };
    }
    this.indexes.set(key, index); // last in the Map: the oldest indexes are dropped first
    index.expiresAt = Math.max(index.expiresAt, now + ttlSeconds * 1000);
    index.ids.delete(sessionId);
    index.ids.add(sessionId);
    // Ids of sessions already gone are harmless; the sets stay within the store's size.
    for (const oldest of index.ids) {
      if (index.ids.size <= this.maxEntries) break;
      index.ids.delete(oldest);
    }
    for (const oldest of this.indexes.keys()) {
      if (this.indexes.size <= 2 * this.maxEntries) break;
      this.indexes.delete(oldest);
    }
  }

  async takeIndex(key: string): Promise<string[]> {
    const index = this.indexes.get(key);
    this.indexes.delete(key);
    return index && Date.now() < index.expiresAt ? [...index.ids] : [];
  }
}
