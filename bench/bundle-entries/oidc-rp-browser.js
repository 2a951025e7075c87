// SPA usage of @oidc-rp/browser: login, callback, getAccessToken, logout.
import { createBrowserClient } from '@oidc-rp/browser';

const client = createBrowserClient({
  issuer: 'https://id.example.com/acme',
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
