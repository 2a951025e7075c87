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
import type { Part } from './parts';
import type { StorageAdapter } from './storage';
import type { Session, TokenStore } from './token-store';

/** What the cross-tab listener needs from the client. Internal. */
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
 * Settings of {@link crossTab}.
 *
 * @example
 * ```ts
 * const settings: CrossTabOptions = { storage: 'indexedDB' };
 * ```
 */
export interface CrossTabOptions {
  /**
   * Tokens every tab shares: `'indexedDB'` (kept after the browser closes; readable by any
   * script on the page), or a {@link StorageAdapter} of your own whose reads in one tab see what
   * another tab wrote before it released the lock. Default: none, each tab keeps its own tokens
   * (the client's `tokenStorage`) and the tabs share logouts. (Not `localStorage`: Chromium
   * caches it per tab, so a tab taking over the refresh can read a refresh token another tab
   * already used.)
   */
  storage?: 'indexedDB' | StorageAdapter;
  /** Serialises refreshes across tabs. Default: `webLock()` (Web Locks, in-tab fallback). */
  lock?: Lock;
  /** Tells other tabs about logins, refreshes and logouts. Default: a `broadcastChannel(…)` per issuer and client. */
  channel?: Channel;
}

/**
 * Tabs acting as one, as the client's `crossTab` option takes it (made by {@link crossTab}). Opaque.
 *
 * @example
 * ```ts
 * const part: CrossTabPart = crossTab({ storage: 'indexedDB' });
 * ```
 */
export type CrossTabPart = Part<'crossTab'>;

/** What the client uses of the part. Internal. */
export interface CrossTab {
  lock: () => Lock;
  channel: (name: string) => Channel;
  /** The token storage every tab shares, when the tabs share one. */
  storage: (() => StorageAdapter) | undefined;
  link: typeof linkTabs;
}

/**
 * Makes the tabs of an app act as one: one refresh at a time across tabs (Web Locks), a logout
 * in one tab logging out every tab (BroadcastChannel), and with `storage`, one session that
 * every tab shares and adopts when another tab writes it. Tabs that share a rotating refresh
 * token must not refresh it side by side, so shared tokens come with this part only.
 *
 * @example
 * ```ts
 * import { createBrowserClient, crossTab } from '@oidc-rp/browser';
 *
 * const client = createBrowserClient({ ...options, crossTab: crossTab({ storage: 'indexedDB' }) });
 * ```
 */
export function crossTab({ storage, lock, channel }: CrossTabOptions = {}): CrossTabPart {
  const part: CrossTab = {
    lock: () => lock ?? webLock(),
    channel: (name) => channel ?? broadcastChannel(name),
    storage: storage && (() => (typeof storage === 'object' ? storage : indexedDbStorage())),
    link: linkTabs,
  };
  return part as unknown as CrossTabPart;
}
