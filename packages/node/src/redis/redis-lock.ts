/**
 * Locks on Redis kept alive by their holder: taken with `SET NX PX`, renewed every third of
 * their TTL by a compare-and-`PEXPIRE` while the holder works, released by a compare-and-delete.
 * A slow request never lets a second instance in; only a holder that died (or lost Redis) lets
 * the lock expire. The token cache's lock and the session store's refresh lock both use it.
 * Internal.
 */

import type { SessionLock, SessionLockGrant } from '../session/session-store';
import type { BoundedRedis } from './redis-client';

/**
 * Renews `lockKey` (while it still holds `owner`) every third of `ttlMs` until the returned
 * function is called. A lock found no longer held (it expired while this process stalled, or was
 * deleted) is not renewed again.
 */
export function renewWhileHeld(redis: BoundedRedis, lockKey: string, owner: string, ttlMs: number, report: (error: unknown) => void): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = () => {
    timer = setTimeout(renew, Math.max(1, Math.floor(ttlMs / 3)));
    // A lock never keeps the process alive: the holder's request does, while it runs.
    timer.unref?.();
  };
  const renew = async () => {
    let stillHeld = true;
    try {
      stillHeld = await redis.expireIfEquals(lockKey, owner, ttlMs);
    } catch (error) {
      // Tried again at the next tick; if Redis stays away the lock expires by itself.
      report(error);
    }
    if (stillHeld && !stopped) schedule();
  };
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** 128 bits from the CSPRNG: who holds a lock. */
export function randomOwner(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64url');
}

export interface SessionLockSettings {
  prefix: string;
  ttl: number;
  maxWait: number;
  /** Seconds a claim outlives a dead holder: as long as the refresh token it was spending could come back. */
  claimTtlSeconds: number;
  report: (error: unknown) => void;
}

/**
 * The session store's {@link SessionLock}: a renewed lock plus a claim key that outlives it, so
 * the next holder knows whether the previous one released or died. Both keys of one name share
 * a hash slot (`{name}`), so the script that takes them works on Redis Cluster too.
 */
export function createSessionLock(redis: BoundedRedis, settings: SessionLockSettings): SessionLock {
  return {
    ttl: settings.ttl,
    maxWait: settings.maxWait,
    async acquire(name: string): Promise<SessionLockGrant | undefined> {
      const lockKey = `${settings.prefix}{${name}}:lock`;
      const claimKey = `${settings.prefix}{${name}}:claim`;
      const owner = randomOwner();
      const outcome = await redis.claimLock(lockKey, claimKey, owner, settings.ttl, settings.claimTtlSeconds);
      if (outcome === 'busy') return undefined;
      const stopRenewing = renewWhileHeld(redis, lockKey, owner, settings.ttl, settings.report);
      return {
        abandoned: outcome === 'abandoned',
        async release(inDoubt = false) {
          stopRenewing();
          if (!inDoubt) await redis.releaseClaim(lockKey, claimKey, owner);
        },
      };
    },
  };
}
