'use client';
import { useAuth } from '@oidc-rp/react';

export function ClientStatus() {
  const { status, isLoading, isAuthenticated, user, error, login, logout } = useAuth();
  if (isLoading) return <p data-testid="client-status" data-status={status}>Loading…</p>;
  if (!isAuthenticated) {
    return (
      <>
        <p data-testid="client-status" data-status={status}>
          Signed out in the browser{error ? ` (${error.code})` : ''}.
        </p>
        <button type="button" data-testid="client-login" onClick={() => login()}>
          Log in (browser)
        </button>
      </>
    );
  }
  return (
    <>
      <p data-testid="client-status" data-status={status}>
        Signed in in the browser as <strong data-testid="client-user">{String(user?.name ?? user?.sub)}</strong>.
      </p>
      <button type="button" className="secondary" onClick={() => logout()}>
        Log out (browser)
      </button>
    </>
  );
}
