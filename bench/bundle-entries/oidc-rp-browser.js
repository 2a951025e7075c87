// SPA usage of @oidc-rp/browser: login, callback, getAccessToken, logout (code flow + PKCE, full
// ID-token signature validation; the provider's metadata from the service preset, no discovery).
import { createBrowserClient, serviceProvider } from '@oidc-rp/browser';
import { options, usage } from './oidc-rp-usage.js';

const client = createBrowserClient({ ...options, provider: serviceProvider('https://id.example.com/acme') });
export const { login, handleCallback, getAccessToken, logout } = usage(client);
