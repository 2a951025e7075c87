/**
 * React bindings for `@oidc-rp/browser`: {@link AuthProvider}, {@link AuthProviderWithOptions},
 * {@link useAuth}, {@link RequireAuth}, {@link withAuthenticationRequired}.
 * @packageDocumentation
 */
export { AuthProvider, type AuthProviderProps, type AuthProviderSettings } from './context';
export { AuthProviderWithOptions, type AuthProviderWithOptionsProps, type PlainClientOptions } from './with-options';
export { RequireAuth, type RequireAuthProps } from './require-auth';
export { useAuth, type AuthState } from './use-auth';
export { withAuthenticationRequired, type WithAuthenticationRequiredOptions } from './with-authentication-required';
