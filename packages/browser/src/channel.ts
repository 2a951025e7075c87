/**
 * Tells the app's other tabs that the session changed. Messages carry no token: a tab that
 * shares the token storage re-reads it; the others only act on logout.
 */

/**
 * What one tab tells the others: `session` after a login or refresh wrote new tokens,
 * `logout` after the user logged out. `sessionId` names the session (random, not a token).
 *
 * @example
 * ```ts
 * const message: ChannelMessage = { type: 'logout', sessionId: 'k3J…' };
 * ```
 */
export interface ChannelMessage {
  type: 'session' | 'logout';
  sessionId?: string;
}

/**
 * A message bus between the tabs of one origin.
 *
 * @example
 * ```ts
 * const channel: Channel = broadcastChannel('my-app');
 * const stop = channel.listen((message) => console.log(message.type));
 * channel.post({ type: 'logout' });
 * stop();
 * ```
 */
export interface Channel {
  post(message: ChannelMessage): void;
  listen(handler: (message: ChannelMessage) => void): () => void;
}

/**
 * A {@link Channel} over `BroadcastChannel`; silent (messages go nowhere) where the API is missing.
 * The underlying channel is opened on first use, so creating one touches no browser API.
 *
 * @example
 * ```ts
 * const client = createBrowserClient({ ...options, channel: broadcastChannel('oidc-rp:my-app') });
 * ```
 */
export function broadcastChannel(name: string): Channel {
  let channel: BroadcastChannel | null | undefined;
  const open = () => (channel ??= typeof BroadcastChannel === 'function' ? new BroadcastChannel(name) : null);
  return {
    post: (message) => open()?.postMessage(message),
    listen(handler) {
      const target = open();
      if (!target) return () => undefined;
      const onMessage = (event: MessageEvent) => handler(event.data as ChannelMessage);
      target.addEventListener('message', onMessage);
      return () => target.removeEventListener('message', onMessage);
    },
  };
}
