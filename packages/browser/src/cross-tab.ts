/**
 * Tabs acting as one, as an opt-in part: refreshes serialised across tabs by a lock, and a
 * channel on which each tab tells the others about logins, refreshes and logouts. What a tab
 * does with such a message: adopt the tokens another tab wrote (shared storage), or end the
 * local session after a logout elsewhere.
 */

import { broadcastChannel, type Channel, type ChannelMessage } from './channel';
import type { Emitter } from './events';
import { indexedDbStorage } from './indexed-db-storage';
import { webLock, type Lock } from './lock';
import type { StorageAdapter } from './storage';
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

/** How a client tells its other tabs about this one's session (see {@link linkTabs}). */
export interface TabLink {
  /** This tab logged in or renewed its tokens. */
  session(sessionId: string): void;
  /** This tab logged out. */
  logout(sessionId: string): void;
}

/**
 * Connects a client to its channel: listens for the other tabs' messages (with
 * {@link createCrossTabListener}) and returns how to send its own. Messages carry session ids,
 * never tokens. Without a channel, both directions are silent.
 *
 * @example
 * ```ts
 * const tabs = linkTabs(broadcastChannel('oidc-rp:demo'), context);
 * tabs.session(session.id);
 * ```
 */
export function linkTabs(channel: Channel | undefined, context: CrossTabContext): TabLink {
  const onMessage = createCrossTabListener(context);
  channel?.listen((message) => void onMessage(message).catch(() => undefined));
  return {
    session: (sessionId) => channel?.post({ type: 'session', sessionId }),
    logout: (sessionId) => channel?.post({ type: 'logout', sessionId }),
  };
}

/**
 * What the client needs to coordinate its tabs: the default lock and channel (the `lock` and
 * `channel` options replace them), the storage of `tokenStorage: 'indexedDB'`, and the link
 * over the channel.
 *
 * @example
 * ```ts
 * const part: CrossTabPart = crossTab;
 * ```
 */
export interface CrossTabPart {
  lock: () => Lock;
  channel: (name: string) => Channel;
  /** The token storage every tab shares (`tokenStorage: 'indexedDB'`). */
  storage: () => StorageAdapter;
  /**
   * Connects the client to its channel (internal wiring: the context holds the session).
   * @hidden
   */
  link: typeof linkTabs;
}

/**
 * Makes the tabs of an app act as one session: one refresh at a time across tabs (Web Locks),
 * tokens written by one tab adopted by the others (with `tokenStorage: 'indexedDB'`), and a
 * logout in one tab logging out every tab (BroadcastChannel). Required for `'indexedDB'`:
 * tabs that share a rotating refresh token must not refresh it side by side.
 *
 * @example
 * ```ts
 * import { createBrowserClient, crossTab } from '@oidc-rp/browser';
 *
 * const client = createBrowserClient({ ...options, tokenStorage: 'indexedDB', crossTab });
 * ```
 */
export const crossTab: CrossTabPart = { lock: webLock, channel: broadcastChannel, storage: indexedDbStorage, link: linkTabs };
