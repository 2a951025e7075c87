// SPA usage of @auth0/auth0-react (+ auth0-spa-js): login, callback, getAccessToken, logout.
import { Auth0Provider, useAuth0 } from '@auth0/auth0-react';
import { createRoot } from 'react-dom/client';

function App() {
  const { isLoading, isAuthenticated, user, loginWithRedirect, getAccessTokenSilently, logout } = useAuth0();
  if (isLoading) return <p>Loading…</p>;
  if (!isAuthenticated) return <button type="button" onClick={() => loginWithRedirect()}>Log in</button>;
  return (
    <>
      <p>Hello {user?.name}</p>
      <button type="button" onClick={async () => console.log(await getAccessTokenSilently())}>Call API</button>
      <button type="button" onClick={() => logout({ logoutParams: { returnTo: `${location.origin}/` } })}>Log out</button>
    </>
  );
}

createRoot(document.getElementById('root')).render(
  <Auth0Provider
    domain="id.example.com"
    clientId="spa"
    useRefreshTokens
    authorizationParams={{ redirect_uri: `${location.origin}/callback`, scope: 'openid profile email offline_access' }}
    onRedirectCallback={() => history.replaceState(null, '', '/')}
  >
    <App />
  </Auth0Provider>,
);
