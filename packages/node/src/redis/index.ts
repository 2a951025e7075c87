/**
 * @oidc-rp/node/redis: a Redis-backed client-credentials token cache for fleets of
 * instances, with a distributed single flight, and a Redis session store for the session layer. A separate entry point, so that users
 * without Redis install nothing more; bring your own connected client (node-redis v5/v6
 * as is, ioredis through a few lines of adapter).
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { createNodeClient } from '@oidc-rp/node';
 * import { RedisTokenCache } from '@oidc-rp/node/redis';
 *
 * const redis = await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }).connect();
 * const service = createNodeClient({
 *   issuer: 'https://id.example.com/acme',
 *   clientId: 'billing',
 *   clientSecret: process.env.CLIENT_SECRET!,
 *   grants: ['client_credentials'],
 *   tokenCache: new RedisTokenCache({ redis, encryptionKey: process.env.TOKEN_CACHE_KEY! }),
 * });
 * ```
 */

export { RedisTokenCache } from './redis-token-cache';
export type { RedisTokenCacheOptions } from './redis-token-cache';
export { RedisSessionStore } from './redis-session-store';
export type { RedisSessionStoreOptions } from './redis-session-store';
export { RedisDpopReplayCache } from './redis-dpop-replay-cache';
export type { RedisDpopReplayCacheOptions } from './redis-dpop-replay-cache';
export type { RedisClientLike, RedisScriptOptions, RedisSetOptions } from './redis-client';
export type { SessionStore } from '../session/session-store';
export type { SessionLock, SessionLockGrant } from '../session/session-store';
export type { CachedToken, TokenCache, TokenCacheLock } from '../token-cache';
