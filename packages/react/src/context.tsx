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
export interface AuthProviderProps extends AuthProviderSettings {
  /** The app's client, created once at module level with `createBrowserClient`. */
  client: BrowserClient;
}

/**
 * The props of {@link AuthProvider} besides the client.
 *
 * @example
 * ```tsx
 * const settings: AuthProviderSettings = { onRedirectCallback: () => navigate('/') };
 * ```
 */
export interface AuthProviderSettings {
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
 * Give it a `client` created at module level (not in a component). It carries no code of its
 * own beyond starting the client: no discovery, no parts the client was not given. Where only
 * plain data can be passed (a Next.js server layout), use {@link AuthProviderWithOptions}.
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
