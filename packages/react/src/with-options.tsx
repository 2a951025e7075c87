import { type BrowserClientOptions, type ProviderMetadata, createBrowserClient, discovery, resourceIndicators, revocation } from '@oidc-rp/browser';
import { useState, type ReactNode } from 'react';
import { AuthProvider, type AuthProviderSettings } from './context';

/**
 * The client's options as plain, serialisable data: what a React Server Component (a Next.js
 * root layout) can pass to a client component. Give the provider as `issuer` (discovered on
 * first use) or as `provider` metadata.
 *
 * @example
 * ```ts
 * const options: PlainClientOptions = { issuer: 'http://127.0.0.1:4000/demo', clientId: 'spa', redirectUri };
 * ```
 */
export type PlainClientOptions = Pick<
  BrowserClientOptions,
  'clientId' | 'redirectUri' | 'postLogoutRedirectUri' | 'scope' | 'refreshLeeway' | 'clockTolerance'
> & {
  /** `'memory'` (default) or `'sessionStorage'`. */
  tokenStorage?: 'memory' | 'sessionStorage';
  /**
   * Your APIs' resource identifiers (RFC 8707): the client then has the `resourceIndicators`
   * part, and `useAuth().fetch` sends each API its own token (nothing to other URLs).
   */
  resources?: string[];
} & ({ issuer: string; provider?: never } | { provider: ProviderMetadata; issuer?: never });

/**
 * Props of {@link AuthProviderWithOptions}.
 *
 * @example
 * ```tsx
 * const props: AuthProviderWithOptionsProps = { options: { issuer, clientId: 'spa', redirectUri } };
 * ```
 */
export interface AuthProviderWithOptionsProps extends AuthProviderSettings {
  options: PlainClientOptions;
}

/**
 * {@link AuthProvider} for plain options: creates the client once, from the options of its first
 * render (later option objects are not a new client), with discovery for an `issuer` and
 * revocation at logout, the parts plain data cannot carry. An app that creates its client
 * itself uses `AuthProvider` and ships neither unless it passes them.
 *
 * @example
 * ```tsx
 * <AuthProviderWithOptions options={{ issuer: 'http://127.0.0.1:4000/demo', clientId: 'spa', redirectUri }}>
 *   {children}
 * </AuthProviderWithOptions>
 * ```
 */
export function AuthProviderWithOptions({ options, ...settings }: AuthProviderWithOptionsProps): ReactNode {
  const [client] = useState(() => {
    const { issuer, provider, resources, ...rest } = options;
    return createBrowserClient({
      ...rest,
      provider: provider ?? discovery(issuer as string),
      revocation,
      ...(resources ? { resources: resourceIndicators({ resources }) } : {}),
    });
  });
  return <AuthProvider client={client} {...settings} />;
}
