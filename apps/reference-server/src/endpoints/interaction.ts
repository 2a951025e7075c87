/**
 * What the login and consent endpoints share: loading the interaction a page or post belongs
 * to, which must come from the browser that started it (binding cookie) and, for posts, carry
 * its CSRF token and come from the server's own origin; reading the form; showing the login form; and ending the flow.
 */
import { safeEqual } from '../crypto/secrets';
import type { OAuthError } from '../http/errors';
import { allowFormTargets, errorPage } from '../http/html';
import { isCrossOriginPost } from '../http/origin';
import { BodyError, readFormBody, type Params } from '../http/params';
import { finishAuthorization, redirectError, targetOf } from '../oauth/authorization-response';
import { browserKey } from '../oauth/browser-binding';
import type { RequestContext } from '../request/context';
import type { Interaction } from '../store/store';
import { loginPage } from './pages';

/** An interaction that may be continued, or the error page to answer instead. */
export type Loaded = { id: string; interaction: Interaction } | { page: Response };

/**
 * The interaction named by the `interaction` parameter, if it belongs to this tenant and this
 * browser (and, given `form`, its CSRF token matches); else the error page to answer.
 *
 * @example
 * const loaded = await load(ctx, queryParams(ctx.request));
 * if ('page' in loaded) return loaded.page;
 */
export async function load(ctx: RequestContext, params: Params, form?: { csrf?: string }): Promise<Loaded> {
  const id = params.values.get('interaction');
  if (params.invalid.size > 0 || id === undefined) return { page: errorPage(400, 'The sign-in request is malformed.') };
  if (form && isCrossOriginPost(ctx.request, new URL(ctx.issuer).origin)) {
    return { page: errorPage(403, 'The form was posted from another site. Start the sign-in again from the application.', 'access_denied') };
  }
  const interaction = await ctx.server.store.findInteraction(id);
  if (!interaction || interaction.tenant !== ctx.tenant.id) {
    return { page: errorPage(400, 'This sign-in has expired or was already completed.') };
  }
  const browser = browserKey(ctx);
  if (browser === undefined || !safeEqual(browser, interaction.browser)) {
    return { page: errorPage(403, 'This sign-in was started in another browser, or cookies are blocked. Allow cookies and start again.', 'access_denied') };
  }
  if (form && (form.csrf === undefined || !safeEqual(form.csrf, interaction.csrf))) {
    return { page: errorPage(403, 'The form could not be verified (CSRF token mismatch).', 'access_denied') };
  }
  return { id, interaction };
}

/**
 * The posted form, or the error page for a body that cannot be read.
 *
 * @example
 * const form = await readForm(ctx);
 * if (form instanceof Response) return form;
 */
export async function readForm(ctx: RequestContext): Promise<Params | Response> {
  try {
    return await readFormBody(ctx.request);
  } catch (error) {
    if (error instanceof BodyError) return errorPage(400, `The form could not be read: ${error.message}.`);
    throw error;
  }
}

/**
 * The login form of an interaction, pre-filled with `login_hint` or the name just typed.
 *
 * @example
 * return renderLogin(ctx, id, interaction, { message: 'Enter your username and password.' });
 */
export function renderLogin(ctx: RequestContext, id: string, interaction: Interaction, extra: { message?: string; username?: string } = {}): Response {
  const username = extra.username ?? interaction.request.loginHint;
  // The post may be answered by a redirect to the client, which form-action must allow.
  const page = loginPage({
    action: `${ctx.issuer}/oidc/login`,
    interaction: id,
    csrf: interaction.csrf,
    clientId: interaction.request.clientId,
    ...(username !== undefined ? { username } : {}),
    ...(extra.message !== undefined ? { message: extra.message } : {}),
  });
  return allowFormTargets(page, [interaction.request.redirectUri]);
}

/**
 * Ends the interaction and sends `error` to the client's redirect URI.
 *
 * @example
 * return endWithError(ctx, id, new OAuthError('access_denied', 'the user denied access'));
 */
export async function endWithError(ctx: RequestContext, id: string, error: OAuthError): Promise<Response> {
  const interaction = await ctx.server.store.takeInteraction(id);
  if (!interaction) return errorPage(400, 'This sign-in has expired or was already completed.');
  return redirectError(ctx, targetOf(interaction.request), error);
}

/**
 * Ends the interaction of a signed-in user and completes the authorization.
 *
 * @example
 * return complete(ctx, id, headers);
 */
export async function complete(ctx: RequestContext, id: string, headers?: Headers): Promise<Response> {
  const interaction = await ctx.server.store.takeInteraction(id);
  if (!interaction?.user) return errorPage(400, 'This sign-in has expired or was already completed.');
  return finishAuthorization(ctx, interaction.request, interaction.user, headers);
}

