/**
 * OpenID Connect Back-Channel Logout 1.0 for the session layer: the route the provider POSTs
 * logout tokens to, and what ending a session means in each mode.
 *
 * - With a session `store`, sessions are found through two indexes kept beside them (by the
 *   provider's `sid`, by `sub`; written at login, expiring with the longest a session can live)
 *   and deleted: every instance on the store sees them gone at its next read.
 * - Cookie-only sessions cannot be deleted: a small revocation record (sid or sub, and the time)
 *   goes into a configured store, and each session read consults it.
 *
 * A token's `jti` is kept (set-if-absent) for as long as the token could be accepted, so a
 * replay is refused. Internal; configured through `SessionAuthOptions.backchannelLogout`.
 */

import { createHash } from 'node:crypto';
import { type LogoutTokenClaims, OidcError, isOidcError, logoutTokenReplayWindow, validateLogoutToken } from '@oidc-rp/core';
import { invalidOptions, readBoundedBody } from '@oidc-rp/core/internal';
import type { NodeClient } from '../client-types';
import { nowSeconds } from '../sealing';
import type { SessionRecord } from './session-record';
import { endStoredSession } from './session-end';
import type { SessionStore } from './session-store';

/**
 * Back-channel logout (OpenID Connect Back-Channel Logout 1.0): the provider POSTs a logout
 * token to `path` when a user's provider session ends, and the matching sessions end here.
 * Register `{baseUrl}{path}` as the client's `backchannel_logout_uri`.
 *
 * @example
 * ```ts
 * const options: BackchannelLogoutOptions = {
 *   clientId: 'web',                // the `aud` of the logout tokens: your client id
 *   path: '/auth/backchannel-logout', // the default
 *   // store: new RedisSessionStore({ redis }), // cookie-only sessions: where revocations are kept
 * };
 * ```
 */
export interface BackchannelLogoutOptions {
  /** Your client id at the provider: logout tokens must name it in `aud`. */
  clientId: string;
  /** Path of the route `handle()` answers. Default `/auth/backchannel-logout`. */
  path?: string;
  /**
   * Where seen `jti`s (and, for cookie-only sessions, revocation records) are kept. Default the
   * session `store`; required when sessions live in the cookie (no `store`). Share it between
   * instances (e.g. `RedisSessionStore`) so every instance sees a logout. Needs `setIfAbsent`.
   */
  store?: SessionStore;
  /** Seconds a logout token may be old (by `iat`). Default 120. */
  maxAge?: number;
  /** Allowed clock skew in seconds. Default 60. */
  clockTolerance?: number;
}

/** The back-channel part of a session layer. Internal. */
export interface Backchannel {
  path: string;
  /** Answers the back-channel route. */
  handle(request: Request): Promise<Response>;
  /** Indexes a new session by `sid` and `sub` (store mode); nothing in cookie mode. */
  sessionStarted(record: SessionRecord): Promise<void>;
  /** Whether a cookie-only session was ended by a logout token since it started (store mode: false, no call). */
  revoked(record: SessionRecord): Promise<boolean>;
  /** Ends every session of the provider session `sid` (front-channel logout); needs no cookie. */
  endSid(sid: string): Promise<void>;
}

// A logout token is a few hundred bytes; a form with one is refused past this before it is read.
const MAX_BODY_BYTES = 16 * 1024;

