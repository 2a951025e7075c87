// The @oidc-rp/browser usage with frontChannelLogout(client), a function over the client.
import { createBrowserClient, serviceProvider } from '@oidc-rp/browser';
import { frontChannelLogout } from '@oidc-rp/browser/session';
import { options, usage } from './oidc-rp-usage.js';

const client = createBrowserClient({ ...options, provider: serviceProvider('https://id.example.com/acme') });
export const { login, handleCallback, getAccessToken, logout } = usage(client);
export const fcl = frontChannelLogout(client);
