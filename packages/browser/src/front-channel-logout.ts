/**
 * OpenID Connect Front-Channel Logout 1.0 in the browser, as functions over the client (like
 * `getUserInfo`): an app that does not import it does not bundle it. The page at the
 * `frontchannel_logout_uri` checks the request (`iss` = the issuer, a `sid`: core's
 * `readFrontChannelLogoutRequest`) and tells the app's tabs on a BroadcastChannel (same
 * origin only); each tab whose session has that `iss` and `sid` ends it locally. The page's own
 * client ends a matching session too (storage shared with the tabs: localStorage, IndexedDB).
 */

import { readFrontChannelLogoutRequest } from '@oidc-rp/core';
import type { BrowserClient } from './types';

/** The client's methods front-channel logout uses. */
type Client = Pick<BrowserClient, 'getProvider' | 'getUser' | 'logout'>;

/**
 * What `frontChannelLogout(client)` returns.
 *
 * @example
 * ```ts
 * const fcl: FrontChannelLogout = frontChannelLogout(client);
 * ```
 */
export interface FrontChannelLogout {
  /**
   * On the page at the `frontchannel_logout_uri`: checks the request (default: this page's URL),
   * tells every tab of the app, and ends this page's session when it matches. Rejects with
   * `frontchannel_logout_iss_mismatch` or `frontchannel_logout_sid_missing` (nothing is ended).
   */
  handleRequest(url?: string): Promise<void>;
  /** In each tab of the app: ends the local session when the logout page names its `iss` and `sid`. Returns the stop function. */
  listen(): () => void;
}

const CHANNEL = 'oidc-rp.frontchannel-logout';

/**
 * Front-channel logout for `client`: `handleRequest()` on the page registered as the
 * `frontchannel_logout_uri` (with `frontchannel_logout_session_required: true`), `listen()` in
 * the app's pages. Works only where the provider's frame reaches the app's storage and
 * BroadcastChannel: same-site (see the README's limits); prefer back-channel logout.
 *
 * @example
 * ```ts
 * import { frontChannelLogout } from '@oidc-rp/browser';
 *
 * const fcl = frontChannelLogout(client);
 * if (location.pathname === '/frontchannel-logout') await fcl.handleRequest();
 * else fcl.listen();
 * ```
 */
export function frontChannelLogout(client: Client): FrontChannelLogout {
  // Ends the local session when it is the one named (the provider's own sid and issuer).
  const endIfNamed = async (iss: unknown, sid: unknown): Promise<void> => {
    const user = client.getUser();
    if (user !== undefined && typeof sid === 'string' && user.sid === sid && user.iss === iss && iss === (await client.getProvider()).issuer) {
      await client.logout({ redirect: false });
    }
  };
  return {
    async handleRequest(url = location.href) {
      const { iss, sid } = readFrontChannelLogoutRequest(new URL(url), (await client.getProvider()).issuer);
      const channel = new BroadcastChannel(CHANNEL);
      channel.postMessage({ iss, sid });
      channel.close();
      await endIfNamed(iss, sid);
    },
    listen() {
      const channel = new BroadcastChannel(CHANNEL);
      channel.onmessage = (event: MessageEvent) => {
        const data: unknown = event.data;
        if (typeof data === 'object' && data !== null) void endIfNamed((data as { iss?: unknown }).iss, (data as { sid?: unknown }).sid).catch(() => undefined);
      };
      return () => channel.close();
    },
  };
}
