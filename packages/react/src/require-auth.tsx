import type { BrowserClient } from '@oidc-rp/browser';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useAuth } from './use-auth';

/**
 * Props of {@link RequireAuth}.
 *
 * @example
 * ```tsx
 * <RequireAuth fallback={<Spinner />} loginOptions={{ prompt: 'login' }}>…</RequireAuth>
 * ```
 */
export interface RequireAuthProps {
  children?: ReactNode;
  /** Rendered while the session is loading, while the login starts, and when it failed. Default: nothing. */
  fallback?: ReactNode;
  /** Extra options for the login this component starts (e.g. `{ prompt: 'login' }`). */
  loginOptions?: Parameters<BrowserClient['login']>[0];
}

/**
 * Renders its children only when signed in. When the session turns out to be absent, it starts a
 * login once, with `appState: { returnTo }` set to the current path (read it back in
 * `AuthProvider`'s `onRedirectCallback`). On status `'error'` it does not retry: it renders the
 * fallback, so a failing login cannot loop. A login that cannot even start is thrown to the
 * nearest error boundary.
 *
 * @example
 * ```tsx
 * <RequireAuth fallback={<p>Signing you in…</p>}>
 *   <Dashboard />
 * </RequireAuth>
 * ```
 */
export function RequireAuth({ children, fallback = null, loginOptions }: RequireAuthProps): ReactNode {
  const { status, login } = useAuth();
  // A ref, not state: it survives StrictMode's double effects, so the login starts once.
  const started = useRef(false);
  const [failure, setFailure] = useState<{ error: unknown }>();
  if (failure) throw failure.error;

  useEffect(() => {
    if (status !== 'unauthenticated' || started.current) return;
    started.current = true;
    const { pathname, search, hash } = window.location;
    login({ appState: { returnTo: pathname + search + hash }, ...loginOptions }).catch((error: unknown) =>
      setFailure({ error }),
    );
  }, [status, login, loginOptions]);

  return status === 'authenticated' ? children : fallback;
}
