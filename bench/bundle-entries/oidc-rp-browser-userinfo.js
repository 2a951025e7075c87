// The @oidc-rp/browser usage with the userInfo part: getUserInfo().
import { createBrowserClient, serviceProvider, userInfo } from '@oidc-rp/browser';
import { options, usage } from './oidc-rp-usage.js';

const client = createBrowserClient({ ...options, provider: serviceProvider('https://id.example.com/acme'), userInfo });
export const { login, handleCallback, getAccessToken, logout } = usage(client);
export const getUserInfo = () => client.getUserInfo();
