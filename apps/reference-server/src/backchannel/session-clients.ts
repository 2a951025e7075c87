/**
 * Which clients each sign-in (provider session, by `sid`) has given tokens to: the clients a
 * back-channel logout must tell when that session ends. Kept in this process, bounded, and
 * expiring with the session; with several instances, each knows the sign-ins it served.
 */
import type { Authentication } from '../store/store';

/** One sign-in and the clients it authorized. */
export interface SessionClients {
  tenant: string;
  /** The issuer its ID tokens named (the logout token's `iss`). */
  issuer: string;
  username: string;
  sub: string;
  sid: string;
  clients: Set<string>;
  /** Epoch ms: the sign-in's end. */
  expiresAt: number;
}

/** Sign-ins kept at most; past it the oldest are forgotten (they get no logout token). */
const MAX_SESSIONS = 100_000;

/**
 * The sign-ins of a running server, by sid and by user.
 *
 * @example
 * const sessions = new SessionClientTable(() => Date.now());
 * sessions.record('demo', issuer, user, 'web', expiresAt);
 * sessions.take('demo', user.sid); // the sign-in, now forgotten
 */
export class SessionClientTable {
  private readonly bySid = new Map<string, SessionClients>();
  private readonly byUser = new Map<string, Set<string>>();

  constructor(private readonly now: () => number) {}

  /** Notes a sign-in, and the client it just authorized (none at sign-in itself). */
  record(tenant: string, issuer: string, user: Authentication, clientId: string | undefined, expiresAt: number): void {
    const key = `${tenant}\0${user.sid}`;
    let entry = this.bySid.get(key);
    if (!entry) {
      entry = { tenant, issuer, username: user.username, sub: user.sub, sid: user.sid, clients: new Set(), expiresAt };
      this.bySid.set(key, entry);
      const userKey = `${tenant}\0${user.username}`;
      const sids = this.byUser.get(userKey) ?? new Set<string>();
      sids.add(user.sid);
      this.byUser.set(userKey, sids);
      this.evict();
    }
    if (clientId !== undefined) entry.clients.add(clientId);
  }

  /** The sign-in `sid` of `tenant`, forgotten from now on; undefined when unknown or over. */
  take(tenant: string, sid: string): SessionClients | undefined {
    const key = `${tenant}\0${sid}`;
    const entry = this.bySid.get(key);
    if (!entry) return undefined;
    this.forget(key, entry);
    return entry.expiresAt > this.now() ? entry : undefined;
  }

  /** Every live sign-in of `username` in `tenant`, forgotten from now on. */
  takeUser(tenant: string, username: string): SessionClients[] {
    const sids = [...(this.byUser.get(`${tenant}\0${username}`) ?? [])];
    return sids.map((sid) => this.take(tenant, sid)).filter((entry): entry is SessionClients => entry !== undefined);
  }

  private forget(key: string, entry: SessionClients): void {
    this.bySid.delete(key);
    const userKey = `${entry.tenant}\0${entry.username}`;
    const sids = this.byUser.get(userKey);
    sids?.delete(entry.sid);
    if (sids?.size === 0) this.byUser.delete(userKey);
  }

  private evict(): void {
    const now = this.now();
    for (const [key, entry] of this.bySid) {
      if (this.bySid.size <= MAX_SESSIONS && entry.expiresAt > now) break;
      this.forget(key, entry);
    }
  }
}
