/**
 * Refreshing a session once, however many requests, processes and stale cookies ask at once.
 * With rotating refresh tokens a second refresh with a spent token makes the provider revoke the
 * whole family (the user is signed out), so a refresh token must never be sent twice.
 *
 * Every session record carries a generation, raised by each refresh. The newest generation of
 * each session is published as a small sealed record (in this process, and in the shared store
 * when there is one): a request whose session is older than that record takes the record's
 * tokens instead of refreshing. Only the holder of the session's lock spends a refresh token:
 * one in-flight refresh per process, and with a store that has a lock (Redis), one per fleet.
 * A holder that dies mid-refresh leaves its lock to expire with a claim the next holder sees
 * ("abandoned"): that refresh token may have been spent, so it is never sent again and the
 * session ends (`session_refresh_interrupted`) rather than risk a reuse. Internal.
 */

import { OidcError, TokenEndpointError, isOidcError } from '@oidc-rp/core';
import type { NodeClient } from '../client-types';
import { nowSeconds, open, seal } from '../sealing';
import { type SessionRecord, isSessionRecord, refreshedRecord, withResourceToken } from './session-record';
import type { SessionLock, SessionStore } from './session-store';

/** What a refresh gives: the session's newest record (refreshed here or elsewhere), or its end. */
export type RefreshOutcome = { record: SessionRecord } | { ended: OidcError };

export interface RefresherOptions {
  client: NodeClient;
  secrets: string[];
  unknownAccessTokenLifetime: number;
  /** Where generation records are shared across instances (the session store, or `refreshStore`). */
  shared: SessionStore | undefined;
}

interface Generation {
  generation: number;
  /** Absent: the session ended at this generation (its refresh token is in doubt or was refused). */
  record?: SessionRecord;
  /** Why it ended, when it did: 'refused' by the provider, else an interrupted refresh. */
  ended?: 'refused';
  /** Epoch seconds. */
  expiresAt: number;
}

const PURPOSE = 'session refresh record';
const MAX_RECORD = 1024 * 1024;
// Generations remembered in this process: enough for every session active at once on one instance.
const LOCAL_GENERATIONS = 10_000;
const POLL_FIRST_MS = 25;
const POLL_MAX_MS = 250;

export function generationOf(record: SessionRecord): number {
  return record.generation ?? 0;
}

