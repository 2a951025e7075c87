// The @oidc-rp/browser usage with sessionManagement(client, options), a function over the client.
import { createBrowserClient, serviceProvider } from '@oidc-rp/browser';
import { sessionManagement } from '@oidc-rp/browser/session';
import { options, usage } from './oidc-rp-usage.js';

const client = createBrowserClient({ ...options, provider: serviceProvider('https://id.example.com/acme') });
export const { login, handleCallback, getAccessToken, logout } = usage(client);
export const sessions = sessionManagement(client, { clientId: options.clientId });
