/** Named events for what happens in the background (refreshes, logins, failures). Details never carry tokens. */

import type { IdTokenClaims, OidcError } from '@oidc-rp/core';

/**
 * The detail each event carries.
 *
 * @example
 * ```ts
 * client.on('tokenRefreshed', ({ expiresAt }) => console.log('valid until', expiresAt));
 * ```
 */
export interface BrowserClientEvents {
  /** New tokens arrived (this tab refreshed, or another tab did and shares the storage). */
  tokenRefreshed: { expiresAt?: number };
  /** A login, callback, refresh or revocation failed. */
  error: OidcError;
  login: { user?: IdTokenClaims };
  logout: Record<string, never>;
  /**
   * A callback URL this tab already finished came again (the Back button, a reload): harmless,
   * nothing changed. `handleRedirectCallback` rejects with `callback_replayed`; no `error` event.
   */
  callbackReplayed: Record<string, never>;
}

/**
 * Name of a {@link BrowserClientEvents} event.
 *
 * @example
 * ```ts
 * const watched: BrowserClientEventName[] = ['tokenRefreshed', 'error', 'login', 'logout', 'callbackReplayed'];
 * for (const name of watched) client.on(name, () => console.debug('auth event', name));
 * ```
 */
export type BrowserClientEventName = keyof BrowserClientEvents;

/** Subscribe and emit. */
export interface Emitter {
  on<E extends BrowserClientEventName>(event: E, handler: (detail: BrowserClientEvents[E]) => void): () => void;
  emit<E extends BrowserClientEventName>(event: E, detail: BrowserClientEvents[E]): void;
}

/**
 * A handler that throws does not stop the others nor the client: its error is rethrown in a
 * microtask, where the page's error reporting sees it.
 *
 * @example
 * ```ts
 * const events = createEmitter();
 * const off = events.on('logout', () => location.reload());
 * ```
 */
export function createEmitter(): Emitter {
  const handlers = new Map<string, Set<(detail: never) => void>>();
  return {
    on(event, handler) {
      const set = handlers.get(event) ?? new Set();
      handlers.set(event, set);
      set.add(handler);
      return () => set.delete(handler);
    },
    emit(event, detail) {
      for (const handler of [...(handlers.get(event) ?? [])]) {
        try {
          (handler as (value: typeof detail) => void)(detail);
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    },
  };
}
