/**
 * Renewing the access token with the refresh token, one refresh at a time in the tab and,
 * through the lock of the crossTab part, across tabs. Inside the lock the shared token storage is read again: if
 * another tab rotated the refresh token meanwhile, its result is used and no request is sent,
 * so rotation never hands a used refresh token to the provider.
 */

import { DEV } from './dev';
import {
  OidcError,
  isOidcError,
  none,
  refreshTokens,
  type TokenEndpointError,
  type TokenSet,
} from '@oidc-rp/core';
import type { ResolvedOptions } from './options';
import { isFresh, sessionFrom, type Session, type TokenStore } from './token-store';

/** What the refresher needs from the client. Names ending in `_` are shortened by the build. */
export interface RefreshContext {
  options: ResolvedOptions;
  tokens: () => TokenStore;
  /** Makes `session` the current one; undefined ends it (with the reason, when there is one). */
  adopt: (session: Session | undefined, error?: OidcError) => void;
  /** Tells listeners and other tabs that `session` (or its end) was written to storage. */
  announce_: (sessionId: string, refreshed: Session | undefined) => void;
  /** Reports a failed refresh (once per run, however many callers wait for it). */
  failed_: (error: unknown) => void;
}

/**
 * Returns `refresh(rejected, minValidity)`: resolves with a session whose access token is not
 * `rejected` and stays valid for `minValidity` seconds (as far as known). Concurrent calls in
 * the tab share one run. Throws `login_required` when there is no session left to renew, and
 * the token endpoint's error (the session ended on `invalid_grant`) when the provider refuses,
 * or the `id_token_*` error (the session ended) when the refreshed ID token is refused.
 *
 * @example
 * ```ts
 * const refresh = createRefresher(context);
 * const session = await refresh(expiredAccessToken, 30);
 * ```
 */
export function createRefresher(context: RefreshContext): (rejected: string | undefined, minValidity: number) => Promise<Session> {
  const { options } = context;
  const lockName = `oidc-rp:refresh:${options.issuer}:${options.clientId}`;
  let running: Promise<Session> | undefined;

  async function underLock(rejected: string | undefined, minValidity: number): Promise<Session> {
    const tokens = context.tokens();
    const stored = await tokens.read();
    if (!stored) {
      context.adopt(undefined);
      throw new OidcError('login_required', DEV && 'The session ended; log in again.');
    }
    if (stored.accessToken !== rejected && isFresh(stored, minValidity, options.now())) {
      context.adopt(stored); // another tab refreshed while this one waited for the lock
      return stored;
    }
    if (!stored.refreshToken) {
      await tokens.clear();
      context.adopt(undefined);
      context.announce_(stored.id, undefined);
      throw new OidcError(
        'login_required',
        DEV &&
          'The access token expired and the provider issued no refresh token at login, so the session cannot be renewed: log in again. ' +
            'To renew sessions, ask for the offline_access scope (the default) and have the provider grant it to this client.',
      );
    }
    const provider = await options.provider_();
    let renewed: TokenSet;
    try {
      renewed = await refreshTokens({
        ...options.core_,
        clientAuth: none(),
        provider,
        refreshToken: stored.refreshToken,
        expectedSubject: stored.claims?.sub,
      });
    } catch (error) {
      // Expired, revoked or reused (invalid_grant), or answered with an ID token that is refused
      // (another issuer or user, OpenID Connect Core 12.2; the old refresh token may be spent
      // already): this session is over everywhere, and its tokens are never used again.
      // Only the token endpoint's errors carry an OAuth `error` here.
      if (isOidcError(error) && (error.code.startsWith('id_token_') || (error as TokenEndpointError).error === 'invalid_grant')) {
        await tokens.clear();
        context.adopt(undefined, error);
        context.announce_(stored.id, undefined);
      }
      throw error;
    }
    const next = sessionFrom(renewed, stored, stored.lifetime, options.now());
    await tokens.write(next);
    context.adopt(next);
    context.announce_(next.id, next);
    return next;
  }

  const locked = <T>(task: () => Promise<T>) => {
    const { lock_: lock } = options.runtime_();
    return lock ? lock.run(lockName, task) : task(); // without crossTab, `running` is enough
  };

  return (rejected, minValidity) =>
    (running ??= locked(() => underLock(rejected, minValidity))
      .catch((error: unknown) => {
        context.failed_(error);
        throw error;
      })
      .finally(() => {
        running = undefined;
      }));
}
