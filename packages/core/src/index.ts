export * from './errors';
export { AccessTokenError } from './access-token-error';
export type {
  AccessTokenChallenge,
  AccessTokenClaims,
  AccessTokenVerifier,
  ResourceRequest,
  VerifiedAccessToken,
} from './access-token-error';
export { systemClock, type Clock } from './clock';
export type * from './types';
export { createCodeVerifier, codeChallengeS256, createState, createNonce } from './pkce';
export { discover, discovery, providerMetadata, isDiscovered, serviceProvider, tokenEndpointFor, assertSecureUrl, tryParseUrl } from './discovery';
export type { DiscoveryOptions, DiscoveredProvider } from './discovery';
export { buildAuthorizationRequest, buildCodeAuthorizationRequest, checkRedirectUri, normaliseScope, RESPONSE_TYPES } from './authorization-request';
export type { AuthorizationRequest, AuthorizationRequestParams } from './authorization-request';
export { parseAuthorizationResponse } from './authorization-response';
export type { AuthorizationResponse } from './authorization-response';
export {
  exchangeCode,
  refreshTokens,
  clientCredentials,
  processTokenResponse,
} from './token-endpoint';
export { none, clientSecretPost, clientSecretBasic, clientSecret, secretAuthMethodFor } from './client-auth';
export type { ClientAuth, ClientAuthRequest } from './client-auth';
export type {
  TokenCallBase,
  ExchangeCodeParams,
  RefreshTokensParams,
  ClientCredentialsParams,
} from './token-endpoint';
export { validateIdToken } from './id-token';
export type { IdTokenValidationOptions } from './id-token';
export { clearJwksCache } from './jwks';
export { fetchUserInfo } from './userinfo';
export type { UserInfo, UserInfoParams } from './userinfo';
export { revokeToken } from './revocation';
export type { RevokeTokenParams } from './revocation';
export { buildEndSessionUrl } from './logout';
export type { EndSessionParams } from './logout';
export { completeAuthorization, completeCodeAuthorization } from './authorization-flow';
export type { CompleteAuthorizationParams } from './authorization-flow';
export { dpop, dpopForGeneratedKey, generateDpopKeyPair, createDpopProof, protectedResourceRequest } from './dpop';
export type { DpopAlgorithm, DpopHandle, DpopOptions, DpopProofParams, DpopPublicJwk } from './dpop';
export { readBoundedBody } from './http';
export { invalidOptions } from './options';
