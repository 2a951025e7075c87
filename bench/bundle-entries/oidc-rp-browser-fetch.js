// The @oidc-rp/browser usage plus authorizedFetch: API calls with the token, one retry on a 401.
import { authorizedFetch, createBrowserClient, serviceProvider } from '@oidc-rp/browser';
import { options, usage } from './oidc-rp-usage.js';

const client = createBrowserClient({ ...options, provider: serviceProvider('https://id.example.com/acme') });
export const { login, handleCallback, getAccessToken, logout } = usage(client);
export const api = authorizedFetch(client);
