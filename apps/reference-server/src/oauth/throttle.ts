/**
 * Throttling of password guessing. Failed sign-ins are counted per username and per client
 * address in the store — so the count survives new interactions, and a fleet on Redis shares
 * it — in a fixed window. Once a count reaches its limit, every sign-in of that user (or from
 * that address) is refused until the window ends, even with the right password. A successful
 * sign-in clears the user's count. Each failure and lockout is logged without the password.
 *
 * The per-user limit lets anyone lock a user out for a window by guessing; that is the price
 * of stopping online guessing without CAPTCHAs, and the window is short.
 */
import { warn } from '../config/logger';
import type { RequestContext } from '../request/context';

/** Failed sign-ins of one username within a window before it is locked. */
export const USER_FAILURE_LIMIT = 5;
/** Failed sign-ins from one address (any usernames) within a window before it is locked. */
export const ADDRESS_FAILURE_LIMIT = 20;
/** The window, in seconds on the server's clock; a lockout ends with it. */
export const THROTTLE_WINDOW_SECONDS = 15 * 60;

function userKey(ctx: RequestContext, username: string): string {
  return `login-failures:${ctx.tenant.id}:user:${username}`;
}

function addressKey(ctx: RequestContext): string | undefined {
  return ctx.clientAddress === undefined ? undefined : `login-failures:${ctx.tenant.id}:address:${ctx.clientAddress}`;
}

/** For log lines: a known user by name; anything else typed in the field is not repeated. */
function who(ctx: RequestContext, username: string): string {
  const from = ctx.clientAddress === undefined ? '' : ` from ${ctx.clientAddress}`;
  return `${ctx.tenant.users.has(username) ? `user ${username}` : 'an unknown username'}${from}`;
}

/**
 * Whether sign-ins of `username`, or from this request's address, are locked right now.
 *
 * @example
 * if (await isLoginLocked(ctx, username)) return lockedPage(ctx, id, interaction);
 */
export async function isLoginLocked(ctx: RequestContext, username: string): Promise<boolean> {
  const address = addressKey(ctx);
  const [byUser, byAddress] = await Promise.all([
    ctx.server.store.hitCount(userKey(ctx, username)),
    address === undefined ? 0 : ctx.server.store.hitCount(address),
  ]);
  const locked = byUser >= USER_FAILURE_LIMIT || byAddress >= ADDRESS_FAILURE_LIMIT;
  if (locked) warn(ctx.server.logger, `tenant ${ctx.tenant.id}: sign-in refused for ${who(ctx, username)}: locked after too many failed attempts`);
  return locked;
}

/**
 * Counts a failed sign-in; true when it locked the user or the address.
 *
 * @example
 * if (await recordFailedLogin(ctx, username)) return lockedPage(ctx, id, interaction);
 */
export async function recordFailedLogin(ctx: RequestContext, username: string): Promise<boolean> {
  const address = addressKey(ctx);
  const [byUser, byAddress] = await Promise.all([
    ctx.server.store.countHit(userKey(ctx, username), THROTTLE_WINDOW_SECONDS),
    address === undefined ? 0 : ctx.server.store.countHit(address, THROTTLE_WINDOW_SECONDS),
  ]);
  const counts = `${byUser} of ${USER_FAILURE_LIMIT} for the username${address === undefined ? '' : `, ${byAddress} of ${ADDRESS_FAILURE_LIMIT} for the address`}`;
  warn(ctx.server.logger, `tenant ${ctx.tenant.id}: failed sign-in for ${who(ctx, username)} (${counts})`);
  const locked = byUser >= USER_FAILURE_LIMIT || byAddress >= ADDRESS_FAILURE_LIMIT;
  if (locked) {
    warn(ctx.server.logger, `tenant ${ctx.tenant.id}: sign-in locked for ${who(ctx, username)} for up to ${THROTTLE_WINDOW_SECONDS / 60} minutes`);
  }
  return locked;
}

/**
 * Clears the user's failure count after a successful sign-in (the address count stays).
 *
 * @example
 * await recordSuccessfulLogin(ctx, username);
 */
export async function recordSuccessfulLogin(ctx: RequestContext, username: string): Promise<void> {
  await ctx.server.store.clearHits(userKey(ctx, username));
}
