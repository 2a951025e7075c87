// SPA usage of @azure/msal-browser: login, callback, getAccessToken, logout.
import { PublicClientApplication } from '@azure/msal-browser';

const msal = new PublicClientApplication({
  auth: {
    clientId: 'spa',
    authority: 'https://id.example.com/acme',
    knownAuthorities: ['id.example.com'],
    redirectUri: `${location.origin}/callback`,
    postLogoutRedirectUri: `${location.origin}/`,
  },
});
const ready = msal.initialize();

export const login = async () => {
  await ready;
  await msal.loginRedirect({ scopes: ['openid', 'profile', 'email', 'offline_access'] });
};
export const handleCallback = async () => {
  await ready;
  return msal.handleRedirectPromise();
};
export const getAccessToken = async () => {
  await ready;
  const [account] = msal.getAllAccounts();
  const result = await msal.acquireTokenSilent({ scopes: ['openid', 'profile'], account });
  return result.accessToken;
};
export const logout = () => msal.logoutRedirect();
