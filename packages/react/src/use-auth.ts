import { OidcError, type AuthSnapshot, type BrowserClient } from '@oidc-rp/browser';
import { useCallback, useContext, useMemo, useSyncExternalStore } from 'react';
import { AuthContext } from './context';

/**
 * What {@link useAuth} returns: the client's current state and its actions.
 *
 * @example
 * ```ts
 * const { status, getAccessToken }: AuthState = useAuth();
 * ```
 */
export interface AuthState {
  status: AuthSnapshot['status'];
  /** The validated ID token claims, when signed in. */
  user: AuthSnapshot['user'];
  /** Why the last login or refresh failed, when `status` is `'error'`. */
  error: AuthSnapshot['error'];
  login: BrowserClient['login'];
  logout: BrowserClient['logout'];
  getAccessToken: BrowserClient['getAccessToken'];
  /** `fetch` with the access token attached; refreshes and retries once on a 401. */
  fetch: BrowserClient['fetch'];
  /** The client itself, for events (`client.on(...)`) and less common calls. */
  client: BrowserClient;
}

// What a server render (and hydration) sees: the session is only known in the browser.
const SERVER_SNAPSHOT: AuthSnapshot = Object.freeze({ status: 'loading' });
const getServerSnapshot = (): AuthSnapshot => SERVER_SNAPSHOT;

/**
 * The signed-in state of the nearest {@link AuthProvider}'s client. Re-renders only when the
 * client's snapshot changes (not on every notification).
 *
 * @throws OidcError `invalid_options` when used outside an {@link AuthProvider}.
 *
 * @example
 * ```tsx
 * function Profile() {
 *   const { status, user, login, logout } = useAuth();
 *   if (status === 'loading') return <p>Loading…</p>;
 *   if (status !== 'authenticated') return <button onClick={() => login()}>Log in</button>;
 *   return <button onClick={() => logout()}>Log out {user?.name}</button>;
 * }
 * ```
 */
export function useAuth(): AuthState {
  const client = useContext(AuthContext);
  if (!client) {
    throw new OidcError(
      'invalid_options',
      'useAuth() was called outside <AuthProvider>: render the component inside <AuthProvider client={client}>.',
    );
  }
  // Wrapped so that methods work whether or not the client binds `this`.
  const subscribe = useCallback((listener: () => void) => client.subscribe(listener), [client]);
  const getSnapshot = useCallback(() => client.getSnapshot(), [client]);
  const snapshot = useSyncExternalStore(subscribe, getSnapshot, getServerSnapshot);

  const actions = useMemo(
    () => ({
      login: ((options) => client.login(options)) as BrowserClient['login'],
      logout: ((options) => client.logout(options)) as BrowserClient['logout'],
      getAccessToken: ((options) => client.getAccessToken(options)) as BrowserClient['getAccessToken'],
      fetch: ((input, init) => client.fetch(input, init)) as BrowserClient['fetch'],
      client,
    }),
    [client],
  );
  return useMemo(
    () => ({ status: snapshot.status, user: snapshot.user, error: snapshot.error, ...actions }),
    [snapshot, actions],
  );
}
