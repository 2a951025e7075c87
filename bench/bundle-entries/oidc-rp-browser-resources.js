// The @oidc-rp/browser usage with the resources part: logins ask for two APIs (RFC 8707), and a token for one of them comes from the refresh token.
import { createBrowserClient, resourceIndicators, serviceProvider } from '@oidc-rp/browser';
import { options, usage } from './oidc-rp-usage.js';

const client = createBrowserClient({
  ...options,
  provider: serviceProvider('https://id.example.com/acme'),
  resources: resourceIndicators({ resources: ['https://api.example.com/', 'https://files.example.com/'] }),
});
export const { login, handleCallback, getAccessToken, logout } = usage(client);
export const getApiToken = () => client.resources.getAccessToken('https://api.example.com/');
