export { createBrowserClient } from './client';
export { authorizedFetch, type AuthorizedFetch, type AuthorizedFetchOptions } from './authorized-fetch';
export type { BrowserClient, GetAccessTokenOptions, LoginOptions, LoginResult, LogoutOptions } from './types';
export type { AuthSnapshot } from './snapshot-store';
export type { BrowserClientEventName, BrowserClientEvents } from './events';
export type { BrowserClientOptions, TokenStorageOption } from './options';
export { browserStorage, memoryStorage, webStorage, type StorageAdapter } from './storage';
export { indexedDbStorage } from './indexed-db-storage';
export { mutexLock, webLock, type Lock } from './lock';
export { broadcastChannel, type Channel, type ChannelMessage } from './channel';
export { browserNavigation, type Navigation } from './navigation';
// Opt-in parts, one value each: an app that imports none of them ships only the code flow.
export type { Part } from './parts';
export { popupLogin, type PopupLoginPart } from './popup';
export { implicitFlow, type ImplicitFlowPart } from './implicit';
export { hybridFlow, idTokenFlow, type HybridResponseType } from './front-channel-flows';
export { revocation, type RevocationPart } from './revocation';
export { logoutState, type LogoutStatePart } from './logout-state';
export { crossTab, type CrossTabOptions, type CrossTabPart } from './cross-tab';
export { dpop, type BrowserDpop, type DpopPart } from './dpop';
export { par, type ParPart } from './par';
export { resourceIndicators, type BrowserResources, type ResourceIndicatorsOptions, type ResourcesPart } from './resources';
export { getUserInfo } from './userinfo';
export {
  OidcError,
  discovery,
  isOidcError,
  serviceProvider,
  systemClock,
  type Clock,
  type DiscoveredProvider,
  type DpopAlgorithm,
  type DpopHandle,
  type DpopProofParams,
  type HttpOptions,
  type IdTokenClaims,
  type OidcErrorCode,
  type ProviderMetadata,
  type UserInfo,
} from '@oidc-rp/core';