/** Checks the option against the session layer's settings; undefined when back-channel logout is off. */
export function createBackchannel(
  given: BackchannelLogoutOptions | undefined,
  settings: { client: NodeClient; store: SessionStore | undefined; absoluteDuration: number },
): Backchannel | undefined {
  if (given === undefined) return undefined;
  if (typeof given !== 'object' || given === null) throw invalidOptions('`backchannelLogout` must be an object: { clientId, path?, store? }.');
  const { clientId, path = '/auth/backchannel-logout', maxAge, clockTolerance } = given;
  if (typeof clientId !== 'string' || clientId === '') throw invalidOptions('`backchannelLogout.clientId` must be your client id (the `aud` of logout tokens).');
  if (typeof path !== 'string' || !/^\/[^?#\s]*$/.test(path)) {
    throw invalidOptions('`backchannelLogout.path` must be a path starting with "/", without query or fragment.');
  }
  const sessions = settings.store;
  const records = given.store ?? sessions;
  if (!records) {
    throw invalidOptions(
      '`backchannelLogout` needs a store: sessions sealed in their cookie cannot be ended from the back end without one. Pass `backchannelLogout.store` (e.g. a RedisSessionStore shared by every instance) for cookie-only sessions, or the session `store` option.',
    );
  }
  if (typeof records.setIfAbsent !== 'function') {
    throw invalidOptions('The back-channel logout store needs `setIfAbsent(id, value, ttlSeconds)` to refuse replayed logout tokens: use MemorySessionStore or RedisSessionStore, or add it to yours.');
  }
  if (sessions && (typeof sessions.addToIndex !== 'function' || typeof sessions.takeIndex !== 'function')) {
    throw invalidOptions('Back-channel logout with a session `store` needs its `addToIndex` and `takeIndex` (to find sessions by sid and sub): use MemorySessionStore or RedisSessionStore, or add them to yours.');
  }
  // The client's pinned algorithm (logout tokens share the ID tokens'): any other is refused.
  const signingAlgorithm = settings.client.signingAlgorithm;
  const validation = { clientId, maxAge, clockTolerance, ...(signingAlgorithm !== undefined ? { signingAlgorithm } : {}) };
  const replayWindow = logoutTokenReplayWindow(validation);
  const ttl = settings.absoluteDuration;
  const key = (kind: string, value: string) => `bcl.${kind}.${createHash('sha256').update(value).digest('base64url')}`;

  async function endSessions(claims: Pick<LogoutTokenClaims, 'sid' | 'sub'>): Promise<void> {
    // A sid names one provider session; without it, every session of the user ends.
    const [kind, value] = claims.sid !== undefined ? ['sid', claims.sid] : ['sub', claims.sub as string];
    if (sessions) {
      const ids = await call('takeIndex', () => (sessions.takeIndex as NonNullable<SessionStore['takeIndex']>)(key(kind, value)));
      await Promise.all(ids.map((id) => call('delete', () => endStoredSession(sessions, id))));
      return;
    }
    await call('set', () => (records as SessionStore).set(key(`revoked-${kind}`, value), String(nowSeconds()), ttl));
  }

  async function handle(request: Request): Promise<Response> {
    if (request.method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'POST', 'cache-control': 'no-store' } });
    const type = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') return refusal(400, 'The logout token must be posted as application/x-www-form-urlencoded.');
    const bytes = await readBoundedBody(request, MAX_BODY_BYTES);
    if (!bytes) return refusal(413, 'The request body is too large for a logout token.');
    const tokens = new URLSearchParams(new TextDecoder().decode(bytes)).getAll('logout_token');
    if (tokens.length !== 1) return refusal(400, 'The request must carry exactly one logout_token.');
    let claims: LogoutTokenClaims;
    try {
      claims = await validateLogoutToken(tokens[0] as string, { provider: await settings.client.getProvider(), ...validation });
    } catch (error) {
      if (!isOidcError(error) || !error.code.startsWith('logout_token_')) throw error;
      return refusal(400, `The logout token was refused (${error.code}).`);
    }
    const jti = key('jti', `${claims.iss}\0${claims.jti}`);
    try {
      const first = await call('set', () => (records as SessionStore & Required<Pick<SessionStore, 'setIfAbsent'>>).setIfAbsent(jti, '1', replayWindow));
      if (!first) return refusal(400, 'The logout token was refused (logout_token_replayed).');
      try {
        await endSessions(claims);
      } catch (error) {
        // Let the provider's retry through: the sessions are not ended yet.
        await records?.delete(jti).catch(() => undefined);
        throw error;
      }
    } catch (error) {
      if (isOidcError(error) && error.code === 'session_store_unavailable') {
        return Response.json({ error: 'temporarily_unavailable', error_description: 'The session store is unavailable; try again.' }, { status: 503, headers: NO_STORE });
      }
      throw error;
    }
    return new Response(null, { status: 200, headers: NO_STORE });
  }

  return {
    path,
    handle,
    endSid: (sid) => endSessions({ sid }),
    async sessionStarted(record) {
      if (!sessions) return;
      const add = sessions.addToIndex as NonNullable<SessionStore['addToIndex']>;
      const { sid, sub } = record.claims as { sid?: unknown; sub: string };
      const writes = [call('set', () => add.call(sessions, key('sub', sub), record.id, ttl))];
      if (typeof sid === 'string') writes.push(call('set', () => add.call(sessions, key('sid', sid), record.id, ttl)));
      await Promise.all(writes);
    },
    async revoked(record) {
      if (sessions) return false; // deleted from the store instead
      const { sid, sub } = record.claims as { sid?: unknown; sub: string };
      const [bySid, bySub] = await Promise.all([
        typeof sid === 'string' ? call('get', () => (records as SessionStore).get(key('revoked-sid', sid))) : undefined,
        call('get', () => (records as SessionStore).get(key('revoked-sub', sub))),
      ]);
      // A provider session id is never reused: any session of it has ended. A user's later
      // logins have not; one that started in the second of the logout counts as ended (never the reverse).
      return bySid !== undefined || (bySub !== undefined && Number(bySub) >= record.createdAt);
    },
  };
}

const NO_STORE = { 'cache-control': 'no-store' };

/** Section 2.8: a refused logout is a 400 with an OAuth-style error body; nothing was ended. */
function refusal(status: number, description: string): Response {
  return Response.json({ error: 'invalid_request', error_description: description }, { status, headers: NO_STORE });
}

async function call<T>(what: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (cause) {
    if (isOidcError(cause) && cause.code === 'session_store_unavailable') throw cause;
    throw new OidcError('session_store_unavailable', `The back-channel logout store failed to ${what}; check that it is running and reachable (the cause has its error).`, { cause });
  }
}
