// The @oidc-rp/browser usage with the discovery part: `issuer` + `discover` instead of `provider`.
import { createBrowserClient, discover } from '@oidc-rp/browser';
import { options, usage } from './oidc-rp-usage.js';

const client = createBrowserClient({ ...options, issuer: 'https://id.example.com/acme', discover });
export const { login, handleCallback, getAccessToken, logout } = usage(client);
