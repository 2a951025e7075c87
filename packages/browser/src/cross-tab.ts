/**
 * What a tab does when another tab of the app says the session changed: adopt the tokens it
 * wrote (shared storage), or end the local session after a logout elsewhere.
 */

import type { ChannelMessage } from './channel';
import type { Emitter } from './events';
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
