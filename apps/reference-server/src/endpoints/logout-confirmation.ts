/**
 * Confirmation of a logout that does not prove where it comes from (RP-Initiated Logout 1.0
 * §2: without an `id_token_hint`, or with one naming another user, the OP asks the user). Any site can send a browser to
 * `/oidc/logout`; only a valid hint, or the user's answer on this page, ends the session. The
 * page's form carries a CSRF token derived from the session cookie, and its post must come
 * from the server's own origin. A browser without a session has nothing to confirm.
 */
import type { Client } from '../config/model';
import { safeEqual, storageKey } from '../crypto/secrets';
import { allowFormTargets, errorPage, html, htmlPage } from '../http/html';
import { isCrossOriginPost } from '../http/origin';
import { cookieName, currentSession, readCookie, SESSION_COOKIE } from '../oauth/session';
import type { RequestContext } from '../request/context';
import { clientName } from './interaction';

/** Parameters of the logout request, carried through the confirmation form. */
const CARRIED = ['client_id', 'id_token_hint', 'post_logout_redirect_uri', 'state'] as const;

function csrfToken(ctx: RequestContext): string | undefined {
  const session = readCookie(ctx.request, cookieName(ctx, SESSION_COOKIE));
  return session === undefined ? undefined : storageKey(`logout-confirmation:${session}`);
}

function confirmationPage(ctx: RequestContext, values: ReadonlyMap<string, string>, csrf: string, client: Client | undefined): Response {
  const carried = CARRIED.flatMap((name) => {
    const value = values.get(name);
    return value === undefined ? [] : [html`<input type="hidden" name="${name}" value="${value}">`];
  });
  const page = htmlPage({
    title: 'Sign out?',
    body: html`<h1>Sign out?</h1>
<p>${client === undefined ? 'A site' : html`<strong>${clientName(client, client.client_id)}</strong>`} asks to sign you out of this service.</p>
<form method="post" action="${ctx.issuer}/oidc/logout">
${carried}
<input type="hidden" name="csrf" value="${csrf}">
<div class="actions">
<button type="submit" class="primary" name="confirm" value="yes">Sign out</button>
<button type="submit" name="confirm" value="no">Stay signed in</button>
</div>
</form>`,
  });
  const redirect = values.get('post_logout_redirect_uri');
  return allowFormTargets(page, redirect === undefined ? [] : [redirect]);
}

function stillSignedIn(): Response {
  return htmlPage({ title: 'Still signed in', body: html`<h1>You are still signed in</h1><p>You can close this window.</p>` });
}

/**
 * For a logout request without a valid `id_token_hint` naming the signed-in user: the page to answer instead of logging
 * out (the confirmation, a refusal, or "still signed in"), or undefined when the logout may go
 * ahead (no session, or the user confirmed).
 *
 * @example
 * const answer = await logoutConfirmation(ctx, values);
 * if (answer) return answer;
 */
export async function logoutConfirmation(ctx: RequestContext, values: ReadonlyMap<string, string>, client?: Client): Promise<Response | undefined> {
  const csrf = csrfToken(ctx);
  if (csrf === undefined || !(await currentSession(ctx))) return undefined;
  const confirm = ctx.request.method === 'POST' ? values.get('confirm') : undefined;
  if (confirm === undefined) return confirmationPage(ctx, values, csrf, client);
  if (isCrossOriginPost(ctx.request, new URL(ctx.issuer).origin) || !safeEqual(values.get('csrf') ?? '', csrf)) {
    return errorPage(403, 'The sign-out could not be verified. Nothing was changed; start again from the application.', 'access_denied');
  }
  return confirm === 'yes' ? undefined : stillSignedIn();
}
