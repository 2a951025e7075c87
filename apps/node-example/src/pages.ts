// The example's HTML, with the SPA example's stylesheet so both demo apps look alike.
// `html` escapes every interpolated value.
import { readFileSync } from 'node:fs';
import type { Session, SignedOutReason } from '@oidc-rp/node';
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

// The same path from src/ (tests) and dist/ (the built server): apps/spa-example/src/styles.css.
const styles = readFileSync(new URL('../../spa-example/src/styles.css', import.meta.url), 'utf8');
const TIMES = new Set(['exp', 'iat', 'nbf', 'auth_time', 'updated_at']);

function layout(title: string, session: Session | undefined, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title} · oidc-rp node example</title>
    <link rel="icon" href="data:," />
    <style>
      ${raw(styles)}
      form.inline { display: inline; }
      dl.session { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; background: #fff; padding: 0.75rem 1rem; border: 1px solid #d0d7de; border-radius: 6px; }
      dl.session dt { color: #59636e; }
      dl.session dd { margin: 0; }
      .actions { display: flex; gap: 0.75rem; margin-top: 1rem; }
    </style>
  </head>
  <body>
    <div class="app">
      <header class="bar">
        <span class="brand">oidc-rp · node example</span>
        <nav><a href="/">Home</a> <a href="/api/data">API (client credentials)</a></nav>
        <span class="status ${session ? 'status-authenticated' : ''}" data-testid="status">${session ? 'Signed in' : 'Signed out'}</span>
      </header>
      <main class="page">
        <h1>${title}</h1>
        ${body}
      </main>
      <footer class="foot">A Hono server on <code>@oidc-rp/node</code>: code flow with PKCE and form_post, a sealed rolling session cookie, refresh on read.</footer>
    </div>
  </body>
</html>`;
}

/** What the home page tells a signed-out visitor about why. */
export function signedOutMessage(reason: SignedOutReason | undefined): string | undefined {
  switch (reason) {
    case 'expired':
      return 'Your session expired. Log in again to continue.';
    case 'invalid':
      return 'Your session could not be read (it was changed, or the server’s secret changed). Log in again.';
    case 'revoked':
      return 'Your session was ended: you signed out at the identity provider (back-channel logout), or the server ended it. Log in again.';
    case 'refresh_failed':
      return 'The identity provider ended your session (the refresh was refused). Log in again.';
    default:
      return undefined;
  }
}

export interface HomeState {
  session: Session | undefined;
  notice: 'refreshed' | undefined;
  signedOut: string | undefined;
  refreshError: string | undefined;
}

export function homePage({ session, notice, signedOut, refreshError }: HomeState): Html {
  if (!session) {
    return layout(
      'Server-side login',
      undefined,
      html`${signedOut ? html`<div class="notice notice-error" data-testid="signed-out-reason">${signedOut}</div>` : ''}
        <p>This Hono app logs you in on the server with <code>@oidc-rp/node</code> against the reference server. Your tokens stay on the server side, sealed in an HttpOnly cookie.</p>
        <p><a href="/login"><button type="button" data-testid="login-button">Log in</button></a></p>
        <p>Demo user: <code>alice</code> / <code>wonderland</code>.</p>`,
    );
  }
  const user = session.user;
  return layout(
    `Hello, ${String(user.name ?? user.sub)}`,
    session,
    html`${notice === 'refreshed' ? html`<div class="notice notice-ok" data-testid="notice">Tokens refreshed.</div>` : ''}
      ${refreshError ? html`<div class="notice notice-error">The provider could not be reached to refresh the tokens: ${refreshError}</div>` : ''}
      <h2>Session</h2>
      <dl class="session" data-testid="session">
        <dt>Access token expires</dt><dd data-testid="access-token-expires">${time(session.accessTokenExpiresAt)}</dd>
        <dt>Session ends if idle until</dt><dd data-testid="session-expires">${time(session.expiresAt)}</dd>
        <dt>Session ends at the latest</dt><dd>${time(session.absoluteExpiresAt)}</dd>
        <dt>Refresh token</dt><dd>${session.canRefresh ? 'yes (offline_access)' : 'no'}</dd>
      </dl>
      <div class="actions">
        <form class="inline" method="post" action="/refresh">
          <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
          <button type="submit" class="secondary" data-testid="refresh-button">Refresh tokens</button>
        </form>
        <form class="inline" method="post" action="/logout">
          <input type="hidden" name="csrf_token" value="${session.csrfToken}" />
          <button type="submit" data-testid="logout-button">Log out</button>
        </form>
      </div>
      <h2>ID token claims</h2>
      <table class="claims" data-testid="claims">
        <thead><tr><th>Claim</th><th>Value</th></tr></thead>
        <tbody>
          ${Object.entries(user).map(
            ([name, value]) =>
              html`<tr data-claim="${name}"><th scope="row"><code>${name}</code></th><td data-testid="claim-${name}">${format(name, value)}</td></tr>`,
          )}
        </tbody>
      </table>`,
  );
}

/** The client-credentials data as a page, with the way back and to the raw JSON. */
export function apiDataPage(data: Record<string, unknown>, session: Session | undefined): Html {
  return layout(
    'API (client credentials)',
    session,
    html`<p>This server got a token for its <code>service</code> client (client credentials, cached by the SDK) and called its own protected API, <code>/api/me</code>, with it. Reload: the same token fingerprint means the cached token was reused.</p>
      <pre class="json" data-testid="api-data">${JSON.stringify(data, null, 2)}</pre>
      <p class="actions"><a href="/" data-testid="back-home">Back to the home page</a> <a href="/api/data?format=json">The same as JSON</a></p>`,
  );
}

export function notFoundPage(path: string, session: Session | undefined): Html {
  return layout(
    'Page not found',
    session,
    html`<div class="notice notice-error" data-testid="not-found">There is no page at <code>${path}</code>.</div>
      <p><a href="/">Back to the home page</a></p>`,
  );
}

function time(epochSeconds: number | undefined): string {
  return epochSeconds === undefined ? 'unknown' : new Date(epochSeconds * 1000).toISOString().replace('.000Z', 'Z');
}

function format(name: string, value: unknown): string {
  if (TIMES.has(name) && typeof value === 'number') return `${value} (${time(value)})`;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
