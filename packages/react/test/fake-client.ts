import type { AuthSnapshot, BrowserClient, LoginResult } from '@oidc-rp/browser';
import { vi } from 'vitest';

/**
 * A stand-in for the browser client: the unit under test is the React binding, so the client
 * only needs to keep a snapshot, notify subscribers and record calls.
 */
export function fakeClient(initial: AuthSnapshot = { status: 'loading' }) {
  let snapshot = initial;
  const listeners = new Set<() => void>();
  const client = {
    init: vi.fn(async () => snapshot),
    login: vi.fn(async (_options?: Parameters<BrowserClient['login']>[0]) => {}),
    handleRedirectCallback: vi.fn(async (_url?: string): Promise<LoginResult> => ({})),
    isRedirectCallback: vi.fn((_url?: string) => false),
    getAccessToken: vi.fn(async () => 'access-token'),
    getUser: () => snapshot.user,
    logout: vi.fn(async () => {}),
    subscribe: vi.fn((listener: () => void) => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    }),
    getSnapshot: () => snapshot,
    on: vi.fn(() => () => {}),
    getProvider: vi.fn(async () => {
      throw new Error('no provider in the fake');
    }),
    http: undefined,
    dpop: undefined as BrowserClient['dpop'],
  } satisfies BrowserClient;

  return {
    client,
    /** Replaces the snapshot (a new object, as the real client does on change) and notifies. */
    set(next: AuthSnapshot) {
      snapshot = next;
      for (const listener of listeners) listener();
    },
    /** Notifies without a state change, as a client may do after a no-op. */
    notify() {
      for (const listener of listeners) listener();
    },
    listenerCount: () => listeners.size,
  };
}

export const alice = {
  iss: 'http://127.0.0.1:4000/demo',
  sub: 'alice',
  aud: 'spa',
  exp: 2_000_000_000,
  iat: 1_700_000_000,
  name: 'Alice Liddell',
};
