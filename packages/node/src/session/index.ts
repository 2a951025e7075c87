// The session layer's public surface, re-exported by the package entry.
export { createSessionAuth } from './session-auth';
export type {
  AccessTokenOptions,
  AccessTokenResult,
  ResourceRequestResult,
  GetSessionOptions,
  RequiresAuthOptions,
  SessionAuth,
  SessionInput,
  SessionResult,
} from './session-auth';
export type { SessionAuthOptions } from './options';
export type { BackchannelLogoutOptions } from './backchannel-logout';
export type { ErrorPageInfo, SessionPages, SignedOutPageInfo } from './pages';
export type { Session } from './session-record';
export type { SignedOutReason } from './session-io';
export { MemorySessionStore } from './session-store';
export type { MemorySessionStoreOptions, SessionStore } from './session-store';
export type { SessionLock, SessionLockGrant } from './session-store';
export { sendWebResponse, toWebRequest } from './node-adapter';
export type { ToWebRequestOptions } from './node-adapter';
