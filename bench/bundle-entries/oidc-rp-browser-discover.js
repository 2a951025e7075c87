// The @oidc-rp/browser usage with the discovery part: `issuer` + `discover` instead of `provider`.
import { createBrowserClient, discovery } from '@oidc-rp/browser';
import { options, usage } from './oidc-rp-usage.js';

const client = createBrowserClient({ ...options, provider: discovery('https://id.example.com/acme') });
export const { login, handleCallback, getAccessToken, logout } = usage(client);
