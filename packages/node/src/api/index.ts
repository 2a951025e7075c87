// The API side of @oidc-rp/node: protecting a resource server's routes.
export { requireAccessToken, withAccessToken } from './middleware';
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
export { AccessTokenError, clientSecretBasic, clientSecretPost, discovery, introspectionVerifier } from '@oidc-rp/core';
export type {
  AccessTokenClaims,
  AccessTokenVerifier,
  AccessTokenVerifierDpop,
  IntrospectionVerifierOptions,
  ResourceRequest,
  VerifiedAccessToken,
} from '@oidc-rp/core';
