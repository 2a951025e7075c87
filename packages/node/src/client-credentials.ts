/**
 * Client-credentials tokens served from a {@link TokenCache}: a token is reused until its
 * renewal time, concurrent callers of one cache key share one request (single flight),
 * and a token that failed to renew is still served while it has not expired. Errors of
 * the cache itself are not fatal: the token is then requested (and returned) anyway.
 */

import type { TokenSet } from '@oidc-rp/core';
import type { CachedToken, TokenCache } from './token-cache';

/**
 * Options of `getClientCredentialsToken`.
 *
 * @example
 * ```ts
 * const { accessToken } = await client.getClientCredentialsToken({ scope: ['api.read', 'api.write'] });
 * ```
 */
export interface ClientCredentialsOptions {
  /** Scopes to ask for. Each distinct set of scopes has its own cached token. Default: none (the provider's default). */
  scope?: string | string[];
}

/**
 * Options of `invalidate`.
 *
 * @example
 * ```ts
 * const { accessToken } = await client.getClientCredentialsToken({ scope: 'api.read' });
 * const response = await fetch(apiUrl, { headers: { Authorization: `Bearer ${accessToken}` } });
 * if (response.status === 401) await client.invalidate({ scope: 'api.read', accessToken });
 * ```
 */
export interface InvalidateOptions {
  /** The scope the token was obtained with (same value as for `getClientCredentialsToken`). */
  scope?: string | string[];
  /**
   * The access token a resource server refused. When given, the cache entry is dropped only
   * if it still holds this token, so many callers reporting the same 401 cause one renewal.
   */
  accessToken?: string;
}

/** What the source needs from the client. Internal. */
export interface ClientCredentialsDeps {
  cache: TokenCache;
  /** Prefix of every cache key: identifies the provider and the client. */
  keyPrefix: string;
  renewBeforeExpiry: number;
  unknownLifetimeTtl: number;
  /** One token request (with retries), for a normalised scope ('' = none). */
  request(scope: string): Promise<TokenSet>;
}

/** Internal: the cache-backed, single-flight client-credentials token source. */
export interface ClientCredentialsSource {
  get(options?: ClientCredentialsOptions): Promise<TokenSet>;
  invalidate(options?: InvalidateOptions): Promise<void>;
}

export function createClientCredentialsSource(deps: ClientCredentialsDeps): ClientCredentialsSource {
  const inFlight = new Map<string, Promise<TokenSet>>();

  async function load(key: string, scope: string): Promise<TokenSet> {
    // A failing shared cache (e.g. Redis down) degrades to asking the provider, never to an outage.
    const cached = await tolerant(() => deps.cache.get(key));
    if (cached && nowSeconds() < Math.min(cached.renewAt, cached.expiresAt)) return cached.tokens;
    try {
      const tokens = await deps.request(scope);
      const entry = cacheEntry(tokens, nowSeconds(), deps);
      const ttl = Math.ceil(entry.expiresAt - nowSeconds());
      if (ttl >= 1) await tolerant(() => deps.cache.set(key, entry, ttl));
      return tokens;
    } catch (error) {
      // Renewal happens early: until the old token expires it is still good to use.
      if (cached && nowSeconds() < cached.expiresAt) return cached.tokens;
      throw error;
    }
  }

  return {
    get(options = {}) {
      const scope = normaliseScope(options.scope);
      const key = deps.keyPrefix + scope;
      const pending = inFlight.get(key);
      if (pending) return pending;
      // Registered synchronously, before any await, so every concurrent caller joins it.
      const flight = load(key, scope).finally(() => {
        if (inFlight.get(key) === flight) inFlight.delete(key);
      });
      inFlight.set(key, flight);
      return flight;
    },

    async invalidate(options = {}) {
      const key = deps.keyPrefix + normaliseScope(options.scope);
      if (options.accessToken !== undefined) {
        const cached = await deps.cache.get(key);
        if (cached?.tokens.accessToken !== options.accessToken) return;
      }
      inFlight.delete(key);
      await deps.cache.delete(key);
    },
  };
}

/** Scopes as one canonical string (deduplicated, sorted), so `a b` and `b a` share a token. */
export function normaliseScope(scope: string | string[] | undefined): string {
  if (scope === undefined) return '';
  const list = typeof scope === 'string' ? scope.split(' ') : scope;
  return [...new Set(list.filter(Boolean))].sort().join(' ');
}

function cacheEntry(tokens: TokenSet, now: number, deps: ClientCredentialsDeps): CachedToken {
  if (tokens.expiresAt === undefined) {
    // Unknown lifetime: assume the configured one and renew when it ends.
    const expiresAt = now + deps.unknownLifetimeTtl;
    return { tokens, renewAt: expiresAt, expiresAt };
  }
  const lifetime = Math.max(0, tokens.expiresAt - now);
  // The window never takes more than half the lifetime, so short-lived tokens are still reused.
  const renewAt = tokens.expiresAt - Math.min(deps.renewBeforeExpiry, lifetime / 2);
  return { tokens, renewAt: Math.floor(renewAt), expiresAt: tokens.expiresAt };
}

/** Runs a cache operation; a throw or rejection counts as "nothing there". */
async function tolerant<T>(operation: () => T | Promise<T>): Promise<T | undefined> {
  try {
    return await operation();
  } catch {
    return undefined;
  }
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
