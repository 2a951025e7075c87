/**
 * What a person gets who opens the server itself in a browser: at `/` a small page listing the
 * tenants (their start page and discovery document), and on a path that does not exist the
 * same links under a "not found" heading. Programs (no `text/html` in `Accept`) get the JSON
 * 404 of the contract's error shape, as before. Links are relative to the server's root, so no
 * `Host` header ever shapes them.
 */
import type { Tenant } from '../config/model';
import { jsonResponse } from '../http/errors';
import { html, htmlPage } from '../http/html';

/**
 * Whether the request asks for HTML: `text/html` accepted with a non-zero quality (a browser's
 * navigation), not merely `*\/*`.
 *
 * @example
 * if (wantsHtml(request)) return serverHome(tenants, '/');
 */
export function wantsHtml(request: Request): boolean {
  return (request.headers.get('accept') ?? '')
    .split(',')
    .map((part) => part.trim().toLowerCase().split(';'))
    .some(([type, ...params]) => type === 'text/html' && !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p)));
}

/**
 * The root page (200) or the not-found page (404) in HTML when the request asks for it, else
 * the JSON 404.
 *
 * @example
 * app.notFound((c) => serverHome(c.req.raw, tenants));
 */
export function serverHome(request: Request, tenants: Iterable<Tenant>): Response {
  const root = new URL(request.url).pathname === '/';
  if (!wantsHtml(request) || (root && request.method !== 'GET' && request.method !== 'HEAD')) {
    return jsonResponse({ error: 'invalid_request', error_description: 'There is no such endpoint on this server.' }, 404);
  }
  const rows = [...tenants].map(
    (t) => html`<li><a href="/${encodeURIComponent(t.id)}/">${t.name}</a> <span class="muted">(<code>${t.id}</code>)</span> &middot; <a href="/${encodeURIComponent(t.id)}/.well-known/openid-configuration">discovery</a></li>`,
  );
  const list = html`<h2>Tenants</h2><ul id="tenants">${rows}</ul>
<p class="muted">Each tenant is an issuer of its own: <code>{this origin}/{tenant id}</code>.</p>`;
  if (root) {
    return htmlPage({
      title: 'oidc-rp reference server',
      body: html`<h1>oidc-rp reference server</h1>
<p>An OAuth 2.0 / OpenID Connect authorization server for development and tests. Open a tenant's start page to see its users and clients, or point your application at its discovery document.</p>
${list}`,
    });
  }
  return htmlPage({
    status: 404,
    title: 'Page not found · oidc-rp reference server',
    body: html`<h1>Page not found</h1>
<p class="error" role="alert">There is no page at this address on this server.</p>
${list}`,
  });
}
