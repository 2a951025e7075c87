/** The page shown while sign-ins are locked after too many failed attempts. */
import { OAuthError } from '../http/errors';
import { allowFormTargets, html, htmlPage } from '../http/html';
import { THROTTLE_WINDOW_SECONDS } from '../oauth/throttle';
import { brandOf } from './interaction';
import type { RequestContext } from '../request/context';
import type { Interaction } from '../store/store';
import { TOO_MANY_ATTEMPTS_DESCRIPTION } from './descriptions';

/** The form action that leaves a locked sign-in, sending `access_denied` to the client. */
export const RETURN_ACTION = 'return';

/**
 * The error sent to the client when the user leaves the locked page: the same description as
 * three wrong passwords in one sign-in, so the application can tell the person why (and not
 * "cancelled"), while learning no more about the account than the person saw.
 *
 * @example
 * return endWithError(ctx, id, lockedError());
 */
export function lockedError(): OAuthError {
  return new OAuthError('access_denied', TOO_MANY_ATTEMPTS_DESCRIPTION);
}

/**
 * 429 with `Retry-After`: says why, for how long at most, and offers the way back to the
 * application (which then receives `access_denied`).
 *
 * @example
 * if (await isLoginLocked(ctx, username)) return lockedPage(ctx, id, interaction);
 */
export function lockedPage(ctx: RequestContext, id: string, interaction: Interaction): Response {
  const minutes = THROTTLE_WINDOW_SECONDS / 60;
  const page = htmlPage({
    status: 429,
    title: 'Too many failed sign-in attempts',
    body: html`<h1>Too many failed sign-in attempts</h1>
<p class="error" role="alert">Signing in is locked for a while to protect the account. Try again in ${minutes} minutes.</p>
<p>If you did not make these attempts, someone may be guessing your password.</p>
<form method="post" action="${ctx.issuer}/oidc/login">
<input type="hidden" name="interaction" value="${id}">
<input type="hidden" name="csrf" value="${interaction.csrf}">
<div class="actions"><button type="submit" class="primary" name="action" value="${RETURN_ACTION}">Back to ${brandOf(ctx.tenant, interaction).clientName}</button></div>
</form>`,
    headers: { 'Retry-After': String(THROTTLE_WINDOW_SECONDS) },
  });
  return allowFormTargets(page, [interaction.request.redirectUri]);
}
