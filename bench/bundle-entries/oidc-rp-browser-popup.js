// The @oidc-rp/browser usage with the popupLogin part: login({ popup: true }).
import { createBrowserClient, popupLogin, serviceProvider } from '@oidc-rp/browser';

const client = createBrowserClient({
  provider: serviceProvider('https://id.example.com/acme'),
  popupLogin,
  clientId: 'spa',
  redirectUri: `${location.origin}/callback`,
  postLogoutRedirectUri: `${location.origin}/`,
  scope: 'openid profile email offline_access',
});

export const login = () => client.login({ popup: true });
export const handleCallback = async () => {
  if (client.isRedirectCallback()) await client.handleRedirectCallback();
  return client.init();
};
export const getAccessToken = () => client.getAccessToken();
export const logout = () => client.logout();
