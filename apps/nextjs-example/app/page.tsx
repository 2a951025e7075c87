// A server component: the session read on the server (the proxy has refreshed it already).
import { headers } from 'next/headers';
import { getAuth } from '../lib/auth';

const TIMES = new Set(['exp', 'iat', 'nbf', 'auth_time', 'updated_at']);

export default async function Home() {
  const { session } = await getAuth().getSession(await headers(), { refresh: false });
  if (!session) {
    return (
      <>
        <h1>Server-side login</h1>
        <p data-testid="status" data-status="unauthenticated">
          Signed out. This page is a server component; the session is a sealed HttpOnly cookie.
        </p>
        <p>
          <a href="/auth/login" data-testid="login-link">
            Log in
          </a>{' '}
          (demo user <code>alice</code> / <code>wonderland</code>)
        </p>
      </>
    );
  }
  return (
    <>
      <h1>Hello, {String(session.user.name ?? session.user.sub)}</h1>
      <p data-testid="status" data-status="authenticated">
        Session until {new Date(session.expiresAt * 1000).toISOString()} (rolling).
      </p>
      <table className="claims" data-testid="claims">
        <thead>
          <tr>
            <th>Claim</th>
            <th>Value</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(session.user).map(([name, value]) => (
            <tr key={name}>
              <th scope="row">
                <code>{name}</code>
              </th>
              <td data-testid={`claim-${name}`}>{format(name, value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <form method="post" action="/auth/logout" style={{ marginTop: '1rem' }}>
        <input type="hidden" name="csrf_token" value={session.csrfToken} />
        <button type="submit" data-testid="logout-button">
          Log out
        </button>
      </form>
    </>
  );
}

function format(name: string, value: unknown): string {
  if (TIMES.has(name) && typeof value === 'number') return `${value} (${new Date(value * 1000).toISOString()})`;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
