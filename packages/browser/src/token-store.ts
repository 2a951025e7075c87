/** The session: tokens and validated claims, kept in the storage chosen by `tokenStorage`. */

import { createState, type IdTokenClaims, type TokenSet } from '@oidc-rp/core';
import { readStored, type StorageAdapter } from './storage';

/** What the client keeps about a logged-in user. */
export interface Session {
  /** Random id naming this session across tabs (not a token). */
  id: string;
  accessToken: string;
  /** Access token expiry, epoch seconds; undefined when the provider did not say. */
  expiresAt?: number;
  /** When the access token was received, epoch seconds (to know its lifetime). */
  receivedAt: number;
  /**
   * Seconds an access token of this provider lives, learned from the last token response that
   * stated `expires_in`; given to later tokens whose response states none.
   */
  lifetime?: number;
  refreshToken?: string;
  idToken?: string;
  /** Claims of the ID token, validated when it was received. */
  claims?: IdTokenClaims;
  scope?: string;
}

/** Reads, writes and clears the one session of a client. */
export interface TokenStore {
  read(): Promise<Session | undefined>;
  write(session: Session): Promise<void>;
  clear(): Promise<void>;
}

/**
 * A {@link TokenStore} under `key` in `storage`. Unreadable entries read as no session.
 *
 * @example
 * ```ts
 * const tokens = createTokenStore(memoryStorage(), 'oidc-rp.session:spa');
 * const session = await tokens.read();
 * ```
 */
export function createTokenStore(storage: StorageAdapter, key: string): TokenStore {
  return {
    read: () => readStored<Session>(storage, key, (value) => typeof value.id === 'string' && typeof value.accessToken === 'string'),
    write: (session) => storage.set(key, JSON.stringify(session)),
    clear: () => storage.remove(key),
  };
}

/**
 * Whether the session's access token stays valid for more than `minValidity` seconds. The
 * margin is capped at half the token's lifetime, so a short-lived token (say 5 s) is not
 * refreshed on every call. A token of unknown lifetime counts as fresh: the resource's 401
 * will tell (see `authorizedFetch`).
 *
 * @example
 * ```ts
 * if (!isFresh(session, 30, Math.floor(Date.now() / 1000))) await refresh();
 * ```
 */
export function isFresh(session: Pick<Session, 'expiresAt' | 'receivedAt'>, minValidity: number, now: number): boolean {
  const { expiresAt, receivedAt } = session;
  return expiresAt === undefined || expiresAt - now > Math.min(minValidity, Math.max(0, expiresAt - receivedAt) / 2);
}

/**
 * The session after a token response received `now`: a new one after a login (`previous`
 * undefined), else `previous` with the renewed tokens, keeping what the response left out (a
 * refresh need not return a new refresh token or ID token). Without a stated expiry the
 * access token gets `learned`, the lifetime of the last token that stated one.
 *
 * @example
 * ```ts
 * const session = sessionFrom(tokenSet, undefined, 300, Math.floor(Date.now() / 1000));
 * ```
 */
export function sessionFrom(set: TokenSet, previous: Session | undefined, learned: number | undefined, now: number): Session {
  return {
    id: previous?.id ?? createState(),
    ...lifetimeOf(set.expiresAt, learned, now),
    accessToken: set.accessToken,
    receivedAt: now,
    refreshToken: set.refreshToken ?? previous?.refreshToken,
    idToken: set.idToken ?? previous?.idToken,
    claims: set.claims ?? previous?.claims,
    scope: set.scope ?? previous?.scope,
  };
}

/**
 * The expiry of a token received `now`: the stated one, else `now` plus the learned lifetime.
 * A stated expiry teaches the lifetime (the code exchange of the service states none, its
 * refreshes do), so later tokens without one are still refreshed in time.
 *
 * @example
 * ```ts
 * lifetimeOf(undefined, 300, 1_000); // { expiresAt: 1_300, lifetime: 300 }
 * ```
 */
export function lifetimeOf(
  expiresAt: number | undefined,
  learned: number | undefined,
  now: number,
): Pick<Session, 'expiresAt' | 'lifetime'> {
  const lifetime = expiresAt !== undefined ? Math.max(0, expiresAt - now) : learned;
  return { expiresAt: expiresAt ?? (lifetime !== undefined ? now + lifetime : undefined), lifetime };
}
