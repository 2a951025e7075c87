/**
 * Spending a single-use grant (an authorization code, a refresh token) only once every check
 * of the request has passed: a request that fails for its client, redirect URI, verifier or
 * scope leaves the grant as it was. The spend itself is the store's atomic take, so of many
 * concurrent requests exactly one wins and the others count as replays.
 */
import { storageKey } from '../crypto/secrets';
import type { RequestContext } from '../request/context';
import type { CodeRecord, RefreshTokenRecord, Taken } from '../store/store';
import { revokeGrant } from './issue';
import { invalidGrant } from './token-request';

/** What a single-use grant record has in common. */
interface GrantRecord {
  tenant: string;
  clientId: string;
  grantId: string;
}

/** How to read, spend and describe one kind of single-use grant. */
export interface SingleUse<T extends GrantRecord> {
  /** Reads without spending. */
  peek(): Promise<Taken<T> | undefined>;
  /** Atomically spends. */
  take(): Promise<Taken<T> | undefined>;
  /** `invalid_grant` description for an unknown grant, e.g. 'the authorization code is not valid'. */
  unknown: string;
  /** Log line and `invalid_grant` description for a replay. */
  replay: { log: string; description: string };
}

/**
 * The authorization code `code` as a single-use grant.
 *
 * @example
 * const record = await spendAfterChecks(ctx, codeGrant(ctx, code), checkCode);
 */
export function codeGrant(ctx: RequestContext, code: string): SingleUse<CodeRecord> {
  const key = storageKey(code);
  return {
    peek: () => ctx.server.store.peekCode(key),
    take: () => ctx.server.store.takeCode(key),
    unknown: 'the authorization code is not valid',
    replay: { log: 'authorization code replayed; grant revoked', description: 'the authorization code was already used; the tokens issued for it are revoked' },
  };
}

/**
 * The refresh token `token` as a single-use grant.
 *
 * @example
 * const record = await spendAfterChecks(ctx, refreshTokenGrant(ctx, token), checkRefresh);
 */
export function refreshTokenGrant(ctx: RequestContext, token: string): SingleUse<RefreshTokenRecord> {
  const key = storageKey(token);
  return {
    peek: () => ctx.server.store.peekRefreshToken(key),
    take: () => ctx.server.store.takeRefreshToken(key),
    unknown: 'the refresh token is not valid',
    replay: { log: 'refresh token reused; family revoked', description: 'the refresh token was already used; all tokens of its family are revoked' },
  };
}

/**
 * Runs `check` on the grant's record, then spends the grant and returns its record. A grant
 * that was already spent (before, or by a concurrent request) revokes everything issued from
 * it and throws `invalid_grant`.
 *
 * @example
 * const record = await spendAfterChecks(ctx, codeGrant(ctx, code), (r) => checkRedirect(r));
 */
export async function spendAfterChecks<T extends GrantRecord>(
  ctx: RequestContext,
  grant: SingleUse<T>,
  check: (record: T) => void | Promise<void>,
): Promise<T> {
  const found = await grant.peek();
  if (!found || found.record.tenant !== ctx.tenant.id) throw invalidGrant(grant.unknown);
  if (found.alreadyUsed) return replayed(ctx, grant, found.record);
  await check(found.record);
  const taken = await grant.take();
  if (!taken) throw invalidGrant(grant.unknown);
  if (taken.alreadyUsed) return replayed(ctx, grant, taken.record);
  return taken.record;
}

async function replayed<T extends GrantRecord>(ctx: RequestContext, grant: SingleUse<T>, record: T): Promise<never> {
  await revokeGrant(ctx, record.grantId);
  ctx.server.logger.info(`tenant ${ctx.tenant.id}: ${grant.replay.log} (client ${record.clientId})`);
  throw invalidGrant(grant.replay.description);
}