export function createRefresher(options: RefresherOptions) {
  const { client, secrets, shared } = options;
  const lock: SessionLock | undefined = shared?.lock;
  const flights = new Map<string, Promise<RefreshOutcome>>();
  // Insertion order is the eviction order (oldest first).
  const local = new Map<string, Generation>();

  function remember(id: string, generation: Generation): void {
    const known = local.get(id);
    if (known && known.generation >= generation.generation) return;
    local.delete(id);
    local.set(id, generation);
    for (const oldest of local.keys()) {
      if (local.size <= LOCAL_GENERATIONS) break;
      local.delete(oldest);
    }
  }

  /** The newest generation known for the session, if it is newer than `than`. */
  async function newer(id: string, than: number): Promise<Generation | undefined> {
    const known = local.get(id);
    if (known && nowSeconds() >= known.expiresAt) local.delete(id);
    else if (known && known.generation > than) return known;
    if (!shared) return undefined;
    const value = await storeCall('get', () => shared.get(keyOf(id)));
    if (value === undefined) return undefined;
    const opened = await open(value, secrets, PURPOSE, MAX_RECORD);
    // A record that cannot be opened (another secret, changed) is no evidence of anything.
    if (!opened.ok || opened.payload.i !== id || typeof opened.payload.g !== 'number') return undefined;
    const record = opened.payload.s;
    const generation: Generation = { generation: opened.payload.g, expiresAt: opened.payload.exp as number };
    if (opened.payload.e === 'refused') generation.ended = 'refused';
    if (record !== undefined) {
      if (!isSessionRecord(record) || record.id !== id) return undefined;
      generation.record = record;
    }
    remember(id, generation);
    return generation.generation > than ? generation : undefined;
  }

  async function publish(id: string, generation: Generation): Promise<void> {
    remember(id, generation);
    if (!shared) return;
    const now = nowSeconds();
    const payload = { i: id, g: generation.generation, ...(generation.record ? { s: generation.record } : {}), ...(generation.ended ? { e: generation.ended } : {}) };
    const sealed = await seal(payload, secrets, PURPOSE, generation.expiresAt, now);
    await storeCall('set', () => shared.set(keyOf(id), sealed, Math.max(1, generation.expiresAt - now)));
  }

  async function spend(record: SessionRecord, resource: string | undefined): Promise<SessionRecord> {
    let tokens: Awaited<ReturnType<NodeClient['refresh']>>;
    try {
      tokens = await client.refresh(record.refreshToken as string, { expectedSubject: record.claims.sub, ...(resource !== undefined ? { resource } : {}) });
    } catch (error) {
      // Refused: no other request (or instance) tries this refresh token again.
      if (isOidcError(error) && endsSession(error, resource)) {
        await publish(record.id, { generation: generationOf(record) + 1, ended: 'refused', expiresAt: record.absoluteExpiresAt }).catch(() => undefined);
      }
      throw error;
    }
    const now = nowSeconds();
    const next = resource === undefined
      ? refreshedRecord(record, tokens, now, options.unknownAccessTokenLifetime)
      : withResourceToken(record, resource, tokens, now, options.unknownAccessTokenLifetime);
    return { ...next, generation: generationOf(record) + 1 };
  }

  // Without a shared lock: this process's single flight is the lock.
  async function refreshHere(record: SessionRecord, resource: string | undefined): Promise<RefreshOutcome> {
    const next = await spend(record, resource);
    // Remembered in this process first; a store that fails to keep it costs other instances only.
    await publish(record.id, { generation: generationOf(next), record: next, expiresAt: next.absoluteExpiresAt }).catch(() => undefined);
    return { record: next };
  }

  async function refreshInFleet(record: SessionRecord, fleetLock: SessionLock, resource: string | undefined): Promise<RefreshOutcome> {
    const generation = generationOf(record);
    const deadline = Date.now() + fleetLock.maxWait;
    for (let attempt = 0; ; attempt++) {
      const grant = await storeCall('lock', () => fleetLock.acquire(keyOf(record.id)));
      if (grant) {
        let inDoubt = false;
        try {
          // The last holder may have finished between our read and our lock.
          const latest = await newer(record.id, generation);
          if (latest) return outcomeOf(latest);
          if (grant.abandoned) {
            // The last holder died holding the lock: it may have spent this refresh token. Never
            // send it again; end the session (for every instance and stale cookie) instead.
            await publish(record.id, { generation: generation + 1, expiresAt: record.absoluteExpiresAt });
            return { ended: interrupted() };
          }
          const next = await spend(record, resource);
          try {
            await publish(record.id, { generation: generationOf(next), record: next, expiresAt: next.absoluteExpiresAt });
          } catch {
            // Not published: the lock must expire with its claim, so no one spends the old token.
            inDoubt = true;
          }
          return { record: next };
        } finally {
          await grant.release(inDoubt).catch(() => undefined);
        }
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new OidcError(
          'session_refresh_busy',
          `Another instance has been refreshing this session for over ${fleetLock.maxWait} ms; the current access token is returned ` +
            'unrefreshed. Check the provider\'s token endpoint latency, or raise lockWait.',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_FIRST_MS * 2 ** attempt, POLL_MAX_MS, remaining)));
      const latest = await newer(record.id, generation);
      if (latest) return outcomeOf(latest);
    }
  }

  /**
   * The session's newest tokens: another request's (of this process, another instance, or an
   * older cookie's successor), or a refresh made now by the one holder of the session's lock.
   * Rejects like `client.refresh` (the provider refused, or could not be reached: the refresh
   * token was not spent), or with `session_store_unavailable` / `session_refresh_busy`.
   * With `resource` (RFC 8707 §2.2), the refresh asks a token for that API and keeps it in the
   * record beside the others. One refresh per session generation, whatever each caller asked:
   * a caller whose token the newest record lacks refreshes again from it.
   */
  return async function refresh(record: SessionRecord, resource?: string): Promise<RefreshOutcome> {
    const generation = generationOf(record);
    const latest = await newer(record.id, generation);
    if (latest) return outcomeOf(latest);
    const key = `${record.id}.${generation}`;
    let flight = flights.get(key);
    if (!flight) {
      flight = (lock ? refreshInFleet(record, lock, resource) : refreshHere(record, resource)).finally(() => flights.delete(key));
      flights.set(key, flight);
    }
    return flight;
  };
}

export type Refresher = ReturnType<typeof createRefresher>;

function outcomeOf(generation: Generation): RefreshOutcome {
  if (generation.record) return { record: generation.record };
  if (generation.ended === 'refused') {
    return { ended: new OidcError('token_endpoint_error', 'The provider refused to refresh this session (for another request of it): the user must log in again.') };
  }
  return { ended: interrupted() };
}

/**
 * Whether a failed refresh ends the session: a refusal, except the provider's `invalid_target`
 * for one API's token (RFC 8707): that API is not the client's, the refresh token is unspent and
 * the session goes on as it was.
 */
export function endsSession(error: OidcError, resource: string | undefined): boolean {
  return refusedByProvider(error) && !(resource !== undefined && (error as { error?: unknown }).error === 'invalid_target');
}

/** The provider answered the refresh with a refusal (not an outage): the session cannot go on. */
export function refusedByProvider(error: OidcError): boolean {
  if (error instanceof TokenEndpointError || (error as { status?: unknown }).status !== undefined) {
    const status = (error as { status?: number }).status ?? 0;
    // 408 and 429 say "not now", not "never": keep the session and try again later.
    return status >= 400 && status < 500 && status !== 408 && status !== 429;
  }
  return error.code.startsWith('id_token_') || error.code === 'refresh_token_missing';
}

function interrupted(): OidcError {
  return new OidcError(
    'session_refresh_interrupted',
    'The session ended: an instance died while refreshing it, so its refresh token may have been spent and is not sent again ' +
      '(a reuse would make the provider revoke it). The user must log in again.',
  );
}

// Not a session id (those are base64url): no record of this kind can collide with a session.
function keyOf(id: string): string {
  return `refresh.${id}`;
}

async function storeCall<T>(what: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (cause) {
    throw new OidcError(
      'session_store_unavailable',
      `The session store failed to ${what} a refresh record; the session was not refreshed and stays as it is. ` +
        'Check that the store is running and reachable (the cause has its error).',
      { cause },
    );
  }
}
