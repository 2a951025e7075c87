import { createBrowserClient, crossTab, discovery, dpop, revocation } from '@oidc-rp/browser';
import { AuthProvider } from '@oidc-rp/react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { readConfig } from './config';
import { ErrorNotice } from './ErrorNotice';
import { navigate, safeReturnPath } from './navigation';
import './styles.css';

const root = createRoot(document.getElementById('root') as HTMLElement);

try {
  const config = readConfig();
  // Created once, outside React: every render and every tab-local component shares it.
  const client = createBrowserClient({
    provider: discovery(config.issuer), // the metadata comes from the issuer's discovery document
    clientId: config.clientId,
    redirectUri: config.redirectUri,
    postLogoutRedirectUri: config.postLogoutRedirectUri,
    // Opt-in part: the tabs act as one (a logout ends every tab); with indexedDB they share one session and its refreshes.
    // A session kept across reloads is the documented setup: shared in IndexedDB and bound to a
    // non-extractable DPoP key (dpop()), so a copied token or refresh token is of no use.
    ...(config.tokenStorage === 'indexedDB'
      ? { crossTab: crossTab({ storage: 'indexedDB' }), dpop: dpop() }
      : { tokenStorage: config.tokenStorage, crossTab: crossTab() }),
    revocation, // opt-in part: logout revokes the refresh token (the reference server's logout page leaves it valid)
  });
  root.render(
    <StrictMode>
      <AuthProvider client={client} onRedirectCallback={(appState) => navigate(safeReturnPath(appState), { replace: true })}>
        <App config={config} />
      </AuthProvider>
    </StrictMode>,
  );
} catch (error) {
  root.render(
    <main className="page">
      <h1>The example could not start</h1>
      <ErrorNotice error={error} />
    </main>,
  );
}
