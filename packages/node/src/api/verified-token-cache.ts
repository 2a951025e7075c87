/**
 * The opt-in cache of verified access tokens: a hit skips the signature and claim checks, so
 * a token seen before costs a hash and a map lookup. Bounded, keyed by the SHA-256 of the
 * token (the token itself is never kept), never serving a token past its `exp` (core checks
 * that on every hit) nor an entry older than `maxAge`. A JWT cannot be revoked: whether cached
 * or not, a revoked JWT stays valid here until it expires; only introspection catches it.
 */

import { createHash } from 'node:crypto';
import type { CachedAccessToken, VerifiedTokenCache } from '@oidc-rp/core/api';
import { invalidOptions } from '@oidc-rp/core/internal';

/** Options of the verified-token cache (`cache` of `jwtAccessTokenVerifier`). */
export interface VerifiedTokenCacheOptions {
  /** Most tokens kept; past it the oldest go first. Default 10,000. */
  maxEntries?: number | undefined;
  /**
   * Seconds a verified token is served from the cache before it is verified again (so a key
   * the issuer withdrew stops being trusted within this time). Default 300.
   */
  maxAge?: number | undefined;
}

/**
 * A bounded in-memory `VerifiedTokenCache` (core) for one verifier.
 *
 * @example
 * ```ts
 * const cache = verifiedTokenCache({ maxEntries: 50_000, maxAge: 60 });
 * ```
 */
export function verifiedTokenCache(options: VerifiedTokenCacheOptions = {}): VerifiedTokenCache {
  const maxEntries = options.maxEntries ?? 10_000;
  const maxAgeMs = (options.maxAge ?? 300) * 1000;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw invalidOptions('cache.maxEntries must be a positive integer.');
  if (!Number.isFinite(maxAgeMs) || maxAgeMs < 0) throw invalidOptions('cache.maxAge must be a number of seconds >= 0.');
  const entries = new Map<string, { entry: CachedAccessToken; until: number }>();
  const keyOf = (token: string) => createHash('sha256').update(token).digest('base64url');
  return {
    get(token) {
      const found = entries.get(keyOf(token));
      return found && found.until > Date.now() ? found.entry : undefined;
    },
    set(token, entry) {
      const key = keyOf(token);
      entries.delete(key);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
      entries.set(key, { entry, until: Date.now() + maxAgeMs });
    },
  };
}
