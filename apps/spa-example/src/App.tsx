import { useAuth } from '@oidc-rp/react';
import type { ReactNode } from 'react';
import type { ExampleConfig } from './config';
import { CallbackPage, HomePage, NotFoundPage, ProtectedPage } from './pages';
import { Link } from './Link';
import { usePath } from './navigation';
import { markSigningOut } from './signed-out';

const STATUS_LABEL = {
  loading: 'Checking session…',
  authenticated: 'Signed in',
  unauthenticated: 'Signed out',
  error: 'Error',
} as const;

/** Layout and the three routes: `/`, `/protected` and the login callback `/callback`. */
export function App({ config }: { config: ExampleConfig }) {
  const path = usePath();
  const { status, user, logout } = useAuth();

  let page: ReactNode;
  // The login asks for tokens the demo's protected API accepts (RFC 8707 resource).
  const loginOptions = { extra: { resource: config.demoApiResource } };
  if (path === '/') page = <HomePage apiUrl={config.apiUrl} demoApiUrl={config.demoApiUrl} loginOptions={loginOptions} />;
  else if (path === '/protected') page = <ProtectedPage loginOptions={loginOptions} />;
  else if (path === new URL(config.redirectUri).pathname) page = <CallbackPage loginOptions={loginOptions} />;
  else page = <NotFoundPage />;

  return (
    <div className="app">
      <header className="bar">
        <span className="brand">oidc-rp · React example</span>
        <nav>
          <Link to="/">Home</Link>
          <Link to="/protected">Protected page</Link>
        </nav>
        <span className={`status status-${status}`} data-testid="status" data-status={status}>
          {STATUS_LABEL[status]}
          {status === 'authenticated' && user?.name ? ` as ${user.name}` : ''}
        </span>
        {status === 'authenticated' && (
          <button type="button" className="secondary" data-testid="logout-button" onClick={() => {
              markSigningOut();
              void logout();
            }}>
            Log out
          </button>
        )}
      </header>
      <main className="page">{page}</main>
      <footer className="foot">
        issuer <code>{config.issuer}</code> · client <code>{config.clientId}</code> · tokens in{' '}
        <code>{config.tokenStorage}</code>
      </footer>
    </div>
  );
}
