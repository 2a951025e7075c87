// The example's HTML. `html` escapes every interpolated value.
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

function layout(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${title} · oidc-rp node example</title>
    <style>
      body { font: 16px/1.5 system-ui, sans-serif; max-width: 44rem; margin: 2rem auto; padding: 0 1rem; }
      pre { background: #f4f4f4; padding: 1rem; overflow-x: auto; }
      nav a { margin-right: 1rem; }
    </style>
  </head>
  <body>
    <h1>${title}</h1>
    ${body}
  </body>
</html>`;
}

export function homePage(claims: Record<string, unknown> | undefined): Html {
  if (!claims) {
    return layout(
      'Server-side login',
      html`<p>This Hono app logs you in with <code>@oidc-rp/node</code> (code flow, PKCE, form_post) against the reference server.</p>
        <nav><a href="/login">Log in</a> <a href="/api/data">Call the API (client credentials)</a></nav>
        <p>Demo user: <code>alice</code> / <code>wonderland</code>.</p>`,
    );
  }
  return layout(
    `Hello, ${String(claims.name ?? claims.sub)}`,
    html`<p>Validated ID token claims:</p>
      <pre id="claims">${JSON.stringify(claims, null, 2)}</pre>
      <nav><a href="/api/data">Call the API (client credentials)</a> <a href="/logout">Log out</a></nav>`,
  );
}

export function errorPage(code: string, message: string): Html {
  return layout(
    'Login failed',
    html`<p><strong>${code}</strong>: ${message}</p>
      <nav><a href="/login">Try again</a> <a href="/">Home</a></nav>`,
  );
}
