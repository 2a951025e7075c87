// The @oidc-rp/browser usage with the logoutState part: logout() sends a state, the post-logout page checks it.
import { createBrowserClient, logoutState, serviceProvider } from '@oidc-rp/browser';
import { options, usage } from './oidc-rp-usage.js';

const check = logoutState();
const client = createBrowserClient({ ...options, provider: serviceProvider('https://id.example.com/acme'), logoutState: check });
export const { login, handleCallback, getAccessToken, logout } = usage(client);
export const handleLogoutCallback = () => check.handleLogoutCallback();
