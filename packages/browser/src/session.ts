/**
 * `@oidc-rp/browser/session`: OpenID Connect Front-Channel Logout 1.0 and Session Management 1.0
 * for a single-page app, as functions over the client. A separate entry, so the quick start's
 * bundle never parses them.
 *
 * @packageDocumentation
 */

export { frontChannelLogout, type FrontChannelLogout } from './front-channel-logout';
export {
  sessionManagement,
  readSessionState,
  checkSessionMessage,
  readCheckSessionAnswer,
  type CheckSessionAnswer,
  type SessionManagement,
  type SessionManagementOptions,
} from './session-management';
