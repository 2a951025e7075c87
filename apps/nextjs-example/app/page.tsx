// A server component: the session read on the server (the proxy has refreshed it already).
import { headers } from 'next/headers';
// The SPA example's table (a plain component): both demo apps show claims alike.
import { ClaimsTable } from '../../spa-example/src/ClaimsTable';
import { getAuth, tokenFingerprint } from '../lib/auth';

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
      {/* The token this render holds (refreshed by the proxy in this same request when due), by fingerprint only. */}
      <p data-testid="access-token" data-fingerprint={tokenFingerprint(session.accessToken)} data-expires-at={session.accessTokenExpiresAt}>
        Access token {tokenFingerprint(session.accessToken)}
        {session.accessTokenExpiresAt ? `, valid until ${new Date(session.accessTokenExpiresAt * 1000).toISOString()}` : ''}.
      </p>
      <ClaimsTable claims={session.user} />
      <form method="post" action="/auth/logout" style={{ marginTop: '1rem' }}>
        <input type="hidden" name="csrf_token" value={session.csrfToken} />
        <button type="submit" data-testid="logout-button">
          Log out
        </button>
      </form>
    </>
  );
}
