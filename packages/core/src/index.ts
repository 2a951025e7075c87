/**
 * `@oidc-rp/core`: what a relying party calls, from discovery to logout. The API side (access
 * token verification at a resource server) is its own entry, `@oidc-rp/core/api`, so a
 * client-only app never loads it.
 *
 * @packageDocumentation
 */

export * from './errors';
export { systemClock, type Clock } from './clock';
export type * from './types';
export { discover, discovery, providerMetadata, serviceProvider, tokenEndpointFor } from './provider/discovery';
export type { DiscoveryOptions, DiscoveredProvider } from './provider/discovery';
export { none, clientSecretPost, clientSecretBasic, clientSecret, secretAuthMethodFor } from './provider/client-auth';
export type { ClientAuth, ClientAuthRequest } from './provider/client-auth';
export { clearJwksCache } from './jose/jwks';
export { createCodeVerifier, codeChallengeS256, createState, createNonce } from './client/pkce';
export { buildAuthorizationRequest } from './client/authorization-request';
export type { AuthorizationRequest, AuthorizationRequestParams } from './client/authorization-request';
export { parseAuthorizationResponse } from './client/authorization-response';
export type { AuthorizationResponse } from './client/authorization-response';
export { exchangeCode, refreshTokens, clientCredentials, processTokenResponse } from './client/token-endpoint';
export type { TokenCallBase, ExchangeCodeParams, RefreshTokensParams, ClientCredentialsParams } from './client/token-endpoint';
export { privateKeyJwt, clientSecretJwt } from './client/client-assertion';
export type { ClientAssertionOptions, ClientSecretJwtAlgorithm, ClientSecretJwtOptions, PrivateKeyJwtAlgorithm, PrivateKeyJwtOptions } from './client/client-assertion';
export { validateIdToken } from './client/id-token';
export type { IdTokenValidationOptions } from './client/id-token';
export { validateLogoutToken, logoutTokenReplayWindow, BACKCHANNEL_LOGOUT_EVENT } from './client/logout-token';
export type { LogoutTokenValidationOptions, LogoutTokenClaims } from './client/logout-token';
export { fetchUserInfo } from './client/userinfo';
export type { UserInfo, UserInfoParams } from './client/userinfo';
export { resolveClaimSources } from './client/claim-sources';
export type { ClaimsProvider, ResolveClaimSourcesOptions, ResolvedClaims, UnresolvedClaim } from './client/claim-sources';
export { readInitiateLogin } from './client/initiate-login';
export type { InitiateLoginOptions, InitiatedLogin } from './client/initiate-login';
export { revokeToken } from './client/revocation';
export type { RevokeTokenParams } from './client/revocation';
export { buildEndSessionUrl } from './client/end-session';
export type { EndSessionParams } from './client/end-session';
export { completeAuthorization } from './client/authorization-flow';
export type { CompleteAuthorizationParams } from './client/authorization-flow';
export { isJarmResponseMode, jarmDelivery, validateJarmResponse, withJarm } from './client/jarm';
export type { JarmResponseMode, JarmValidationOptions } from './client/jarm';
export { pushAuthorizationRequest, usesPushedAuthorization } from './client/pushed-authorization';
export type { PushAuthorizationRequestParams } from './client/pushed-authorization';
export { dpop, generateDpopKeyPair, createDpopProof, protectedResourceRequest } from './client/dpop-proof-maker';
export type { DpopAlgorithm, DpopHandle, DpopOptions, DpopProofParams, DpopPublicJwk } from './client/dpop-proof-maker';
export { checkResources, resourceForUrl, resourceNotConfigured, withResources } from './client/resource-indicators';
export { discoverApiAuthorization, discoverAuthorizationServer, resourceMetadataUrl, wellKnownResourceMetadataUrl } from './client/api-discovery';
export type { ApiAuthorization, ApiDiscoveryOptions, ProtectedResourceMetadataDocument } from './client/api-discovery';
export {
  ClientRegistrationError,
  deleteClientRegistration,
  readClientRegistration,
  registerClient,
  registeredClientAuth,
  updateClientRegistration,
} from './client/client-registration';
export type { ClientMetadata, RegisterClientParams, RegisteredClient } from './client/client-registration';
export { readFrontChannelLogoutRequest, type FrontChannelLogoutRequest } from './client/front-channel-logout';
