// The usage every @oidc-rp/browser entry measures: login, callback, getAccessToken, logout.
export const options = {
  clientId: 'spa',
  redirectUri: `${location.origin}/callback`,
  postLogoutRedirectUri: `${location.origin}/`,
  scope: 'openid profile email offline_access',
};

export function usage(client, loginOptions) {
  return {
    login: () => client.login(loginOptions),
    handleCallback: async () => {
      if (client.isRedirectCallback()) await client.handleRedirectCallback();
      return client.init();
    },
    getAccessToken: () => client.getAccessToken(),
    logout: () => client.logout(),
  };
}
