/**
 * The `state` of RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0, section 2), as an
 * opt-in part: with it, `logout()` sends a fresh state to the provider's end_session_endpoint
 * and keeps it in this tab's sessionStorage; the page at the post-logout redirect URI checks
 * the state that comes back with `handleLogoutCallback()`, so that only a logout this tab
 * started is taken for one.
 */

import { DEV } from './dev';
import { OidcError, createState } from '@oidc-rp/core';
import type { Part } from './parts';
import { browserStorage, type StorageAdapter } from './storage';

/** What the client uses of the part. Internal. */
export interface LogoutState {
  /** A new state for the logout about to be sent, kept until its post-logout redirect. */
  begin_(): Promise<string>;
}

/**
 * The logout-state part, as the client's `logoutState` option takes it, and the check of the
 * post-logout redirect.
 *
 * @example
 * ```ts
 * const part: LogoutStatePart = logoutState();
 * ```
 */
export type LogoutStatePart = Part<'logoutState'> & {
  /**
   * Checks the post-logout redirect (default: this page's URL): resolves when its `state` is
   * the one this tab's last `logout()` sent, once; rejects with `logout_state_mismatch` when it
   * is missing, another or already used (then the response is not this tab's: ignore it).
   */
  handleLogoutCallback(url?: string): Promise<void>;
};

const KEY = 'oidc-rp.logout-state';

/**
 * Sends a `state` with RP-initiated logout and checks it on the way back. Pass the same value to
 * `createBrowserClient` and call its `handleLogoutCallback()` on the page at `postLogoutRedirectUri`.
 *
 * @example
 * ```ts
 * import { createBrowserClient, logoutState } from '@oidc-rp/browser';
 *
 * const logoutCheck = logoutState();
 * const client = createBrowserClient({ ...options, logoutState: logoutCheck });
 * // on the page at postLogoutRedirectUri:
 * await logoutCheck.handleLogoutCallback(); // rejects with logout_state_mismatch for a forged response
 * ```
 */
export function logoutState(options: { storage?: StorageAdapter } = {}): LogoutStatePart {
  // sessionStorage by default, reached only when used (never on a server import).
  const storage = () => options.storage ?? browserStorage('sessionStorage');
  const part: LogoutState & Pick<LogoutStatePart, 'handleLogoutCallback'> = {
    async begin_() {
      const state = createState();
      await storage().set(KEY, state);
      return state;
    },
    async handleLogoutCallback(url = location.href) {
      const sent = await storage().get(KEY);
      await storage().remove(KEY); // used once, whatever came back
      if (sent === null || new URL(url).searchParams.get('state') !== sent) {
        throw new OidcError(
          'logout_state_mismatch',
          DEV && "The post-logout redirect's state is not the one this tab's logout sent (missing, another or used): this response is not this tab's, ignore it.",
        );
      }
    },
  };
  return part as unknown as LogoutStatePart;
}
