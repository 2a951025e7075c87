/**
 * Where sessions live when they should not travel in the cookie: large token sets, or a
 * back end that must be able to end a session (revocation). The cookie then carries only a
 * sealed session id; the store holds the session itself, sealed too, so a store dump reveals
 * no token.
 */

import { invalidOptions } from '@oidc-rp/core/internal';

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
  /**
   * Stores `value` for `id`, replacing any; it may be dropped after `ttlSeconds`. `owner.sub` is
   * the user's subject, for stores that bound or index sessions per user (implementations may ignore it).
   */
  set(id: string, value: string, ttlSeconds: number, owner?: { sub: string }): Promise<void>;
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
  /**
   * Optional: a lock shared by every instance using this store, so that a session is refreshed
   * once across the fleet (`RedisSessionStore` has one). Without it, refreshes are single per
   * process only. See {@link SessionLock}.
   */
  lock?: SessionLock;
}

/**
 * A lock shared by the instances of a fleet, one per name, kept alive by its holder while it
 * works and expiring by itself when the holder is gone. The session layer takes one per session
 * while it spends the session's refresh token.
 *
 * @example
 * ```ts
 * const grant = await store.lock?.acquire('refresh.' + sessionId);
 * if (grant) {
 *   try {
 *     // grant.abandoned: the last holder died holding it, its work is in doubt
 *   } finally {
 *     await grant.release();
 *   }
 * }
 * ```
 */
export interface SessionLock {
  /**
   * Tries once, without waiting, to take the lock `name`: a grant when taken, undefined while
   * another holder has it. A live holder keeps it (renewed) until `release`; a holder that died
   * loses it after `ttl`, and the next grant then says `abandoned`.
   */
  acquire(name: string): Promise<SessionLockGrant | undefined>;
  /** Milliseconds a dead holder's lock lives on: the bound on recovering from a crash mid-refresh. */
  readonly ttl: number;
  /** Milliseconds a request waits for another holder's refresh before answering without it. */
  readonly maxWait: number;
}

/**
 * A taken {@link SessionLock}.
 *
 * @example
 * ```ts
 * if (grant.abandoned) console.warn('a refresh was interrupted by a crash');
 * ```
 */
export interface SessionLockGrant {
  /** The previous holder never released the lock (it died, or lost the store, while holding it). */
  readonly abandoned: boolean;
  /**
   * Stops renewing and releases the lock (only if it is still this holder's). `inDoubt`: stop
   * renewing but leave the lock to expire with its claim, so the next holder gets `abandoned`
   * (the work may have been done without its result being kept).
   */
  release(inDoubt?: boolean): Promise<void>;
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
  /** Sessions kept at most; past it expired ones are dropped first, then the oldest. Default 10 000. */
  maxEntries?: number;
  /**
   * Sessions kept at most per user (`sub`); past it that user's oldest is dropped, so one account
   * logging in over and over cannot push other users' sessions out. Default 50.
   */
  maxEntriesPerUser?: number;
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
  private readonly entries = new Map<string, { value: string; expiresAt: number; sub?: string }>();
  /** Each user's session ids, oldest write first. */
  private readonly bySub = new Map<string, Set<string>>();
  private readonly maxEntries: number;
  private readonly maxEntriesPerUser: number;

  constructor(options: MemorySessionStoreOptions = {}) {
    this.maxEntries = positiveInteger(options.maxEntries, 10_000, 'maxEntries');
    this.maxEntriesPerUser = positiveInteger(options.maxEntriesPerUser, 50, 'maxEntriesPerUser');
  }

  async get(id: string): Promise<string | undefined> {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (Date.now() >= entry.expiresAt) {
      this.remove(id);
      return undefined;
    }
    return entry.value;
  }

  async set(id: string, value: string, ttlSeconds: number, owner?: { sub: string }): Promise<void> {
    this.remove(id); // re-inserted last: the Map's order is the eviction order
    const sub = typeof owner?.sub === 'string' ? owner.sub : undefined;
    this.entries.set(id, { value, expiresAt: Date.now() + ttlSeconds * 1000, ...(sub !== undefined ? { sub } : {}) });
    if (sub !== undefined) {
      const own = this.bySub.get(sub) ?? new Set<string>();
      this.bySub.set(sub, own.add(id));
      // The user's own oldest goes, not another user's.
      for (const oldest of own) {
        if (own.size <= this.maxEntriesPerUser) break;
        this.remove(oldest);
      }
    }
    if (this.entries.size <= this.maxEntries) return;
    const now = Date.now();
    for (const [key, entry] of this.entries) if (now >= entry.expiresAt) this.remove(key);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.remove(oldest);
    }
  }

  async delete(id: string): Promise<void> {
    this.remove(id);
  }

  private remove(id: string): void {
    const sub = this.entries.get(id)?.sub;
    this.entries.delete(id);
    if (sub === undefined) return;
    const own = this.bySub.get(sub);
    own?.delete(id);
    if (own?.size === 0) this.bySub.delete(sub);
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

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw invalidOptions(`MemorySessionStore: \`${name}\` must be an integer >= 1.`);
  return value;
}
