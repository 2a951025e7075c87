/**
 * What the login and consent endpoints share: loading the interaction a page or post belongs
 * to, which must come from the browser that started it (binding cookie) and, for posts, carry
 * its CSRF token and come from the server's own origin; reading the form; showing the login form; and ending the flow.
 *
 * An ended interaction leaves a small record (client and redirect URI, no user, no state) for
 * another INTERACTION_SECONDS, so that browser Back to its page can say "already complete" and
 * lead back to the client instead of showing an error.
 */
import type { Client, Tenant } from '../config/model';
import { safeEqual } from '../crypto/secrets';
import type { OAuthError } from '../http/errors';
import { allowFormTargets, errorPage } from '../http/html';
import { isCrossOriginPost } from '../http/origin';
import { BodyError, readFormBody, type Params } from '../http/params';
import { finishAuthorization, redirectError, targetOf } from '../oauth/authorization-response';
import { browserKey } from '../oauth/browser-binding';
import { INTERACTION_SECONDS } from '../oauth/session';
import type { RequestContext } from '../request/context';
import type { Interaction } from '../store/store';
import { type Brand, loginPage, signInEndedPage } from './pages';

/** Interaction ids are randomToken() output; anything else is malformed (and cannot name an ended record). */
const INTERACTION_ID = /^[A-Za-z0-9_-]{43}$/;
/** Suffix of an ended interaction's record; "." never occurs in an interaction id. */
const ENDED = '.ended';

/**
 * The name people see for a client: its `client_name`, else its client_id.
 *
 * @example
 * html`<strong>${clientName(client, request.clientId)}</strong>`;
 */
export function clientName(client: Client | undefined, clientId: string): string {
  return client?.client_name ?? clientId;
}

/**
 * The tenant's and the client's names for an interaction's pages.
 *
 * @example
 * return consentPage({ ...brandOf(ctx.tenant, interaction), action, interaction: id, csrf, scopes, username });
 */
export function brandOf(tenant: Tenant, interaction: Interaction): Brand {
  const { clientId } = interaction.request;
  return { tenantName: tenant.name, clientName: clientName(tenant.clients.get(clientId), clientId) };
}

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
  if (params.invalid.size > 0 || id === undefined || !INTERACTION_ID.test(id)) return { page: errorPage(400, 'The sign-in request is malformed.') };
  if (form && isCrossOriginPost(ctx.request, new URL(ctx.issuer).origin)) {
    return { page: errorPage(403, 'The form was posted from another site. Start the sign-in again from the application.', 'access_denied') };
  }
  const interaction = await ctx.server.store.findInteraction(id);
  if (!interaction || interaction.tenant !== ctx.tenant.id) {
    // A repeated post is a client or a double click, not a person going back: keep the 400.
    if (form) return { page: errorPage(400, 'This sign-in has expired or was already completed.') };
    return { page: await endedPage(ctx, id) };
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
    ...brandOf(ctx.tenant, interaction),
    action: `${ctx.issuer}/oidc/login`,
    interaction: id,
    csrf: interaction.csrf,
    ...(ctx.tenant.demo_login ? { demoUsers: [...ctx.tenant.users.keys()] } : {}),
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
  await rememberEnded(ctx, id, interaction);
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
  await rememberEnded(ctx, id, interaction);
  return finishAuthorization(ctx, interaction.request, interaction.user, headers);
}


/**
 * Keeps what the "already complete" page needs: the tenant, client and redirect URI. Not the
 * browser: the binding cookie may be replaced at sign-in, and the page shows nothing that is
 * not already public (the client's name and the origin of a registered redirect URI).
 */
async function rememberEnded(ctx: RequestContext, id: string, interaction: Interaction): Promise<void> {
  const { clientId, redirectUri, responseType, responseMode } = interaction.request;
  const record: Interaction = {
    tenant: interaction.tenant,
    request: { clientId, redirectUri, responseType, responseMode, scopes: [], state: '', prompt: [] },
    browser: '',
    csrf: '',
    failedLogins: 0,
  };
  await ctx.server.store.saveInteraction(`${id}${ENDED}`, record, INTERACTION_SECONDS);
}

/**
 * The page for a sign-in page requested after its interaction ended or expired. The link back
 * goes to the origin of the redirect URI the interaction used, only while that URI is still
 * registered for the client.
 */
async function endedPage(ctx: RequestContext, id: string): Promise<Response> {
  const ended = await ctx.server.store.findInteraction(`${id}${ENDED}`);
  if (!ended || ended.tenant !== ctx.tenant.id) {
    return signInEndedPage({ tenantName: ctx.tenant.name });
  }
  const { clientId, redirectUri } = ended.request;
  const client = ctx.tenant.clients.get(clientId);
  const target = client?.redirect_uris.includes(redirectUri) ? new URL(redirectUri) : undefined;
  const web = target && (target.protocol === 'https:' || target.protocol === 'http:');
  return signInEndedPage({
    tenantName: ctx.tenant.name,
    ...(web ? { back: { clientName: clientName(client, clientId), href: `${target.origin}/` } } : {}),
  });
}
