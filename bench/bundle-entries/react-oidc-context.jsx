// SPA usage of react-oidc-context (+ oidc-client-ts): login, callback, getAccessToken, logout.
import { AuthProvider, useAuth } from 'react-oidc-context';
import { createRoot } from 'react-dom/client';

const oidcConfig = {
  authority: 'https://id.example.com/acme',
  client_id: 'spa',
  redirect_uri: `${location.origin}/callback`,
  post_logout_redirect_uri: `${location.origin}/`,
  scope: 'openid profile email offline_access',
  onSigninCallback: () => history.replaceState(null, '', '/'),
};

function App() {
  const auth = useAuth();
  if (auth.isLoading) return <p>Loading…</p>;
  if (!auth.isAuthenticated) return <button type="button" onClick={() => auth.signinRedirect()}>Log in</button>;
  const getAccessToken = async () => (auth.user?.expired ? (await auth.signinSilent())?.access_token : auth.user?.access_token);
  return (
    <>
      <p>Hello {auth.user?.profile.name}</p>
      <button type="button" onClick={async () => console.log(await getAccessToken())}>Call API</button>
      <button type="button" onClick={() => auth.signoutRedirect()}>Log out</button>
    </>
  );
}

createRoot(document.getElementById('root')).render(
  <AuthProvider {...oidcConfig}>
    <App />
  </AuthProvider>,
);
