/**
 * The observable state frameworks render from: `subscribe` + `getSnapshot`, shaped for
 * React's `useSyncExternalStore`. A snapshot is frozen and replaced only when something in
 * it changed, so its identity tells a framework whether to re-render.
 */

import type { IdTokenClaims, OidcError } from '@oidc-rp/core';

/**
 * The client's state at one moment. Immutable; a new object exactly when the state changed.
 *
 * @example
 * ```ts
 * const { status, user, error } = client.getSnapshot();
 * if (status === 'authenticated') console.log(user?.name);
 * ```
 */
export interface AuthSnapshot {
  readonly status: 'loading' | 'authenticated' | 'unauthenticated' | 'error';
  /** Validated ID token claims. */
  readonly user?: IdTokenClaims;
  /** Why the last login or refresh failed. */
  readonly error?: OidcError;
  /** Access token expiry, epoch seconds, when known. */
  readonly expiresAt?: number;
  /** The raw ID token of the session, for apps that must pass it on (e.g. as an `id_token_hint`). */
  readonly idToken?: string;
}

/** A subscribable holder of the current {@link AuthSnapshot} (internal; React's `AuthState` is what `useAuth()` returns). */
export interface SnapshotStore {
  get(): AuthSnapshot;
  /** Replaces the snapshot and notifies listeners, unless nothing changed. */
  set(next: AuthSnapshot): void;
  subscribe(listener: () => void): () => void;
}

/**
 * Starts in `loading`.
 *
 * @example
 * ```ts
 * const state = createSnapshotStore();
 * const stop = state.subscribe(() => render(state.get()));
 * ```
 */
export function createSnapshotStore(): SnapshotStore {
  let snapshot: AuthSnapshot = Object.freeze({ status: 'loading' });
  const listeners = new Set<() => void>();
  return {
    get: () => snapshot,
    set(next) {
      const members = Object.keys({ ...snapshot, ...next }) as (keyof AuthSnapshot)[];
      if (members.every((member) => next[member] === snapshot[member])) return;
      snapshot = Object.freeze({ ...next });
      for (const listener of [...listeners]) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
