/**
 * Reading and writing a session: in the cookie (sealed whole) or, with a store, a sealed id in
 * the cookie and the sealed session in the store. Every failure to read becomes a reason for
 * being signed out, except a store that cannot answer: that is an error, so an outage does not
 * sign everyone out. Internal.
 */

import { OidcError } from '@oidc-rp/core';
import { nowSeconds, open, seal } from '../sealing';
import { type CookieShape, CHUNK_SIZE, MAX_CHUNKS, clearSessionCookie, readSessionCookie, writeSessionCookie } from './cookies';
import type { ResolvedSessionOptions } from './options';
import { type SessionRecord, fromSealed, isSessionRecord, toSealed } from './session-record';
import { endStoredSession, wasEnded } from './session-end';
import type { SessionStore } from './session-store';

/**
 * Why a request has no session:
 * - `no_session`: no session cookie (never logged in, or logged out);
 * - `expired`: the rolling or absolute lifetime is over;
 * - `invalid`: the cookie was changed, sealed with another secret, or is incomplete;
 * - `revoked`: the store no longer has the session (ended on the back end, or lost);
 * - `refresh_failed`: the provider refused to refresh the access token (e.g. the refresh token was revoked).
 *
 * @example
 * ```ts
 * const { session, reason } = await auth.getSession(request);
 * if (!session && reason === 'expired') return redirect('/?signedOut=expired');
 * ```
 */
export type SignedOutReason = 'no_session' | 'expired' | 'invalid' | 'revoked' | 'refresh_failed';

export type ReadOutcome = { record: SessionRecord; issuedAt: number; expiresAt: number } | { reason: SignedOutReason };

const COOKIE_PURPOSE = 'session cookie';
const STORE_PURPOSE = 'session store entry';
const MAX_COOKIE_VALUE = CHUNK_SIZE * MAX_CHUNKS;
const MAX_STORE_VALUE = 1024 * 1024;

export function createSessionIo(options: ResolvedSessionOptions) {
  const { secrets, store } = options;

  function expiryOf(record: SessionRecord, now: number): number {
    return options.rollingDuration === false ? record.absoluteExpiresAt : Math.min(now + options.rollingDuration, record.absoluteExpiresAt);
  }

  async function read(pairs: Array<[string, string]>, shape: CookieShape): Promise<ReadOutcome> {
    const value = readSessionCookie(pairs, shape.name);
    if (value === undefined) return { reason: 'no_session' };
    if (value === 'broken') return { reason: 'invalid' };
    const opened = await open(value, secrets, COOKIE_PURPOSE, MAX_COOKIE_VALUE);
    if (!opened.ok) return { reason: opened.reason };
    const issuedAt = opened.payload.iat as number;
    const expiresAt = opened.payload.exp as number;
    let record: unknown;
    if (store) {
      const id = opened.payload.sid;
      if (typeof id !== 'string') return { reason: 'invalid' };
      const stored = await storeCall('get', () => store.get(id));
      if (stored === undefined) return { reason: 'revoked' };
      const entry = await open(stored, secrets, STORE_PURPOSE, MAX_STORE_VALUE);
      if (!entry.ok) return { reason: entry.reason };
      record = fromSealed(entry.payload.s);
      if (isSessionRecord(record) && record.id !== id) return { reason: 'invalid' };
    } else {
      record = fromSealed(opened.payload.s);
    }
    if (!isSessionRecord(record)) return { reason: 'invalid' };
    if (nowSeconds() >= record.absoluteExpiresAt) return { reason: 'expired' };
    return { record, issuedAt, expiresAt };
  }

  /** Seals the record with a fresh expiry; returns the Set-Cookie values and that expiry. */
  async function write(record: SessionRecord, pairs: Array<[string, string]>, shape: CookieShape) {
    const now = nowSeconds();
    const expiresAt = expiryOf(record, now);
    let payload: Record<string, unknown> = { s: toSealed(record) };
    if (store) {
      const entry = await seal(payload, secrets, STORE_PURPOSE, expiresAt, now);
      await storeCall('set', () => store.set(record.id, entry, Math.max(1, expiresAt - now), { sub: record.claims.sub }));
      payload = { sid: record.id };
    }
    const sealed = await seal(payload, secrets, COOKIE_PURPOSE, expiresAt, now);
    return { cookies: writeSessionCookie(pairs, shape, sealed, expiresAt - now), expiresAt };
  }

  /**
   * Writes back a session read earlier in this request (refreshed or rolled), unless it was ended
   * meanwhile: then the entry just written is deleted again and the cookie cleared (`ended`).
   */
  async function writeBack(record: SessionRecord, pairs: Array<[string, string]>, shape: CookieShape) {
    const written = await write(record, pairs, shape);
    if (!store || !(await storeCall('get', () => wasEnded(store, record.id)))) return { ...written, ended: false };
    await storeCall('delete', () => store.delete(record.id));
    return { cookies: clearSessionCookie(pairs, shape), expiresAt: written.expiresAt, ended: true };
  }

  /** Ends a session: its store entry (when there is one) and every session cookie. */
  async function destroy(record: SessionRecord | undefined, pairs: Array<[string, string]>, shape: CookieShape): Promise<string[]> {
    if (store && record) await storeCall('delete', () => endStoredSession(store, record.id));
    return clearSessionCookie(pairs, shape);
  }

  return { read, write, writeBack, destroy, expiryOf, storeDelete: (id: string) => (store ? storeCall('delete', () => endStoredSession(store, id)) : Promise.resolve()) };
}

async function storeCall<T>(what: keyof SessionStore, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (cause) {
    throw new OidcError(
      'session_store_unavailable',
      `The session store failed to ${what} a session. The user stays signed in once it is back; check that it is running and reachable (the cause has the store's error).`,
      { cause },
    );
  }
}
