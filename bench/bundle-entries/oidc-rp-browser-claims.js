// The @oidc-rp/browser usage with getUserInfo(client) and resolveClaims(client, claims), functions over the client.
import { createBrowserClient, getUserInfo, resolveClaims, serviceProvider } from '@oidc-rp/browser';
import { options, usage } from './oidc-rp-usage.js';

const client = createBrowserClient({ ...options, provider: serviceProvider('https://id.example.com/acme') });
export const { login, handleCallback, getAccessToken, logout } = usage(client);
export const claims = async () => resolveClaims(client, await getUserInfo(client));
