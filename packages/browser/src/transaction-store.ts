/**
 * Login transactions (state, nonce, PKCE verifier) between the redirect to the provider and
 * the callback, one entry per `state`. Entries older than {@link TRANSACTION_TTL} seconds are
 * refused, and cleaned on every login (logins are what add entries). Taking a transaction leaves a tombstone in
 * its place for {@link USED_TTL} seconds (when it was handled, nothing else: no value of the
 * callback or the transaction), so that a replayed callback URL (Back button, reload) is told
 * apart from a forged one.
 */

import { DEV } from './dev';
import { OidcError, type AuthorizationTransaction } from '@oidc-rp/core';
import { readStored, type StorageAdapter } from './storage';

/** Seconds a login may take between the redirect and the callback. */
export const TRANSACTION_TTL = 600;
/** Seconds the state of a handled callback is remembered. */
export const USED_TTL = 86_400;

const PREFIX = 'oidc-rp.tx.';

/** A stored entry: a transaction waiting for its callback, or the tombstone of a handled one. */
type Entry = AuthorizationTransaction | { used: true; createdAt: number };

/** Stores, takes (read once) and cleans login transactions. */
export interface TransactionStore {
  keep_(transaction: AuthorizationTransaction): Promise<void>;
  /**
   * Takes the transaction for `state`: `'used'` when its callback was handled already (in the
   * last {@link USED_TTL} seconds), undefined when there is none. Throws when it is expired or
   * unreadable.
   */
  redeem_(state: string, now: number): Promise<AuthorizationTransaction | 'used' | undefined>;
  /** Removes every expired or unreadable entry. */
  clean_(now: number): Promise<void>;
}

/**
 * A {@link TransactionStore} over `storage` (sessionStorage by default: it survives the
 * redirect and is private to the tab).
 *
 * @example
 * ```ts
 * const transactions = createTransactionStore(browserStorage('sessionStorage'));
 * await transactions.keep_(transaction);
 * ```
 */
export function createTransactionStore(storage: StorageAdapter): TransactionStore {
  const read = (key: string) =>
    readStored<Entry>(storage, key, (value) => typeof value.createdAt === 'number' && ('used' in value || typeof value.state === 'string'));
  const expired = (entry: Entry, now: number) => now - entry.createdAt > ('used' in entry ? USED_TTL : TRANSACTION_TTL);

  return {
    keep_: (transaction) => storage.set(PREFIX + transaction.state, JSON.stringify(transaction)),

    async redeem_(state, now) {
      const key = PREFIX + state;
      if ((await storage.get(key)) === null) return undefined;
      const entry = await read(key);
      if (entry && 'used' in entry) return expired(entry, now) ? undefined : 'used';
      // Single use, whatever happens next. The key (the state) was there before; the value keeps
      // nothing of the callback or the transaction.
      await storage.set(key, JSON.stringify({ used: true, createdAt: now }));
      if (!entry || entry.state !== state) {
        throw new OidcError('transaction_invalid', DEV && 'The stored login is unreadable; start a new login.');
      }
      if (expired(entry, now)) {
        throw new OidcError('transaction_expired', DEV && 'The login took too long; start a new login.');
      }
      return entry;
    },

    async clean_(now) {
      for (const key of await storage.keys()) {
        if (!key.startsWith(PREFIX)) continue;
        const entry = await read(key);
        if (!entry || expired(entry, now)) await storage.remove(key);
      }
    },
  };
}
