/**
 * A DPoP proof `jti` replay cache on Redis, for a fleet of API instances: a proof replayed to
 * another instance than the one that saw it first is still refused. One `SET NX PX` per proof.
 */

import { createHash } from 'node:crypto';
import type { DpopReplayCache } from '@oidc-rp/core/api';
import { type BoundedRedis, type RedisClientLike, boundedRedis } from './redis-client';

/**
 * Options of {@link RedisDpopReplayCache}.
 *
 * @example
 * ```ts
 * const options: RedisDpopReplayCacheOptions = { redis, keyPrefix: 'orders-api:dpop-jti:', commandTimeout: 200 };
 * ```
 */
export interface RedisDpopReplayCacheOptions {
  /** A connected client: node-redis v5/v6 as is, another one through a small adapter (see {@link RedisClientLike}). */
  redis: RedisClientLike;
  /** Prefix of every key. Default `oidc-rp:dpop-jti:`. */
  keyPrefix?: string;
  /** Milliseconds a command may take before the check fails with `cache_unavailable`. Default 500. */
  commandTimeout?: number;
}

/**
 * Seen DPoP proof `jti`s in Redis, for `dpopProofs({ replayCache })`. Keys are the SHA-256 of
 * the `jti` (bounded length whatever the client sent) and expire when the proof could no longer
 * be accepted anyway. While Redis is down, checks fail closed with OidcError `cache_unavailable`
 * (answer 503): a replay is never let through because the cache could not be asked.
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { dpopProofs, jwtAccessTokenVerifier } from '@oidc-rp/node/api';
 * import { RedisDpopReplayCache } from '@oidc-rp/node/redis';
 *
 * const redis = await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }).connect();
 * const verify = jwtAccessTokenVerifier({
 *   issuer: 'https://id.example.com',
 *   jwksUri: 'https://id.example.com/jwks',
 *   audience: 'https://api.example.com',
 *   dpop: dpopProofs({ replayCache: new RedisDpopReplayCache({ redis }) }),
 * });
 * ```
 */
export class RedisDpopReplayCache implements DpopReplayCache {
  private readonly redis: BoundedRedis;
  private readonly prefix: string;

  constructor(options: RedisDpopReplayCacheOptions) {
    this.redis = boundedRedis(options.redis, options.commandTimeout ?? 500, 'the DPoP replay cache');
    this.prefix = options.keyPrefix ?? 'oidc-rp:dpop-jti:';
  }

  async remember(jti: string, expiresAt: number): Promise<boolean> {
    const ttlMs = Math.max(1000, Math.ceil(expiresAt * 1000 - Date.now()));
    return this.redis.setIfAbsent(this.prefix + createHash('sha256').update(jti).digest('base64url'), '1', ttlMs);
  }
}
