/**
 * Client-credentials tokens served from a {@link TokenCache}: a token is reused until its
 * renewal time, concurrent callers of one cache key share one request (single flight),
 * and a token that failed to renew is still served while it has not expired. With a
 * cache that has a lock, single flight extends to every instance sharing the cache.
 * Errors of the cache itself are not fatal (the token is then requested and returned
 * anyway), except OidcError `cache_unavailable`, by which a cache asks to fail the call.
 */

import { isOidcError } from '@oidc-rp/core';
import type { TokenSet } from '@oidc-rp/core';
import type { CachedToken, TokenCache, TokenCacheLock } from './token-cache';
import { sleep } from './retry';

// Polling for a token another instance is requesting: 25 ms, 50 ms, ... at most 250 ms apart.
const POLL_FIRST_MS = 25;
const POLL_MAX_MS = 250;

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
    const cached = await read(deps.cache, key);
    if (isFresh(cached)) return cached.tokens;
    const lock = deps.cache.lock;
    return lock ? loadShared(key, scope, cached, lock) : requestAndStore(key, scope, cached);
  }

  async function requestAndStore(key: string, scope: string, cached: CachedToken | undefined): Promise<TokenSet> {
    try {
      const tokens = await deps.request(scope);
      const entry = cacheEntry(tokens, nowSeconds(), deps);
      const ttl = Math.ceil(entry.expiresAt - nowSeconds());
      // The token is good whether or not it could be stored.
      if (ttl >= 1) await tolerant(() => deps.cache.set(key, entry, ttl));
      return tokens;
    } catch (error) {
      // Renewal happens early: until the old token expires it is still good to use.
      if (cached && nowSeconds() < cached.expiresAt) return cached.tokens;
      throw error;
    }
  }

  // One instance of the fleet requests the token; the others poll the cache for it, and
  // take the lock over if its holder dies (the lock expires within maxWait).
  async function loadShared(key: string, scope: string, cached: CachedToken | undefined, lock: TokenCacheLock): Promise<TokenSet> {
    const deadline = Date.now() + lock.maxWait;
    for (let attempt = 0; ; attempt++) {
      let release: (() => Promise<void>) | undefined;
      try {
        release = await lock.acquire(key);
      } catch (error) {
        if (isCacheUnavailable(error)) throw error;
        return requestAndStore(key, scope, cached);
      }
      if (release) {
        try {
          // Another instance may have stored a token between the first read and the lock.
          const latest = await read(deps.cache, key);
          if (isFresh(latest)) return latest.tokens;
          return await requestAndStore(key, scope, latest ?? cached);
        } finally {
          // Stored before released, so the next holder finds the token. A failed release expires.
          await tolerant(release);
        }
      }
      // Another instance is renewing early: the current token stays good until it expires.
      if (cached && nowSeconds() < cached.expiresAt) return cached.tokens;
      const remaining = deadline - Date.now();
      if (remaining <= 0) return requestAndStore(key, scope, cached);
      await sleep(Math.min(POLL_FIRST_MS * 2 ** attempt, POLL_MAX_MS, remaining));
      const latest = await read(deps.cache, key);
      if (isFresh(latest)) return latest.tokens;
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

function isFresh(cached: CachedToken | undefined): cached is CachedToken {
  return cached !== undefined && nowSeconds() < Math.min(cached.renewAt, cached.expiresAt);
}

/**
 * Reads the cache. A failing shared cache (e.g. Redis down) counts as empty, so the call
 * degrades to asking the provider, unless the cache asks to fail with `cache_unavailable`.
 */
async function read(cache: TokenCache, key: string): Promise<CachedToken | undefined> {
  try {
    return await cache.get(key);
  } catch (error) {
    if (isCacheUnavailable(error)) throw error;
    return undefined;
  }
}

function isCacheUnavailable(error: unknown): boolean {
  return isOidcError(error) && error.code === 'cache_unavailable';
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
