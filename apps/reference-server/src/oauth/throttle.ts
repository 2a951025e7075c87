/**
 * Throttling of password guessing. Every sign-in attempt is counted *before* its password is
 * compared, in one atomic store operation over three fixed-window counters: the (username,
 * client address) pair, the username across addresses, and the address across usernames. An
 * attempt is refused unchanged when any counter has reached its limit, so however many guesses
 * arrive at once, on one instance or a fleet on Redis, no more passwords are compared than the
 * limits allow. The counter that reaches its limit starts a fresh window then, so a lockout
 * lasts a whole window. A successful sign-in clears the pair's and the user's counts and gives
 * the address its attempt back. Each failure and lockout is logged without the password.
 *
 * The pair limit is small and the per-user one larger: a stranger guessing from one address
 * locks out only that address for that user, and locking the user everywhere takes guesses
 * from many addresses. That is the price of stopping online guessing without CAPTCHAs.
 */
import { warn } from '../config/logger';
import type { RequestContext } from '../request/context';

/** Failed sign-ins of one username from one address within a window before that pair is locked. */
export const PAIR_FAILURE_LIMIT = 5;
/** Failed sign-ins of one username, from any addresses, within a window before the user is locked. */
export const USER_FAILURE_LIMIT = 20;
/** Failed sign-ins from one address (any usernames) within a window before it is locked. */
export const ADDRESS_FAILURE_LIMIT = 20;
/** The window, in seconds on the server's clock; a lockout lasts one whole window. */
export const THROTTLE_WINDOW_SECONDS = 15 * 60;

/** One counter of an attempt: what it counts, its store key, its limit and its name in log lines. */
interface Counter {
  kind: 'pair' | 'user' | 'address';
  key: string;
  limit: number;
  what: string;
}

/** A counted attempt: whether its password may be compared, and how many failures are left before a lockout. */
export interface LoginAttempt {
  /** False: a counter was at its limit; nothing was counted and the password must not be compared. */
  allowed: boolean;
  /** Failures left, after this attempt, before the first counter locks (0: this attempt's failure locks). */
  left: number;
  counters: readonly Counter[];
  counts: readonly number[];
}

function countersOf(ctx: RequestContext, username: string): Counter[] {
  const base = `login-failures:${ctx.tenant.id}`;
  const user: Counter = { kind: 'user', key: `${base}:user:${username}`, limit: USER_FAILURE_LIMIT, what: 'for the user' };
  // In-process requests have no address: the user's counter alone, at the pair's limit.
  if (ctx.clientAddress === undefined) return [{ ...user, limit: PAIR_FAILURE_LIMIT }];
  return [
    { kind: 'pair', key: `${base}:pair:${ctx.clientAddress}:${username}`, limit: PAIR_FAILURE_LIMIT, what: 'for this user from this address' },
    user,
    { kind: 'address', key: `${base}:address:${ctx.clientAddress}`, limit: ADDRESS_FAILURE_LIMIT, what: 'for the address' },
  ];
}

/** For log lines: a known user by name; anything else typed in the field is not repeated. */
function who(ctx: RequestContext, username: string): string {
  const from = ctx.clientAddress === undefined ? '' : ` from ${ctx.clientAddress}`;
  return `${ctx.tenant.users.has(username) ? `user ${username}` : 'an unknown username'}${from}`;
}

/**
 * Counts a sign-in attempt before its password is compared. When it is not `allowed`, the
 * sign-in is locked: answer the locked page without looking at the password.
 *
 * @example
 * const attempt = await countLoginAttempt(ctx, username);
 * if (!attempt.allowed) return lockedPage(ctx, id, interaction);
 */
export async function countLoginAttempt(ctx: RequestContext, username: string): Promise<LoginAttempt> {
  const counters = countersOf(ctx, username);
  const { allowed, counts } = await ctx.server.store.countAttempt(counters, THROTTLE_WINDOW_SECONDS);
  if (!allowed) warn(ctx.server.logger, `tenant ${ctx.tenant.id}: sign-in refused for ${who(ctx, username)}: locked after too many failed attempts`);
  const left = Math.max(0, Math.min(...counters.map((c, i) => c.limit - (counts[i] ?? 0))));
  return { allowed, left, counters, counts };
}

/**
 * Logs the failure of a counted attempt; true when it locked the user, the pair or the address.
 *
 * @example
 * if (failedLogin(ctx, username, attempt)) return lockedPage(ctx, id, interaction);
 */
export function failedLogin(ctx: RequestContext, username: string, attempt: LoginAttempt): boolean {
  const counts = attempt.counters.map((c, i) => `${attempt.counts[i]} of ${c.limit} ${c.what}`).join(', ');
  warn(ctx.server.logger, `tenant ${ctx.tenant.id}: failed sign-in for ${who(ctx, username)} (${counts})`);
  const locked = attempt.left === 0;
  if (locked) {
    warn(ctx.server.logger, `tenant ${ctx.tenant.id}: sign-in locked for ${who(ctx, username)} for ${THROTTLE_WINDOW_SECONDS / 60} minutes`);
  }
  return locked;
}

/**
 * After a successful password sign-in (a counted attempt): clears the pair's and the user's failure counts, and gives the
 * address back the attempt (so people signing in from one office never lock it).
 *
 * @example
 * await recordSuccessfulLogin(ctx, username);
 */
export async function recordSuccessfulLogin(ctx: RequestContext, username: string): Promise<void> {
  const { store } = ctx.server;
  await Promise.all(countersOf(ctx, username).map((c) => (c.kind === 'address' ? store.refundHit(c.key) : store.clearHits(c.key))));
}
