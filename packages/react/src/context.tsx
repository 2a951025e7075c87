import { type BrowserClient, type BrowserClientOptions, createBrowserClient, discover, revocation } from '@oidc-rp/browser';
import { createContext, useEffect, useRef, useState, type ReactNode } from 'react';

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
export type AuthProviderProps = AuthProviderSettings & ({ client: BrowserClient; options?: never } | { options: BrowserClientOptions; client?: never });

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
 * Give it a `client` created at module level (not in a component), or plain `options` (the
 * provider then creates the client once, from the options of its first render). Plain options
 * are what a Next.js server component, such as the root layout, can pass.
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
export function AuthProvider({ client: given, options, onRedirectCallback, children }: AuthProviderProps): ReactNode {
  // Created once: later option objects (a re-render makes new ones) are not a new client.
  // Plain options come from places that cannot pass functions (a Next.js server layout), so
  // Plain-data options cannot carry parts: discovery (for an `issuer`) and revocation at logout
  // come with them. A module-level `client` keeps every part opt-in.
  const [created] = useState(() => (given ? undefined : createBrowserClient({ discover, revocation, ...(options as BrowserClientOptions) })));
  const client = given ?? (created as BrowserClient);
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
