/** The login, consent and signed-out pages. Plain, labelled forms that work without JavaScript. */
import { html, htmlPage } from '../http/html';
import { describeScope } from '../oauth/claims';

/**
 * The sign-in form: `username`, `password`, hidden `interaction` and `csrf`, and
 * `action=login|cancel` buttons.
 *
 * @example
 * return loginPage({ action: `${issuer}/oidc/login`, interaction: id, csrf, clientId, message });
 */
export function loginPage(p: {
  action: string;
  interaction: string;
  csrf: string;
  clientId: string;
  username?: string;
  message?: string;
  status?: number;
}): Response {
  return htmlPage({
    status: p.status ?? 200,
    title: 'Sign in',
    body: html`<h1>Sign in</h1>
<p>to continue to <strong>${p.clientId}</strong></p>
${p.message ? html`<p class="error" role="alert" id="login-error">${p.message}</p>` : undefined}
<form method="post" action="${p.action}">
<input type="hidden" name="interaction" value="${p.interaction}">
<input type="hidden" name="csrf" value="${p.csrf}">
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required${p.username ? undefined : html` autofocus`} value="${p.username ?? ''}"${p.message ? html` aria-describedby="login-error"` : undefined}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${p.username ? html` autofocus` : undefined}>
<div class="actions">
<button type="submit" class="primary" name="action" value="login">Sign in</button>
<button type="submit" name="action" value="cancel" formnovalidate>Cancel</button>
</div>
</form>`,
  });
}

/**
 * The consent form: the client, the requested scopes, and `decision=allow|deny` buttons.
 *
 * @example
 * return consentPage({ action: `${issuer}/oidc/consent`, interaction: id, csrf, clientId, scopes, username });
 */
export function consentPage(p: {
  action: string;
  interaction: string;
  csrf: string;
  clientId: string;
  scopes: readonly string[];
  username: string;
}): Response {
  return htmlPage({
    title: 'Allow access?',
    body: html`<h1>Allow access?</h1>
<p><strong>${p.clientId}</strong> is asking to:</p>
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
