// The @oidc-rp/browser usage with the revocation part: logout() revokes the refresh token.
import { createBrowserClient, revocation, serviceProvider } from '@oidc-rp/browser';
import { options, usage } from './oidc-rp-usage.js';

const client = createBrowserClient({ ...options, provider: serviceProvider('https://id.example.com/acme'), revocation });
export const { login, handleCallback, getAccessToken, logout } = usage(client);
