/**
 * The tenant root, `GET {base}/` (`{base}` redirects there): a page for people saying what this server is and
 * where its discovery document is. Development tenants also list their users and clients
 * (passwords only with `demo_login`, where anyone may sign in as them with one click anyway)
 * and show a signed-in browser its remembered consents with a button that forgets them
 * (`POST {base}/revoke-consent`), so that the consent page, and Deny, can be tried again.
 */
import { type Client, isConfidential, type Tenant } from '../config/model';
import { safeEqual } from '../crypto/secrets';
import { errorPage, html, htmlPage, type SafeHtml } from '../http/html';
import { forgetConsents, grantedConsents } from '../oauth/consent';
import { currentSession, sessionFormToken } from '../oauth/session';
import type { RequestContext } from '../request/context';
import { clientName, readForm } from './interaction';

const REVOKE_PURPOSE = 'revoke-consent';

/**
 * `GET {base}`: a permanent redirect to `{base}/`, whose path the tenant's cookies are scoped
 * to (`/{tenantId}/`): only there does the page know a signed-in browser.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '', kind: 'html', cors: false, methods: { GET: toTenantHome } }
 */
export async function toTenantHome(ctx: RequestContext): Promise<Response> {
  return new Response(null, { status: 308, headers: { Location: `${ctx.issuer}/${ctx.url.search}`, 'Cache-Control': 'no-store' } });
}

/**
 * `GET {base}/`: the tenant's start page.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/', kind: 'html', cors: false, methods: { GET: tenantHome } }
 */
export async function tenantHome(ctx: RequestContext): Promise<Response> {
  const { tenant } = ctx;
  const discoveryUrl = `${ctx.issuer}/.well-known/openid-configuration`;
  const intro = html`<p class="muted">oidc-rp reference server</p>
<h1>${tenant.name}</h1>
<p>An OpenID Connect provider for developing and testing relying parties: this tenant has its own issuer, signing keys, users and clients.</p>
<h2>Discovery</h2>
<p>Issuer: <code id="issuer">${ctx.issuer}</code></p>
<p><a href="${discoveryUrl}" id="discovery-url">${discoveryUrl}</a></p>`;
  const title = `${tenant.name} · oidc-rp reference server`;
  if (!tenant.development) return htmlPage({ title, body: intro });

  const forgotten = ctx.url.searchParams.get('consent') === 'forgotten';
  return htmlPage({
    title,
    wide: true,
    body: html`${intro}
<p class="muted">A development tenant: test users, http redirect URIs allowed. Never use it for real accounts.</p>
${forgotten ? html`<p class="notice" role="status" id="consent-forgotten">Your consents are forgotten: the next sign-in to each app asks again.</p>` : undefined}
${await signedInSection(ctx)}
${usersTable(tenant)}
${clientsTable(tenant)}`,
  });
}

/**
 * `POST {base}/revoke-consent` (development tenants): forgets every consent of the signed-in
 * user, then sends the browser back to the start page. Needs the session cookie and the form's
 * CSRF token, which is derived from it.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/revoke-consent', kind: 'html', cors: false, methods: { POST: revokeConsent } }
 */
export async function revokeConsent(ctx: RequestContext): Promise<Response> {
  if (!ctx.tenant.development) return errorPage(403, 'Consent can be forgotten here only on development tenants.', 'access_denied');
  const form = await readForm(ctx);
  if (form instanceof Response) return form;
  const session = await currentSession(ctx);
  if (!session) return errorPage(403, 'This browser is not signed in to this tenant, so there is no consent to forget.', 'access_denied');
  const expected = sessionFormToken(ctx, REVOKE_PURPOSE);
  const csrf = form.values.get('csrf');
  if (expected === undefined || csrf === undefined || form.invalid.size > 0 || !safeEqual(csrf, expected)) {
    return errorPage(403, 'The form could not be verified (CSRF token mismatch). Reload the start page and try again.', 'access_denied');
  }
  await forgetConsents(ctx, session.sub);
  ctx.server.logger.info(`tenant ${ctx.tenant.id}: a user's remembered consents were forgotten`);
  return new Response(null, { status: 303, headers: { Location: `${ctx.issuer}/?consent=forgotten`, 'Cache-Control': 'no-store' } });
}

async function signedInSection(ctx: RequestContext): Promise<SafeHtml | undefined> {
  const session = await currentSession(ctx);
  const csrf = sessionFormToken(ctx, REVOKE_PURPOSE);
  if (!session || csrf === undefined) return undefined;
  const grants = [...(await grantedConsents(ctx, session.sub))];
  const list = grants.map(([clientId, scopes]) => html`<li>${clientName(ctx.tenant.clients.get(clientId), clientId)}: <code>${scopes.join(' ')}</code></li>`);
  return html`<h2>This browser</h2>
<p>Signed in as <strong id="signed-in-user">${session.username}</strong>.</p>
${
  grants.length === 0
    ? html`<p id="no-consent">No consent is remembered: the next sign-in to an app asks for it.</p>`
    : html`<p>Remembered consent (the consent page is skipped for these):</p>
<ul id="consents">${list}</ul>
<form method="post" action="${ctx.issuer}/revoke-consent">
<input type="hidden" name="csrf" value="${csrf}">
<div class="actions"><button type="submit" id="revoke-consent">Forget my consents</button></div>
</form>
<p class="muted">The next sign-in asks again, so you can try Deny.</p>`
}`;
}

function usersTable(tenant: Tenant): SafeHtml {
  const passwords = tenant.demo_login;
  const rows = [...tenant.users.values()].map((user) => {
    const name = typeof user.claims.name === 'string' ? user.claims.name : '';
    return html`<tr><td><code>${user.username}</code></td><td>${name}</td>${passwords ? html`<td><code>${user.password}</code></td>` : undefined}</tr>`;
  });
  return html`<h2>Users</h2>
${
  rows.length === 0
    ? html`<p>None configured.</p>`
    : html`<table id="users"><thead><tr><th>Username</th><th>Name</th>${passwords ? html`<th>Password</th>` : undefined}</tr></thead><tbody>${rows}</tbody></table>`
}
${passwords ? html`<p class="muted">Passwords are shown because this tenant sets <code>demo_login</code>: its login page signs these users in with one click anyway.</p>` : undefined}`;
}

function clientsTable(tenant: Tenant): SafeHtml {
  const kind = (client: Client) => (isConfidential(client) ? 'confidential' : 'public');
  const rows = [...tenant.clients.values()].map(
    (client) => html`<tr><td><code>${client.client_id}</code></td><td>${clientName(client, client.client_id)}</td><td>${kind(client)}</td><td>${
      client.redirect_uris.length === 0 ? html`<span class="muted">none</span>` : client.redirect_uris.map((uri) => html`<code>${uri}</code><br>`)
    }</td></tr>`,
  );
  return html`<h2>Clients</h2>
${
  rows.length === 0
    ? html`<p>None configured.</p>`
    : html`<table id="clients"><thead><tr><th>client_id</th><th>Name</th><th>Type</th><th>Redirect URIs</th></tr></thead><tbody>${rows}</tbody></table>`
}`;
}
