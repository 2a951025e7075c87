// SPA usage of @auth0/auth0-spa-js: login, callback, getAccessToken, logout.
import { Auth0Client } from '@auth0/auth0-spa-js';

const auth0 = new Auth0Client({
  domain: 'id.example.com',
  clientId: 'spa',
  useRefreshTokens: true,
  authorizationParams: { redirect_uri: `${location.origin}/callback`, scope: 'openid profile email offline_access' },
});

export const login = () => auth0.loginWithRedirect();
export const handleCallback = () => auth0.handleRedirectCallback();
export const getAccessToken = () => auth0.getTokenSilently();
export const logout = () => auth0.logout({ logoutParams: { returnTo: `${location.origin}/` } });
