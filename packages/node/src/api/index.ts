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
export { introspectionVerifier } from '@oidc-rp/core';
export type { IntrospectionVerifierOptions, AccessTokenVerifier, VerifiedAccessToken, AccessTokenClaims, ResourceRequest } from '@oidc-rp/core';
export { AccessTokenError } from '@oidc-rp/core';
