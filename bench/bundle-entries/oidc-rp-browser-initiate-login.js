// The @oidc-rp/browser usage with loginFromInitiation(client), a function over the client.
import { createBrowserClient, loginFromInitiation, serviceProvider } from '@oidc-rp/browser';
import { options, usage } from './oidc-rp-usage.js';

const client = createBrowserClient({ ...options, provider: serviceProvider('https://id.example.com/acme') });
export const { login, handleCallback, getAccessToken, logout } = usage(client);
export const initiated = () => loginFromInitiation(client);
