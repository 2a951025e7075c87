/**
 * Login transactions (state, nonce, PKCE verifier) between the redirect to the provider and
 * the callback, one entry per `state`. Entries older than {@link TRANSACTION_TTL} seconds are
 * refused and cleaned on every login and callback. The states of handled callbacks are
 * remembered for a day, as hashes (one small entry, at most {@link USED_STATES} of them), so
 * that a replayed callback URL (Back button, reload) is told apart from a forged one.
 */

import { DEV } from './dev';
import { OidcError, type AuthorizationTransaction } from '@oidc-rp/core';
import type { StorageAdapter } from './storage';

/** Seconds a login may take between the redirect and the callback. */
export const TRANSACTION_TTL = 600;

const PREFIX = 'oidc-rp.tx.';
const USED_KEY = 'oidc-rp.used';
/** How many finished states are remembered, and for how long (seconds). */
export const USED_STATES = 20;
const USED_TTL = 86_400;

/** Stores, takes (read once) and cleans login transactions. */
export interface TransactionStore {
  save(transaction: AuthorizationTransaction): Promise<void>;
  /** Reads and removes the transaction for `state`: undefined when there is none. Throws when it is expired or unreadable. */
  take(state: string, now: number): Promise<AuthorizationTransaction | undefined>;
  /** Removes every expired or unreadable transaction. */
  clean(now: number): Promise<void>;
  /** Remembers that the callback for `state` was handled. */
  markUsed(state: string, now: number): Promise<void>;
  /** Whether the callback for `state` was handled in the last day. */
  wasUsed(state: string, now: number): Promise<boolean>;
}

/**
 * A {@link TransactionStore} over `storage` (sessionStorage by default: it survives the
 * redirect and is private to the tab).
 *
 * @example
 * ```ts
 * const transactions = createTransactionStore(browserStorage('sessionStorage'));
 * await transactions.save(transaction);
 * ```
 */
export function createTransactionStore(storage: StorageAdapter): TransactionStore {
  const read = async (key: string) => {
    try {
      const value = JSON.parse((await storage.get(key)) ?? 'null') as AuthorizationTransaction | null;
      return value && typeof value.state === 'string' && typeof value.createdAt === 'number' ? value : null;
    } catch {
      return null;
    }
  };
  const expired = (transaction: AuthorizationTransaction, now: number) => now - transaction.createdAt > TRANSACTION_TTL;
  // [hash of a state, epoch seconds] pairs, newest last; anything unreadable counts as none.
  const used = async (now: number): Promise<[string, number][]> => {
    try {
      const list = JSON.parse((await storage.get(USED_KEY)) ?? '[]') as [string, number][];
      return Array.isArray(list) ? list.filter((entry) => Array.isArray(entry) && now - entry[1] <= USED_TTL) : [];
    } catch {
      return [];
    }
  };

  return {
    save: (transaction) => storage.set(PREFIX + transaction.state, JSON.stringify(transaction)),

    async take(state, now) {
      const key = PREFIX + state;
      if ((await storage.get(key)) === null) return undefined;
      const transaction = await read(key);
      await storage.remove(key); // single use, whatever happens next
      if (!transaction || transaction.state !== state) {
        throw new OidcError('transaction_invalid', DEV && 'The stored login is unreadable; start a new login.');
      }
      if (expired(transaction, now)) {
        throw new OidcError('transaction_expired', DEV && 'The login took too long; start a new login.');
      }
      return transaction;
    },

    async clean(now) {
      for (const key of await storage.keys()) {
        if (!key.startsWith(PREFIX)) continue;
        const transaction = await read(key);
        if (!transaction || expired(transaction, now)) await storage.remove(key);
      }
    },

    async markUsed(state, now) {
      const list = [...(await used(now)), [await hash(state), now] as [string, number]].slice(-USED_STATES);
      await storage.set(USED_KEY, JSON.stringify(list));
    },

    async wasUsed(state, now) {
      const hashed = await hash(state);
      return (await used(now)).some(([entry]) => entry === hashed);
    },
  };
}

// Nothing of a callback is kept in storage: only 96 bits of the SHA-256 of its state, in hex.
async function hash(state: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(state)));
  return Array.from(digest.subarray(0, 12), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
