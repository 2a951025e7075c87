// SPA usage of @oidc-rp/react (+ @oidc-rp/browser): login, callback, getAccessToken, logout.
import { createBrowserClient, serviceProvider } from '@oidc-rp/browser';
import { AuthProvider, useAuth } from '@oidc-rp/react';
import { createRoot } from 'react-dom/client';

const client = createBrowserClient({
  provider: serviceProvider('https://id.example.com/acme'),
  clientId: 'spa',
  redirectUri: `${location.origin}/callback`,
  postLogoutRedirectUri: `${location.origin}/`,
  scope: 'openid profile email offline_access',
});

function App() {
  const { status, user, login, logout, getAccessToken } = useAuth();
  if (status === 'loading') return <p>Loading…</p>;
  if (status !== 'authenticated') return <button type="button" onClick={() => login()}>Log in</button>;
  return (
    <>
      <p>Hello {user?.name}</p>
      <button type="button" onClick={async () => console.log(await getAccessToken())}>Call API</button>
      <button type="button" onClick={() => logout()}>Log out</button>
    </>
  );
}

createRoot(document.getElementById('root')).render(
  <AuthProvider client={client} onRedirectCallback={() => history.replaceState(null, '', '/')}>
    <App />
  </AuthProvider>,
);
