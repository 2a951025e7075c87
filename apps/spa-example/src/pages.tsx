import { RequireAuth, useAuth } from '@oidc-rp/react';
import { ApiPanel } from './ApiPanel';
import { ClaimsTable } from './ClaimsTable';
import { ErrorNotice } from './ErrorNotice';
import { isCancelled } from './error-text';
import { Link } from './Link';
import { SignedOutNotice } from './SignedOutNotice';
import { TokenStatus } from './TokenStatus';
import { navigate } from './navigation';

/** Signed out: a login button. Signed in: the user's claims and the API call. */
type LoginOptions = NonNullable<Parameters<ReturnType<typeof useAuth>['login']>[0]>;

export function HomePage({ apiUrl, demoApiUrl, loginOptions }: { apiUrl: string; demoApiUrl: string; loginOptions: LoginOptions }) {
  const { status, user, error, login } = useAuth();

  if (status === 'loading') return <p data-testid="loading">Checking your session…</p>;

  if (status !== 'authenticated' || !user) {
    return (
      <section>
        <h1>Welcome</h1>
        {status === 'error' && <ErrorNotice error={error} />}
        {status !== 'error' && <SignedOutNotice />}
        <p>
          Log in with the reference server's demo tenant as <strong>alice</strong> / <strong>wonderland</strong>.
        </p>
        <button type="button" data-testid="login-button" onClick={() => void login(loginOptions)}>
          {status === 'error' ? 'Try again' : 'Log in'}
        </button>
      </section>
    );
  }

  return (
    <section>
      <h1>Hello, {user.name ?? user.sub}</h1>
      <TokenStatus />
      <h2>Your ID token claims</h2>
      <ClaimsTable claims={user} />
      <ApiPanel apiUrl={apiUrl} />
      <ApiPanel apiUrl={demoApiUrl} title="Demo API (token checked by the API)" testIds="demo-" />
    </section>
  );
}

/** The redirect URI. The client finishes the login; on success AuthProvider's callback navigates away. */
export function CallbackPage({ loginOptions }: { loginOptions: LoginOptions }) {
  const { status, error, login } = useAuth();
  if (status === 'error') {
    const cancelled = isCancelled(error);
    return (
      <section>
        <h1>{cancelled ? 'Sign-in cancelled' : 'Login failed'}</h1>
        <ErrorNotice error={error} />
        {!cancelled && <p>No session was created.</p>}
        <p className="actions">
          <button type="button" data-testid="retry-login-button" onClick={() => void login(loginOptions)}>
            Try again
          </button>{' '}
          <button type="button" className="secondary" onClick={() => navigate('/', { replace: true })}>
            Back to the start
          </button>
        </p>
      </section>
    );
  }
  if (status === 'loading') return <p data-testid="loading">Completing the login…</p>;
  return (
    <p>
      Nothing to complete here.{' '}
      <Link to="/" replace>
        Go to the start page
      </Link>
      .
    </p>
  );
}

/** Only for signed-in users: RequireAuth starts the login and brings the user back here. */
export function ProtectedPage({ loginOptions }: { loginOptions: LoginOptions }) {
  return (
    <RequireAuth fallback={<ProtectedFallback />} loginOptions={loginOptions}>
      <ProtectedContent />
    </RequireAuth>
  );
}

function ProtectedFallback() {
  const { status, error } = useAuth();
  if (status === 'error') return <ErrorNotice error={error} />;
  return <p data-testid="loading">Sending you to the login page…</p>;
}

function ProtectedContent() {
  const { user } = useAuth();
  return (
    <section data-testid="protected-content">
      <h1>Protected page</h1>
      <p>
        Only signed-in users see this. You are <strong>{user?.name ?? user?.sub}</strong>.
      </p>
    </section>
  );
}

export function NotFoundPage() {
  return (
    <section>
      <h1>Page not found</h1>
      <Link to="/">Go to the start page</Link>
    </section>
  );
}
