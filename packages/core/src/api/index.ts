/**
 * `@oidc-rp/core/api`: what an API (a resource server) calls to accept access tokens: JWT
 * access-token verification (RFC 9068), introspection (RFC 7662), DPoP proof checking
 * (RFC 9449) and the `WWW-Authenticate` challenge of a refusal. Client authentication for
 * introspection (`clientSecretBasic`, …) and `discovery` come from `@oidc-rp/core`.
 *
 * @packageDocumentation
 */

export { AccessTokenError } from './access-token-error';
export type {
  AccessTokenChallenge,
  AccessTokenClaims,
  AccessTokenVerifier,
  AccessTokenVerifierDpop,
  ResourceRequest,
  VerifiedAccessToken,
} from './access-token-error';
export { jwtAccessTokenVerifier, checkScopes } from './jwt-access-token-verifier';
export type { JwtAccessTokenVerifierOptions, VerifiedTokenCache, CachedAccessToken } from './jwt-access-token-verifier';
export { readAccessToken } from './access-token-header';
export type { PresentedAccessToken } from './access-token-header';
export { dpopProofs, dpopNonces, memoryDpopReplayCache } from './dpop-proof-check';
export type { DpopProofChecker, DpopProofOptions, DpopReplayCache, DpopNonces, DpopNoncesOptions, MemoryDpopReplayCacheOptions } from './dpop-proof-check';
export { accessTokenChallenge } from './resource-challenge';
export type { AccessTokenChallengeOptions, AccessTokenRefusal } from './resource-challenge';
export { introspectToken, processIntrospectionResponse } from './introspection';
export type { IntrospectionResponse, IntrospectTokenParams } from './introspection';
export { introspectionVerifier } from './introspection-verifier';
export type { IntrospectionVerifierOptions } from './introspection-verifier';
export { webCryptoPrimitives } from '../jose/primitives';
export type { JosePrimitives, PublicJwk } from '../jose/primitives';
export { clearJwksCache } from '../jose/jwks';
