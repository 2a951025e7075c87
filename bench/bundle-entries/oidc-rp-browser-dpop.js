// The @oidc-rp/browser usage with the dpop part: tokens bound to a non-extractable key kept in IndexedDB.
import { createBrowserClient, dpop, serviceProvider } from '@oidc-rp/browser';
import { options, usage } from './oidc-rp-usage.js';

const client = createBrowserClient({ ...options, provider: serviceProvider('https://id.example.com/acme'), dpop: dpop() });
export const { login, handleCallback, getAccessToken, logout } = usage(client);
