import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { AuthProviderWithOptions } from '@oidc-rp/react';
// The SPA example's stylesheet: both demo apps look alike.
import '../../spa-example/src/styles.css';

export const metadata: Metadata = { title: 'oidc-rp · Next.js example' };
// The provider's settings come from the environment at request time, not at build time.
export const dynamic = 'force-dynamic';

export default function RootLayout({ children }: { children: ReactNode }) {
  const appUrl = process.env.APP_BASE_URL ?? 'http://127.0.0.1:3001';
  return (
    <html lang="en">
      <body>
        {/* Plain options (serialisable), so this server component can render the client provider. */}
        <AuthProviderWithOptions
          options={{
            issuer: process.env.OIDC_ISSUER ?? 'http://127.0.0.1:4000/demo',
            clientId: process.env.SPA_CLIENT_ID ?? 'spa',
            redirectUri: new URL('/client', appUrl).href,
            postLogoutRedirectUri: new URL('/client', appUrl).href,
            scope: 'openid profile email',
          }}
        >
          <div className="app">
            <header className="bar">
              <span className="brand">oidc-rp · Next.js example</span>
              <nav>
                <a href="/">Server session</a>
                <a href="/api/me">Route handler</a>
                <a href="/client">Client component</a>
              </nav>
            </header>
            <main className="page">{children}</main>
          </div>
        </AuthProviderWithOptions>
      </body>
    </html>
  );
}
