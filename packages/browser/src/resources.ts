/**
 * Resource indicators (RFC 8707) as an opt-in part: the APIs a login asks tokens for, and a
 * token per API obtained with the session's refresh token (`resource`, RFC 8707 §2.2) instead of
 * a new login. Each API's token is audience-restricted to that API, so an API that receives it
 * cannot replay it at another one (the login's own token may name them all). Tokens per API are
 * kept next to the session, in the same token storage, bound to the session's DPoP key with the
 * dpop part, and removed with the session (logout, an ended refresh).
 */

import { DEV } from './dev';
import {
  OidcError,
  checkResources,
  isOidcError,
  none,
  refreshTokens,
  resourceForUrl,
  resourceNotConfigured,
  withResources,
  type TokenEndpointError,
} from '@oidc-rp/core';
import { mutexLock } from './lock';
import type { ResolvedOptions } from './options';
import type { Part } from './parts';
import { readStored, type StorageAdapter } from './storage';
import { createTokenStore, isFresh, lifetimeOf, type Session } from './token-store';
import type { GetAccessTokenOptions } from './types';

/**
 * Resource indicators, as the client's `resources` option takes it (made by {@link resourceIndicators}). Opaque.
 *
 * @example
 * ```ts
 * const part: ResourcesPart = resourceIndicators({ resources: ['https://api.example.com/'] });
 * ```
 */
export type ResourcesPart = Part<'resources'>;

/**
 * Options of {@link resourceIndicators}.
 *
 * @example
 * ```ts
 * const options: ResourceIndicatorsOptions = { resources: ['https://api.example.com/', 'https://files.example.com/'] };
 * ```
 */
export interface ResourceIndicatorsOptions {
  /**
   * The APIs, as the resource URIs registered for the client at the provider (absolute, no
   * fragment), e.g. `https://api.example.com/`. Every login asks for all of them; a request URL
   * belongs to the resource with its origin whose path is the URL's path or a parent of it at a
   * `/` boundary (the longest such path when several match).
   */
  resources: readonly string[];
  /**
   * What `authorizedFetch(client)` does with a URL that belongs to none of `resources`:
   * `'refuse'` (default) rejects with `resource_not_configured` and sends nothing;
   * `'defaultToken'` sends the login's own access token (whose audience may be every listed API),
   * for an app whose other API accepts it.
   */
  otherUrls?: 'refuse' | 'defaultToken';
}

/**
 * What the part offers as `client.resources`: tokens per API. Never holds a refresh token.
 *
 * @example
 * ```ts
 * const token = await client.resources!.getAccessToken('https://api.example.com/');
 * ```
 */
export interface BrowserResources {
  /** The resources the client logs in for, as given. */
  readonly resources: readonly string[];
  /** What `authorizedFetch` does with URLs of no listed resource (see {@link ResourceIndicatorsOptions.otherUrls}). */
  readonly otherUrls: 'refuse' | 'defaultToken';
  /**
   * The listed resource `url` belongs to (see {@link ResourceIndicatorsOptions.resources}). For a
   * URL of none: undefined with `otherUrls: 'defaultToken'` (send the login's own token), else
   * it throws `resource_not_configured` (send nothing).
   */
  forUrl(url: string | URL): string | undefined;
  /**
   * An access token for `resource` alone: the cached one while it stays valid for `minValidity`
   * seconds, else one obtained with the session's refresh token and `resource` (one request
   * per resource at a time, across tabs with the crossTab part), DPoP-bound with the dpop part.
   * A resource not listed is `resource_not_configured` (nothing sent); a provider that refuses
   * it answers `token_endpoint_error` with `error: 'invalid_target'`: the session stays as it
   * was. `login_required` without a session or a refresh token; an expired or revoked refresh
   * token (`invalid_grant`) ends the session, as the client's own refresh does.
   */
  getAccessToken(resource: string, options?: GetAccessTokenOptions): Promise<string>;
}

/** What the client uses of the part. Internal: names ending in `_` are shortened by the build. */
export interface Resources {
  /**
   * Binds the part to one client (before the par part, so pushed requests carry the resources):
   * every login asks for the resources, the token storage drops the tokens per API with the
   * session, and refreshes run one at a time in the tab (the client's own refresh too).
   */
  bind_(options: ResolvedOptions, adopt: (session: undefined, error?: OidcError) => void): BrowserResources;
}

/** A token for one API, as cached. */
type ApiToken = Pick<Session, 'accessToken' | 'expiresAt' | 'receivedAt' | 'lifetime'>;

/** The cache: the session it belongs to (a new login starts empty) and a token per resource. */
interface ApiTokens {
  id: string;
  tokens: Record<string, ApiToken>;
}

/**
 * Logins ask for tokens for these APIs (RFC 8707), and `client.resources.getAccessToken(resource)`
 * gets one for a single API without a new login. `authorizedFetch(client)` then sends each
 * request with the token of the API its URL belongs to, and nothing to other URLs unless
 * `otherUrls: 'defaultToken'`. Throws `invalid_options` for a resource that is not an absolute
 * URI without a fragment, or listed twice.
 *
 * @example
 * ```ts
 * import { authorizedFetch, createBrowserClient, dpop, resourceIndicators } from '@oidc-rp/browser';
 *
 * const client = createBrowserClient({ ...options, dpop: dpop(), resources: resourceIndicators({ resources: ['https://api.example.com/'] }) });
 * const api = authorizedFetch(client);
 * await api('https://api.example.com/orders'); // with the token for https://api.example.com/
 * ```
 */
