/**
 * Client-credentials tokens served from a {@link TokenCache}: a token is reused until its
 * renewal time, concurrent callers of one cache key share one request (single flight),
 * and a token that failed to renew is still served while it has not expired. With a
 * cache that has a lock, single flight extends to every instance sharing the cache.
 * Errors of the cache itself are not fatal (the token is then requested and returned
 * anyway), except OidcError `cache_unavailable`, by which a cache asks to fail the call.
 */

import { OidcError, isOidcError } from '@oidc-rp/core';
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
 * const orders = await client.getClientCredentialsToken({ scope: 'orders.read', resource: 'https://orders.example.com/' });
 * ```
 */
export interface ClientCredentialsOptions {
  /** Scopes to ask for. Each distinct set of scopes has its own cached token. Default: none (the provider's default). */
  scope?: string | string[];
  /** The API the token is for, as providers such as Auth0 name it (`audience` body parameter). */
  audience?: string;
  /**
   * RFC 8707 resource indicator(s): absolute URIs without a fragment of the resource server(s)
   * the token is for. Several are sent as several `resource` parameters.
   */
  resource?: string | string[];
  /** Other body parameters the provider needs. Protocol parameters (grant_type, client_id, scope, …) are refused. */
  extra?: Record<string, string | string[]>;
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
export interface InvalidateOptions extends Omit<ClientCredentialsOptions, 'scope'> {
  /** The scope the token was obtained with (same value, audience, resource and extra as for `getClientCredentialsToken`). */
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
  /** The type of token this client gets (`DPoP` with a DPoP key): a cached token of another type is never served. */
  tokenType: TokenSet['tokenType'];
  /** One token request (with retries), for a normalised request. */
  request(request: NormalisedRequest): Promise<TokenSet>;
}

/** Internal: the cache-backed, single-flight client-credentials token source. */
export interface ClientCredentialsSource {
  get(options?: ClientCredentialsOptions): Promise<TokenSet>;
  invalidate(options?: InvalidateOptions): Promise<void>;
}

/** A client-credentials request in canonical form: equal requests have equal keys. Internal. */
export interface NormalisedRequest {
  /** Normalised scope ('' = none). */
  scope: string;
  /** Body parameters besides scope, names sorted, values deduplicated and sorted. */
  extra: Record<string, string[]>;
  /** The cache-key suffix of this request. */
  key: string;
}

export function createClientCredentialsSource(deps: ClientCredentialsDeps): ClientCredentialsSource {
  const inFlight = new Map<string, Promise<TokenSet>>();

  // A token of another type (a shared custom cache, a key prefix reused) counts as no token.
  async function read(cache: TokenCache, key: string): Promise<CachedToken | undefined> {
    const cached = await readCache(cache, key);
    return cached?.tokens.tokenType === deps.tokenType ? cached : undefined;
  }

  async function load(key: string, request: NormalisedRequest): Promise<TokenSet> {
    const cached = await read(deps.cache, key);
    if (isFresh(cached)) return cached.tokens;
    const lock = deps.cache.lock;
    return lock ? loadShared(key, request, cached, lock) : requestAndStore(key, request, cached);
  }

  async function requestAndStore(key: string, request: NormalisedRequest, cached: CachedToken | undefined): Promise<TokenSet> {
    try {
      const tokens = await deps.request(request);
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
  async function loadShared(key: string, request: NormalisedRequest, cached: CachedToken | undefined, lock: TokenCacheLock): Promise<TokenSet> {
    const deadline = Date.now() + lock.maxWait;
    for (let attempt = 0; ; attempt++) {
      let release: (() => Promise<void>) | undefined;
      try {
        release = await lock.acquire(key);
      } catch (error) {
        if (isCacheUnavailable(error)) throw error;
        return requestAndStore(key, request, cached);
      }
      if (release) {
        try {
          // Another instance may have stored a token between the first read and the lock.
          const latest = await read(deps.cache, key);
          if (isFresh(latest)) return latest.tokens;
          return await requestAndStore(key, request, latest ?? cached);
        } finally {
          // Stored before released, so the next holder finds the token. A failed release expires.
          await tolerant(release);
        }
      }
      // Another instance is renewing early: the current token stays good until it expires.
      if (cached && nowSeconds() < cached.expiresAt) return cached.tokens;
      const remaining = deadline - Date.now();
      if (remaining <= 0) return requestAndStore(key, request, cached);
      await sleep(Math.min(POLL_FIRST_MS * 2 ** attempt, POLL_MAX_MS, remaining));
      const latest = await read(deps.cache, key);
      if (isFresh(latest)) return latest.tokens;
    }
  }

  return {
    get(options = {}) {
      const request = normaliseRequest(options);
      const key = deps.keyPrefix + request.key;
      const pending = inFlight.get(key);
      if (pending) return pending;
      // Registered synchronously, before any await, so every concurrent caller joins it.
      const flight = load(key, request).finally(() => {
        if (inFlight.get(key) === flight) inFlight.delete(key);
      });
      inFlight.set(key, flight);
      return flight;
    },

    async invalidate(options = {}) {
      const key = deps.keyPrefix + normaliseRequest(options).key;
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

// Parameters the token request sets itself; `extra` may not override them.
const PROTECTED = new Set(['grant_type', 'client_id', 'client_secret', 'client_assertion', 'client_assertion_type', 'scope']);

/**
 * The canonical form of a request. The key is the normalised scope alone when nothing else is
 * asked for (the key of earlier versions), else the scope, a `"` (never part of a scope, RFC
 * 6749 3.3) and the other parameters as JSON: two requests share a token only when they ask
 * for the same thing, whatever the order of their scopes, resources or parameters.
 */
