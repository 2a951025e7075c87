// The @oidc-rp/browser usage with the discovery part: `issuer` + `discover` instead of `provider`.
import { createBrowserClient, discover } from '@oidc-rp/browser';

const client = createBrowserClient({
  issuer: 'https://id.example.com/acme',
  discover,
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
