// The @oidc-rp/browser usage with the popupLogin part: login({ popup: true }).
import { createBrowserClient, popupLogin, serviceProvider } from '@oidc-rp/browser';
import { options, usage } from './oidc-rp-usage.js';

const client = createBrowserClient({ ...options, provider: serviceProvider('https://id.example.com/acme'), popupLogin });
export const { login, handleCallback, getAccessToken, logout } = usage(client, { popup: true });
