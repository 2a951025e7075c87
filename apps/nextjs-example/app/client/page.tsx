import { ClientStatus } from './client-status';

export default function ClientPage() {
  return (
    <>
      <h1>Client component</h1>
      <p>
        This part runs in the browser with <code>@oidc-rp/react</code> (public client <code>spa</code>, PKCE), from the{' '}
        <code>&lt;AuthProvider&gt;</code> in the root layout.
      </p>
      <ClientStatus />
    </>
  );
}
