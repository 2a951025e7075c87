export * from './errors';
export { systemClock, type Clock } from './clock';
export type * from './types';
export { createCodeVerifier, codeChallengeS256, createState, createNonce } from './pkce';
export { discover, serviceProvider, tokenEndpointFor, assertSecureUrl, tryParseUrl } from './discovery';
export type { DiscoveryOptions } from './discovery';
export { buildAuthorizationRequest, buildCodeAuthorizationRequest, RESPONSE_TYPES } from './authorization-request';
export type { AuthorizationRequest, AuthorizationRequestParams } from './authorization-request';
export { parseAuthorizationResponse } from './authorization-response';
export type { AuthorizationResponse } from './authorization-response';
export {
  exchangeCode,
  refreshTokens,
  refreshTokensAsPublicClient,
  clientCredentials,
  processTokenResponse,
  authMethodOf,
} from './token-endpoint';
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
export { revokeToken, revokeTokenAsPublicClient } from './revocation';
export type { RevokeTokenParams } from './revocation';
export { buildEndSessionUrl } from './logout';
export type { EndSessionParams } from './logout';
export { completeAuthorization, completeCodeAuthorization } from './authorization-flow';
export type { CompleteAuthorizationParams } from './authorization-flow';
export { readBoundedBody } from './http';
