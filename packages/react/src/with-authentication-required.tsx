import type { ComponentType, ReactNode } from 'react';
import { RequireAuth, type RequireAuthProps } from './require-auth';

/**
 * Options of {@link withAuthenticationRequired}: those of {@link RequireAuth}.
 *
 * @example
 * ```tsx
 * const options: WithAuthenticationRequiredOptions = { fallback: <Spinner />, loginOptions: { prompt: 'login' } };
 * ```
 */
export type WithAuthenticationRequiredOptions = Omit<RequireAuthProps, 'children'>;

/**
 * Wraps a component so that it renders only when signed in; otherwise a login starts, as with
 * {@link RequireAuth} (same behaviour: one login, `appState.returnTo`, no loop after an error).
 *
 * @example
 * ```tsx
 * const ProtectedDashboard = withAuthenticationRequired(Dashboard, { fallback: <p>Signing you in…</p> });
 * <Route path="/dashboard" element={<ProtectedDashboard />} />
 * ```
 */
export function withAuthenticationRequired<Props extends object>(
  Component: ComponentType<Props>,
  options: WithAuthenticationRequiredOptions = {},
): ComponentType<Props> {
  function WithAuthenticationRequired(props: Props): ReactNode {
    return (
      <RequireAuth {...options}>
        <Component {...props} />
      </RequireAuth>
    );
  }
  WithAuthenticationRequired.displayName = `withAuthenticationRequired(${Component.displayName ?? Component.name ?? 'Component'})`;
  return WithAuthenticationRequired;
}
