// SPA usage of @oidc-rp/browser: login, callback, getAccessToken, logout (code flow + PKCE, full
// ID-token signature validation; the provider's metadata from the service preset, no discovery).
import { createBrowserClient, serviceProvider } from '@oidc-rp/browser';

const client = createBrowserClient({
  provider: serviceProvider('https://id.example.com/acme'),
  clientId: 'spa',
  redirectUri: `${location.origin}/callback`,
  postLogoutRedirectUri: `${location.origin}/`,
  scope: 'openid profile email offline_access',
});

export const login = () => client.login();
export const handleCallback = async () => {
  if (client.isRedirectCallback()) await client.handleRedirectCallback();
  return client.init();
};
export const getAccessToken = () => client.getAccessToken();
export const logout = () => client.logout();
