import { OidcError, authorizedFetch, type AuthorizedFetch, type AuthSnapshot, type BrowserClient, type IdTokenClaims } from '@oidc-rp/browser';
import { useCallback, useContext, useMemo, useSyncExternalStore } from 'react';
import { AuthContext } from './context';

/**
 * What {@link useAuth} returns: the client's current state and its actions. `Claims` types
 * the custom claims of your ID tokens.
 *
 * @example
 * ```ts
 * const { isLoading, isAuthenticated, user, getAccessToken }: AuthState<{ tenant: string }> = useAuth();
 * ```
 */
export interface AuthState<Claims extends object = Record<string, unknown>> {
  status: AuthSnapshot['status'];
  /** `status === 'loading'`: the session is not known yet (always so on the server). */
  isLoading: boolean;
  /** `status === 'authenticated'`. */
  isAuthenticated: boolean;
  /** The validated ID token claims, when signed in. */
  user: (IdTokenClaims & Claims) | undefined;
  /** The raw ID token, when signed in: for apps that must pass it on (e.g. as an `id_token_hint`). */
  idToken: string | undefined;
  /** Why the last login or refresh failed, when `status` is `'error'`. */
  error: AuthSnapshot['error'];
  login: BrowserClient['login'];
  logout: BrowserClient['logout'];
  getAccessToken: BrowserClient['getAccessToken'];
  /** `fetch` with the access token attached; refreshes and retries once on a 401 (`authorizedFetch` of the client). */
  fetch: AuthorizedFetch;
  /** The client itself, for events (`client.on(...)`) and less common calls. */
  client: BrowserClient;
}

// What a server render (and hydration) sees: the session is only known in the browser.
const SERVER_SNAPSHOT: AuthSnapshot = Object.freeze({ status: 'loading' });
const getServerSnapshot = (): AuthSnapshot => SERVER_SNAPSHOT;

/**
 * The signed-in state of the nearest {@link AuthProvider}'s client. Re-renders only when the
 * client's snapshot changes (not on every notification). The type parameter types custom
 * claims; it is a claim about your provider's tokens, not a check.
 *
 * @throws OidcError `invalid_options` when used outside an {@link AuthProvider}.
 *
 * @example
 * ```tsx
 * function Profile() {
 *   const { isLoading, isAuthenticated, user, login, logout } = useAuth<{ tenant: string }>();
 *   if (isLoading) return <p>Loading…</p>;
 *   if (!isAuthenticated) return <button onClick={() => login()}>Log in</button>;
 *   return <button onClick={() => logout()}>Log out {user?.name} ({user?.tenant})</button>;
 * }
 * ```
 */
export function useAuth<Claims extends object = Record<string, unknown>>(): AuthState<Claims> {
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
      fetch: authorizedFetch(client),
      client,
    }),
    [client],
  );
  return useMemo(
    () => ({
      status: snapshot.status,
      isLoading: snapshot.status === 'loading',
      isAuthenticated: snapshot.status === 'authenticated',
      user: snapshot.user as (IdTokenClaims & Claims) | undefined,
      idToken: snapshot.idToken,
      error: snapshot.error,
      ...actions,
    }),
    [snapshot, actions],
  );
}
