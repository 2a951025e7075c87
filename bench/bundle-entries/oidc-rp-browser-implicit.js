// The @oidc-rp/browser usage with the implicitFlow part (deprecated flow: tokens in the fragment).
import { createBrowserClient, implicitFlow, serviceProvider } from '@oidc-rp/browser';

const client = createBrowserClient({
  provider: serviceProvider('https://id.example.com/acme'),
  responseType: 'id_token token',
  implicitFlow,
  clientId: 'spa',
  redirectUri: `${location.origin}/callback`,
  postLogoutRedirectUri: `${location.origin}/`,
  scope: 'openid profile email',
});

export const login = () => client.login();
export const handleCallback = async () => {
  if (client.isRedirectCallback()) await client.handleRedirectCallback();
  return client.init();
};
export const getAccessToken = () => client.getAccessToken();
export const logout = () => client.logout();