export function normaliseRequest(options: ClientCredentialsOptions): NormalisedRequest {
  const scope = normaliseScope(options.scope);
  const extra: Record<string, string[]> = {};
  const add = (name: string, value: unknown, what: string) => {
    const values = Array.isArray(value) ? value : [value];
    if (values.length === 0 || values.some((v) => typeof v !== 'string' || v === '')) {
      throw new OidcError('invalid_options', `${what} must be a non-empty string or a non-empty array of them.`);
    }
    if (extra[name]) {
      throw new OidcError('invalid_options', `"${name}" is given twice: pass it as the ${name} option only.`);
    }
    extra[name] = [...new Set(values as string[])].sort();
  };
  if (options.audience !== undefined) add('audience', options.audience, 'The audience');
  if (options.resource !== undefined) {
    add('resource', options.resource, 'The resource');
    for (const resource of extra.resource ?? []) checkResource(resource);
  }
  for (const [name, value] of Object.entries(options.extra ?? {})) {
    if (PROTECTED.has(name)) throw new OidcError('invalid_options', `extra may not set "${name}": use the matching option.`);
    add(name, value, `extra.${name}`);
  }
  const names = Object.keys(extra).sort();
  if (names.length === 0) return { scope, extra, key: scope };
  const sorted: Record<string, string[]> = {};
  for (const name of names) sorted[name] = extra[name] as string[];
  return { scope, extra: sorted, key: `${scope}"${JSON.stringify(names.map((name) => [name, sorted[name]]))}` };
}

/** RFC 8707 2: a resource is an absolute URI without a fragment. */
function checkResource(resource: string): void {
  let url: URL | undefined;
  try {
    url = new URL(resource);
  } catch {
    // reported below
  }
  if (url?.hash !== '' || resource.includes('#')) {
    throw new OidcError(
      'invalid_options',
      'A resource indicator must be an absolute URI without a fragment (RFC 8707), e.g. https://api.example.com/.',
    );
  }
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
async function readCache(cache: TokenCache, key: string): Promise<CachedToken | undefined> {
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
