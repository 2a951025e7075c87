export { createBrowserClient } from './client';
export { authorizedFetch, type AuthorizedFetch, type AuthorizedFetchOptions } from './authorized-fetch';
export type { BrowserClient, GetAccessTokenOptions, LoginOptions, LoginResult, LogoutOptions } from './types';
export type { AuthSnapshot } from './snapshot-store';
export type { BrowserClientEventName, BrowserClientEvents } from './events';
export type { BrowserClientOptions, Discover, ImplicitResponseType, TokenStorageOption } from './options';
export { browserStorage, memoryStorage, webStorage, type StorageAdapter } from './storage';
export { indexedDbStorage } from './indexed-db-storage';
export { mutexLock, webLock, type Lock } from './lock';
export { broadcastChannel, type Channel, type ChannelMessage } from './channel';
export { browserNavigation, type Navigation } from './navigation';
// Opt-in parts: an app that imports none of them ships only the code flow.
export { popupLogin, type PopupLoginContext, type PopupLoginPart } from './popup';
export { implicitFlow, type ImplicitFlowPart } from './implicit';
export { revocation, type RevocationContext, type RevocationPart } from './revocation';
export { getUserInfo } from './userinfo';
export { crossTab, type CrossTabPart } from './cross-tab';
export {
  OidcError,
  discover,
  isOidcError,
  serviceProvider,
  systemClock,
  type Clock,
  type IdTokenClaims,
  type OidcErrorCode,
  type ProviderMetadata,
  type UserInfo,
} from '@oidc-rp/core';
