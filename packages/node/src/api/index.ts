/**
 * @oidc-rp/node/api: the API side on Node. Access-token verifiers with core's checks on
 * `node:crypto` (key objects built once per JWK, one-shot `crypto.verify`), an opt-in cache of
 * verified tokens, introspection, and core's DPoP proof checking (one `dpop` option for both). A separate entry point: a client-only app
 * never loads it.
 *
 * @example
 * ```ts
 * import { jwtAccessTokenVerifier } from '@oidc-rp/node/api';
 *
 * const verify = jwtAccessTokenVerifier({
 *   issuer: 'https://id.example.com',
 *   jwksUri: 'https://id.example.com/jwks',
 *   audience: 'https://api.example.com',
 * });
 * ```
 */

import {
  type AccessTokenClaims,
  type AccessTokenVerifier,
  type IntrospectionVerifierOptions,
  type JwtAccessTokenVerifierOptions,
  introspectionVerifier as coreIntrospectionVerifier,
  jwtAccessTokenVerifier as coreJwtAccessTokenVerifier,
} from '@oidc-rp/core/api';
import { nodePrimitives } from './node-primitives';
import { type VerifiedTokenCacheOptions, verifiedTokenCache } from './verified-token-cache';

/** Options of {@link jwtAccessTokenVerifier}: core's, with the cache as settings. */
export interface NodeJwtAccessTokenVerifierOptions extends Omit<JwtAccessTokenVerifierOptions, 'primitives' | 'cache'> {
  /**
   * Opt-in: keep verified tokens (by their hash) and serve a repeat without verifying it again,
   * never past its `exp`. DPoP proofs and scopes are still checked on every request. A revoked
   * JWT is only caught by introspection, cached or not. `true` for the defaults.
   */
  cache?: boolean | VerifiedTokenCacheOptions | undefined;
}

/**
 * Core's `jwtAccessTokenVerifier` (RFC 9068, DPoP) on `node:crypto`: the same
 * checks, the same errors, faster. See core's documentation for what it checks.
 *
 * @example
 * ```ts
 * import { dpopProofs, jwtAccessTokenVerifier } from '@oidc-rp/node/api';
 *
 * const verify = jwtAccessTokenVerifier({
 *   issuer: 'https://id.example.com',
 *   jwksUri: 'https://id.example.com/jwks',
 *   audience: 'https://api.example.com',
 *   dpop: dpopProofs(),
 *   cache: { maxEntries: 50_000 },
 * });
 * ```
 */
export function jwtAccessTokenVerifier<C extends AccessTokenClaims = AccessTokenClaims>(options: NodeJwtAccessTokenVerifierOptions): AccessTokenVerifier<C> {
  const { cache, ...rest } = options;
  return coreJwtAccessTokenVerifier<C>({
    ...rest,
    primitives: nodePrimitives,
    cache: cache ? verifiedTokenCache(cache === true ? {} : cache) : undefined,
  });
}

/**
 * Core's `introspectionVerifier` (RFC 7662) with its DPoP proof checks on `node:crypto`: the
 * same checks, the same errors. See core's documentation for what it checks.
 *
 * @example
 * ```ts
 * import { clientSecretBasic, discovery, dpopProofs, introspectionVerifier } from '@oidc-rp/node/api';
 *
 * const verify = introspectionVerifier({
 *   provider: discovery('https://id.example.com'),
 *   client: { clientId: 'orders-api' },
 *   clientAuth: clientSecretBasic(process.env.API_CLIENT_SECRET!),
 *   audience: 'https://api.example.com',
 *   dpop: dpopProofs(),
 * });
 * ```
 */
export function introspectionVerifier<C extends AccessTokenClaims = AccessTokenClaims>(
  options: Omit<IntrospectionVerifierOptions, 'primitives'>,
): AccessTokenVerifier<C> {
  return coreIntrospectionVerifier<C>({ ...options, primitives: nodePrimitives });
}

export { nodePrimitives } from './node-primitives';
export { verifiedTokenCache } from './verified-token-cache';
export type { VerifiedTokenCacheOptions } from './verified-token-cache';
export { requireAccessToken, withAccessToken } from './middleware';
export type { CorsOptions } from './cors';
export type {
  AccessTokenAnswer,
  AccessTokenCheck,
  AccessTokenGuard,
  AccessTokenResult,
  IncomingResourceRequest,
  RequireAccessTokenOptions,
} from './middleware';
export { honoAccessToken } from './adapters/hono';
export type { AccessTokenVariables, HonoContextLike } from './adapters/hono';
export { expressAccessToken, accessTokenOf } from './adapters/express';
export type { ExpressRequestLike, ExpressResponseLike } from './adapters/express';
export { fastifyAccessToken } from './adapters/fastify';
export type { FastifyReplyLike, FastifyRequestLike } from './adapters/fastify';
export type { NodeResponseLike } from './adapters/node-request';
export { protectedResourceMetadata } from './protected-resource';
export type { ProtectedResource, ProtectedResourceMetadata, ProtectedResourceOptions } from './protected-resource';
// The core pieces an API meets directly, so one import is enough.
export {
  clientSecretBasic,
  clientSecretPost,
  discovery,
} from '@oidc-rp/core';
export {
  AccessTokenError,
  checkScopes,
  dpopNonces,
  dpopProofs,
  memoryDpopReplayCache,
  readAccessToken,
} from '@oidc-rp/core/api';
export type {
  AccessTokenChallenge,
  AccessTokenClaims,
  AccessTokenVerifier,
  AccessTokenVerifierDpop,
  DpopNonces,
  DpopProofChecker,
  DpopProofOptions,
  DpopReplayCache,
  IntrospectionVerifierOptions,
  ResourceRequest,
  VerifiedAccessToken,
} from '@oidc-rp/core/api';