export function resourceIndicators(options: ResourceIndicatorsOptions): ResourcesPart {
  const resources = checkResources(options?.resources);
  const otherUrls = options.otherUrls ?? 'refuse';
  if (otherUrls !== 'refuse' && otherUrls !== 'defaultToken') throw new OidcError('invalid_options', DEV && "otherUrls must be 'refuse' or 'defaultToken'.");
  const part: Resources = { bind_: (client, adopt) => bind(client, adopt, resources, otherUrls) };
  return part as unknown as ResourcesPart;
}

function bind(options: ResolvedOptions, adopt: Parameters<Resources['bind_']>[1], resources: readonly string[], otherUrls: BrowserResources['otherUrls']): BrowserResources {
  const { issuer, clientId, request_: request, runtime_: runtime } = options;
  // The client's session entry (see client.ts), and this part's entry beside it.
  const sessionKey = `oidc-rp.session:${clientId}:${issuer}`;
  const cacheKey = `oidc-rp.resources:${clientId}:${issuer}`;
  const lockName = `oidc-rp:refresh:${issuer}:${clientId}`; // the client's refresh lock: one refresh token spender at a time
  const running = new Map<string, Promise<string>>();

  options.request_ = async (params) => withResources(await request(params), resources);

  // Bound before the dpop part, whose storage guard then wraps this one.
  let wrapped = false;
  options.runtime_ = () => {
    const platform = runtime();
    if (!wrapped) {
      wrapped = true;
      const inner = platform.tokens_;
      platform.tokens_ = {
        get: (key) => inner.get(key),
        // A new session (another login) starts with no API token of the one it replaces.
        async set(key, value) {
          await inner.set(key, value);
          if (key !== sessionKey) return;
          const kept = await readStored<ApiTokens>(inner, cacheKey, () => true);
          if (kept && kept.id !== (JSON.parse(value) as Session).id) await inner.remove(cacheKey);
        },
        keys: () => inner.keys(),
        // The tokens per API go with the session: a logout or an ended session leaves none behind.
        async remove(key) {
          await inner.remove(key);
          if (key === sessionKey) await inner.remove(cacheKey);
        },
      };
      // The client's refresh and this part's spend the same refresh token: never at once.
      platform.lock_ ??= mutexLock();
    }
    return platform;
  };

  const storage = (): StorageAdapter => options.runtime_().tokens_;
  const session = () => createTokenStore(storage(), sessionKey);
  const cached = async (id: string): Promise<ApiTokens> => {
    const found = await readStored<ApiTokens>(storage(), cacheKey, (value) => typeof value.tokens === 'object' && value.tokens !== null);
    return found?.id === id ? found : { id, tokens: {} };
  };
  const usable = (token: ApiToken | undefined, rejected: string | undefined, minValidity: number) =>
    token && token.accessToken !== rejected && isFresh(token, minValidity, options.now());

  async function current(): Promise<Session> {
    const stored = await session().read();
    if (!stored) throw new OidcError('login_required', DEV && 'Nobody is logged in; call login().');
    return stored;
  }

  // Under the refresh lock: the cache and the session read again (another tab may have renewed either).
  async function renew(resource: string, rejected: string | undefined, minValidity: number): Promise<string> {
    const stored = await current();
    const cache = await cached(stored.id);
    const known = cache.tokens[resource];
    if (usable(known, rejected, minValidity)) return (known as ApiToken).accessToken;
    if (!stored.refreshToken) {
      throw new OidcError('login_required', DEV && `No refresh token to get a token for ${resource}: log in again, with the offline_access scope.`);
    }
    let renewed: Awaited<ReturnType<typeof refreshTokens>>;
    try {
      renewed = await refreshTokens({
        ...options.core_,
        clientAuth: none(),
        provider: await options.provider_(),
        refreshToken: stored.refreshToken,
        resource,
        expectedSubject: stored.claims?.sub,
      });
    } catch (error) {
      // The refresh token is spent or refused (as in the client's refresh): the session is over.
      // Anything else (invalid_target: this API is not the client's) leaves it as it was.
      if (isOidcError(error) && (error.code.startsWith('id_token_') || (error as TokenEndpointError).error === 'invalid_grant')) {
        await session().clear();
        adopt(undefined, error);
      }
      throw error;
    }
    const now = options.now();
    // A rotated refresh token replaces the spent one in the session (its access token stays).
    if (renewed.refreshToken && renewed.refreshToken !== stored.refreshToken) await session().write({ ...stored, refreshToken: renewed.refreshToken });
    cache.tokens[resource] = { accessToken: renewed.accessToken, receivedAt: now, ...lifetimeOf(renewed.expiresAt, stored.lifetime, now) };
    await storage().set(cacheKey, JSON.stringify(cache));
    return renewed.accessToken;
  }

  return {
    resources,
    otherUrls,
    forUrl(url) {
      const resource = resourceForUrl(url, resources);
      if (!resource && otherUrls === 'refuse') throw resourceNotConfigured(new URL(url).origin, resources);
      return resource;
    },
    async getAccessToken(resource, { minValidity = options.refreshLeeway, forceRefresh, rejected } = {}) {
      if (!resources.includes(resource)) throw resourceNotConfigured(resource, resources);
      const stored = await current();
      const known = (await cached(stored.id)).tokens[resource];
      if (!forceRefresh && usable(known, rejected, minValidity)) return (known as ApiToken).accessToken;
      const refused = rejected ?? known?.accessToken;
      let flight = running.get(resource);
      if (!flight) {
        const { lock_: lock } = options.runtime_();
        flight = (lock as NonNullable<typeof lock>).run(lockName, () => renew(resource, refused, minValidity)).finally(() => running.delete(resource));
        running.set(resource, flight);
      }
      return flight;
    },
  };
}
