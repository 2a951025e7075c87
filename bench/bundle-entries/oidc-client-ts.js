// SPA usage of oidc-client-ts: login, callback, getAccessToken, logout.
import { UserManager } from 'oidc-client-ts';

const userManager = new UserManager({
  authority: 'https://id.example.com/acme',
  client_id: 'spa',
  redirect_uri: `${location.origin}/callback`,
  post_logout_redirect_uri: `${location.origin}/`,
  scope: 'openid profile email offline_access',
  response_type: 'code',
});

export const login = () => userManager.signinRedirect();
export const handleCallback = () => userManager.signinRedirectCallback();
export const getAccessToken = async () => {
  let user = await userManager.getUser();
  if (!user || user.expired) user = await userManager.signinSilent();
  return user?.access_token;
};
export const logout = () => userManager.signoutRedirect();
