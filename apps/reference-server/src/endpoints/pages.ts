/** The login, consent and signed-out pages. Plain, labelled forms that work without JavaScript. */
import { html, htmlPage } from '../http/html';
import { describeScope } from '../oauth/claims';

/** Who a page is for: the tenant's and the client's names as people read them. */
export interface Brand {
  tenantName: string;
  clientName: string;
}

/** The tenant's name above every sign-in page's heading. */
function brandLine(p: Brand) {
  return html`<p class="muted" id="tenant-name">${p.tenantName}</p>`;
}

/**
 * The sign-in form: `username`, `password`, hidden `interaction` and `csrf`, and
 * `action=login|cancel` buttons; with `demoUsers` (development tenants with `demo_login`) also
 * a second form whose buttons post `login_as=<username>` to sign in without a password.
 *
 * @example
 * return loginPage({ action: `${issuer}/oidc/login`, interaction: id, csrf, tenantName, clientName, message });
 */
export function loginPage(
  p: Brand & {
    action: string;
    interaction: string;
    csrf: string;
    username?: string;
    message?: string;
    status?: number;
    demoUsers?: readonly string[];
  },
): Response {
  const hidden = html`<input type="hidden" name="interaction" value="${p.interaction}">
<input type="hidden" name="csrf" value="${p.csrf}">`;
  const demo =
    p.demoUsers && p.demoUsers.length > 0
      ? html`<form method="post" action="${p.action}" aria-labelledby="demo-users">
${hidden}
<h2 id="demo-users">Demo users</h2>
<p class="muted">A development tenant: continue as one of its users without a password.</p>
<div class="users">${p.demoUsers.map((u) => html`<button type="submit" name="login_as" value="${u}">Continue as ${u}</button>`)}</div>
</form>`
      : undefined;
  return htmlPage({
    status: p.status ?? 200,
    title: `Sign in · ${p.tenantName}`,
    body: html`${brandLine(p)}<h1>Sign in</h1>
<p>to continue to <strong>${p.clientName}</strong></p>
${p.message ? html`<p class="error" role="alert" id="login-error">${p.message}</p>` : undefined}
<form method="post" action="${p.action}">
${hidden}
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required${p.username ? undefined : html` autofocus`} value="${p.username ?? ''}"${p.message ? html` aria-describedby="login-error"` : undefined}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${p.username ? html` autofocus` : undefined}>
<div class="actions">
<button type="submit" class="primary" name="action" value="login">Sign in</button>
<button type="submit" name="action" value="cancel" formnovalidate>Cancel</button>
</div>
</form>
${demo}`,
  });
}

/**
 * The consent form: the client, the requested scopes, and `decision=allow|deny` buttons.
 *
 * @example
 * return consentPage({ action: `${issuer}/oidc/consent`, interaction: id, csrf, tenantName, clientName, scopes, username });
 */
export function consentPage(
  p: Brand & {
    action: string;
    interaction: string;
    csrf: string;
    scopes: readonly string[];
    username: string;
  },
): Response {
  return htmlPage({
    title: `Allow access? · ${p.tenantName}`,
    body: html`${brandLine(p)}<h1>Allow access?</h1>
<p><strong>${p.clientName}</strong> is asking to:</p>
<ul>${p.scopes.map((s) => html`<li>${describeScope(s)} <code>(${s})</code></li>`)}</ul>
<p>You are signed in as <strong>${p.username}</strong>.</p>
<form method="post" action="${p.action}">
<input type="hidden" name="interaction" value="${p.interaction}">
<input type="hidden" name="csrf" value="${p.csrf}">
<div class="actions">
<button type="submit" class="primary" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`,
  });
}

/**
 * Shown after logout when the client gave no `post_logout_redirect_uri`.
 *
 * @example
 * return signedOutPage(setCookieHeader);
 */
export function signedOutPage(setCookie: string): Response {
  return htmlPage({
    title: 'Signed out',
    body: html`<h1>You are signed out</h1><p>You can close this window.</p>`,
    headers: { 'Set-Cookie': setCookie },
  });
}

/**
 * Answered when a sign-in page is requested again after its interaction ended (browser Back),
 * or after it expired: a 200 page saying so, with a link back to the client when it is known.
 *
 * @example
 * return signInEndedPage({ tenantName, back: { clientName: 'React example (SPA)', href: 'http://127.0.0.1:5173/' } });
 */
export function signInEndedPage(p: { tenantName: string; back?: { clientName: string; href: string } }): Response {
  const body = p.back
    ? html`<p class="muted">${p.tenantName}</p><h1>This sign-in is already complete</h1>
<p>It was already finished (or cancelled). Going back does not repeat it.</p>
<div class="actions"><a href="${p.back.href}" id="back-to-client">Back to ${p.back.clientName}</a></div>`
    : html`<p class="muted">${p.tenantName}</p><h1>This sign-in is already complete or has expired</h1>
<p>Sign-in pages last ten minutes and can be used once. Return to the application you came from and sign in again.</p>`;
  return htmlPage({ title: `Sign-in ended · ${p.tenantName}`, body });
}
