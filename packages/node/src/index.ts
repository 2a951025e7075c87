/**
 * @oidc-rp/node: OpenID Connect for backends. Code flow (query, form_post, hybrid) with a
 * sealed transaction cookie, refresh with rotation, and client-credentials tokens from a
 * shared cache with single flight and retries.
 *
 * @example
 * ```ts
 * import { createNodeClient, serviceProvider } from '@oidc-rp/node';
 *
 * const client = createNodeClient({
 *   provider: serviceProvider('http://127.0.0.1:4000/demo'),
 *   clientId: 'web',
 *   clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
 *   redirectUri: 'http://127.0.0.1:3000/callback',
 *   cookieSecret: process.env.COOKIE_SECRET!, // openssl rand -base64 32
 * });
 * ```
 */

export { createNodeClient } from './client';
export type { EndSessionOptions, LoginStart, NodeClient, RefreshOptions, StartLoginOptions, UserInfoOptions } from './client-types';
export type { NodeClientOptions, NodeResponseMode, RetryOptions } from './options';
export type { CallbackInput } from './callback-input';
export type { CallbackResult, HandleLoginOptions } from './client-types';
export type { ClientCredentialsOptions, InvalidateOptions } from './client-credentials';
export { MemoryTokenCache } from './token-cache';
export type { CachedToken, MemoryTokenCacheOptions, TokenCache, TokenCacheLock } from './token-cache';
export { fragmentRelayPage } from './fragment-relay';
export { sealTransaction, unsealTransaction } from './sealed-transaction';
export type { SealOptions } from './sealed-transaction';
export { isRetryableError } from './retry';
export { fapi2 } from './fapi2';
export { createRequestObjectStore } from './request-objects';
export type { NodeRequestObjectOptions, RequestObjectStore, RequestObjectStoreOptions } from './request-objects';
export type { Fapi2Algorithm, Fapi2Options } from './fapi2';
export * from './session/index';

// Signed requests (RFC 9101), signed userinfo and WebFinger issuer discovery, from core's `signed` entry.
export { discoverByIdentifier, fetchSignedUserInfo, requestObjectSigner, webFingerIssuer } from '@oidc-rp/core/signed';
export type { RequestObjectAlgorithm, RequestObjectSigner, RequestObjectSignerOptions, WebFingerOptions } from '@oidc-rp/core/signed';

// The core pieces a backend meets directly, so one import is enough.
export {
  AuthorizationResponseError,
  ClientRegistrationError,
  OidcError,
  TokenEndpointError,
  clientSecretJwt,
  createDpopProof,
  deleteClientRegistration,
  discover,
  discoverApiAuthorization,
  discoverAuthorizationServer,
  dpop,
  generateDpopKeyPair,
  isOidcError,
  privateKeyJwt,
  protectedResourceRequest,
  readClientRegistration,
  registerClient,
  registeredClientAuth,
  serviceProvider,
  updateClientRegistration,
} from '@oidc-rp/core';
export type {
  ApiAuthorization,
  ApiDiscoveryOptions,
  ClientMetadata,
  RegisteredClient,
  AuthorizationTransaction,
  ClientAuth,
  ClientAuthMethod,
  DpopAlgorithm,
  DpopHandle,
  DpopOptions,
  GrantType,
  IdTokenClaims,
  OidcErrorCode,
  PrivateKeyJwtOptions,
  ProviderMetadata,
  ResponseMode,
  ResponseType,
  TokenSet,
  UserInfo,
} from '@oidc-rp/core';
