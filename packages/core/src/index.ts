export * from './errors';
export { AccessTokenError } from './access-token-error';
export { jwtAccessTokenVerifier, checkScopes } from './access-token';
export type { JwtAccessTokenVerifierOptions, VerifiedTokenCache, CachedAccessToken } from './access-token';
export { readAccessToken } from './authorization-header';
export type { PresentedAccessToken } from './authorization-header';
export { dpopProofs, dpopNonces, memoryDpopReplayCache } from './dpop-proof';
export type { DpopProofChecker, DpopProofOptions, DpopReplayCache, DpopNonces, DpopNoncesOptions, MemoryDpopReplayCacheOptions } from './dpop-proof';
export { webCryptoPrimitives } from './jose-primitives';
export type { JosePrimitives, PublicJwk } from './jose-primitives';
export type {
  AccessTokenChallenge,
  AccessTokenClaims,
  AccessTokenVerifier,
  AccessTokenVerifierDpop,
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
export { privateKeyJwt, clientSecretJwt } from './client-assertion';
export type { ClientAssertionOptions, ClientSecretJwtAlgorithm, ClientSecretJwtOptions, PrivateKeyJwtAlgorithm, PrivateKeyJwtOptions } from './client-assertion';
export type {
  TokenCallBase,
  ExchangeCodeParams,
  RefreshTokensParams,
  ClientCredentialsParams,
} from './token-endpoint';
export { validateIdToken } from './id-token';
export type { IdTokenValidationOptions } from './id-token';
export { validateLogoutToken, logoutTokenReplayWindow, BACKCHANNEL_LOGOUT_EVENT } from './logout-token';
export type { LogoutTokenValidationOptions, LogoutTokenClaims } from './logout-token';
export { clearJwksCache } from './jwks';
export { fetchUserInfo } from './userinfo';
export type { UserInfo, UserInfoParams } from './userinfo';
export { revokeToken } from './revocation';
export type { RevokeTokenParams } from './revocation';
export { buildEndSessionUrl } from './logout';
export type { EndSessionParams } from './logout';
export { completeAuthorization, completeCodeAuthorization } from './authorization-flow';
export { pushAuthorizationRequest, usesPushedAuthorization } from './pushed-authorization';
export type { PushAuthorizationRequestParams } from './pushed-authorization';
export { checkResources, resourceForUrl, resourceNotConfigured, withResources } from './resource-indicators';
export { discoverApiAuthorization, discoverAuthorizationServer, resourceMetadataUrl, wellKnownResourceMetadataUrl } from './api-discovery';
export type { ApiAuthorization, ApiDiscoveryOptions, ProtectedResourceMetadataDocument } from './api-discovery';
export {
  ClientRegistrationError,
  deleteClientRegistration,
  readClientRegistration,
  registerClient,
  registeredClientAuth,
  updateClientRegistration,
} from './client-registration';
export type { ClientMetadata, RegisterClientParams, RegisteredClient } from './client-registration';
export type { CompleteAuthorizationParams } from './authorization-flow';
export { dpop, dpopForGeneratedKey, generateDpopKeyPair, createDpopProof, protectedResourceRequest } from './dpop';
export type { DpopAlgorithm, DpopHandle, DpopOptions, DpopProofParams, DpopPublicJwk } from './dpop';
export { readBoundedBody } from './http';
export { invalidOptions } from './options';
export { accessTokenChallenge } from './resource-challenge';
export type { AccessTokenChallengeOptions, AccessTokenRefusal } from './resource-challenge';
export { introspectToken, processIntrospectionResponse, introspectionVerifier } from './introspection';
export type { IntrospectionResponse, IntrospectTokenParams, IntrospectionVerifierOptions } from './introspection';
