import type { BrowserClient } from '@oidc-rp/browser';
import { createContext, useEffect, useRef, type ReactNode } from 'react';

/** The client the nearest {@link AuthProvider} holds; `undefined` outside any provider. */
export const AuthContext = createContext<BrowserClient | undefined>(undefined);

/**
 * Props of {@link AuthProvider}.
 *
 * @example
 * ```tsx
 * const props: AuthProviderProps = { client, onRedirectCallback: () => navigate('/') };
 * ```
 */
export interface AuthProviderProps {
  /** The browser client, created once outside the component tree. */
  client: BrowserClient;
  /**
   * Called once when the page was opened as a login callback and the login completed, with the
   * `appState` given to `login()` (for {@link RequireAuth}: `{ returnTo }`). Use it to go back to
   * the page the user came from.
   */
  onRedirectCallback?: (appState: unknown) => void;
  children?: ReactNode;
}

/**
 * Makes a browser client available to {@link useAuth} and {@link RequireAuth}, and starts it:
 * restores the session, or finishes the login when the page is the redirect callback.
 *
 * Create the client at module level (not in a component), so every render sees the same one.
 *
 * @example
 * ```tsx
 * const client = createBrowserClient({
 *   provider: serviceProvider('http://127.0.0.1:4000/demo'),
 *   clientId: 'spa',
 *   redirectUri: 'http://127.0.0.1:5173/callback',
 * });
 *
 * createRoot(document.getElementById('root')!).render(
 *   <AuthProvider client={client} onRedirectCallback={(appState) => history.replaceState(null, '', '/')}>
 *     <App />
 *   </AuthProvider>,
 * );
 * ```
 */
export function AuthProvider({ client, onRedirectCallback, children }: AuthProviderProps): ReactNode {
  // Refs survive StrictMode's simulated unmount/remount, so each client starts exactly once.
  const started = useRef<BrowserClient | undefined>(undefined);
  const onCallback = useRef(onRedirectCallback);
  useEffect(() => {
    onCallback.current = onRedirectCallback;
  });

  useEffect(() => {
    if (started.current === client) return;
    started.current = client;
    const url = window.location.href;
    // A failed start is reported through the snapshot (status 'error'), not by this promise.
    client.init().catch(ignore);
    if (onCallback.current && client.isRedirectCallback(url)) {
      // Same URL as init() handles, so the client returns that one result (no second exchange).
      client.handleRedirectCallback(url).then(({ appState }) => onCallback.current?.(appState), ignore);
    }
  }, [client]);

  return <AuthContext.Provider value={client}>{children}</AuthContext.Provider>;
}

function ignore(): void {}
