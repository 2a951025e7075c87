// The @oidc-rp/browser usage with the userInfo part: getUserInfo().
import { createBrowserClient, serviceProvider, userInfo } from '@oidc-rp/browser';

const client = createBrowserClient({
  provider: serviceProvider('https://id.example.com/acme'),
  userInfo,
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
export const getUserInfo = () => client.getUserInfo();
export const logout = () => client.logout();
