/**
 * Tabs acting as one, as an opt-in part: refreshes serialised across tabs by a lock, and a
 * channel on which each tab tells the others about logins, refreshes and logouts. What a tab
 * does with such a message: adopt the tokens another tab wrote (shared storage), or end the
 * local session after a logout elsewhere.
 */

import { broadcastChannel, type Channel, type ChannelMessage } from './channel';
import type { Emitter } from './events';
import { webLock, type Lock } from './lock';
import type { Session, TokenStore } from './token-store';

/** What the cross-tab listener needs from the client. */
export interface CrossTabContext {
  tokens: () => TokenStore;
  /** This tab's current session. */
  session: () => Session | undefined;
  /** Makes `session` the current one; undefined ends it. */
  adopt: (session: Session | undefined) => void;
  emit: Emitter['emit'];
  /** Revokes the tokens of a session that ended (errors are reported, not thrown). */
  revoke: (ended: Session) => Promise<void>;
}

/**
 * Returns the handler for the client's channel. Messages carry no token: the handler re-reads
 * the token storage, and ignores anything that is not one of its own message shapes.
 *
 * @example
 * ```ts
 * channel.listen((message) => void onMessage(message).catch(() => undefined));
 * ```
 */
export function createCrossTabListener(context: CrossTabContext): (message: ChannelMessage) => Promise<void> {
  return async (message) => {
    if (typeof message !== 'object' || message === null) return;
    const stored = await context.tokens().read();
    const session = context.session();
    if (message.type === 'session') {
      if (!stored) {
        if (session && session.id === message.sessionId) context.adopt(undefined); // it ended in another tab
      } else if (stored.accessToken !== session?.accessToken) {
        const sameSession = stored.id === session?.id;
        context.adopt(stored);
        if (sameSession) context.emit('tokenRefreshed', { expiresAt: stored.expiresAt });
        else context.emit('login', { user: stored.claims });
      }
    } else if (message.type === 'logout' && session) {
      if (stored?.id === session.id) await context.tokens().clear();
      context.adopt(undefined);
      context.emit('logout', {});
      // A session of this tab's own (tokens not shared) is not revoked yet by the other tab.
      if (session.id !== message.sessionId) await context.revoke(session);
    }
  };
}

/**
 * What the client needs to coordinate its tabs: the default lock and channel (the `lock` and
 * `channel` options replace them) and the handler of the channel's messages.
 *
 * @example
 * ```ts
 * const part: CrossTabPart = crossTab;
 * ```
 */
export interface CrossTabPart {
  lock: () => Lock;
  channel: (name: string) => Channel;
  /**
   * The client's handler of channel messages (internal wiring: its context holds the session).
   * @hidden
   */
  listener: typeof createCrossTabListener;
}

/**
 * Makes the tabs of an app act as one session: one refresh at a time across tabs (Web Locks),
 * tokens written by one tab adopted by the others (with `tokenStorage: 'localStorage'`), and a
 * logout in one tab logging out every tab (BroadcastChannel). Required for `'localStorage'`:
 * tabs that share a rotating refresh token must not refresh it side by side.
 *
 * @example
 * ```ts
 * import { createBrowserClient, crossTab } from '@oidc-rp/browser';
 *
 * const client = createBrowserClient({ ...options, tokenStorage: 'localStorage', crossTab });
 * ```
 */
export const crossTab: CrossTabPart = { lock: webLock, channel: broadcastChannel, listener: createCrossTabListener };
