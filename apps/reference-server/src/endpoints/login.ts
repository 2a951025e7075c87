/**
 * The interactive part of authorization: the login and consent pages and their form posts.
 * Each post must come from the browser that started the interaction (binding cookie) and carry
 * its CSRF token; three wrong passwords or Cancel end the flow with `invalid_grant`, Deny with
 * `access_denied`.
 */
import { finishAuthorization, redirectError, targetOf } from '../oauth/authorization-response';
import { needsConsent, rememberConsent } from '../oauth/consent';
import { nowSeconds, type RequestContext } from '../request/context';
import { OAuthError } from '../http/errors';
import { errorPage } from '../http/html';
import { consentPage, loginPage } from './pages';
import { BodyError, queryParams, readFormBody, type Params } from '../http/params';
import { randomToken, safeEqual } from '../crypto/secrets';
import { browserKey, INTERACTION_SECONDS, startSession } from '../oauth/session';
import type { Interaction } from '../store/store';

/** Wrong passwords allowed before the flow ends with an error redirect. */
export const MAX_FAILED_LOGINS = 3;
const DUMMY_PASSWORD = randomToken();

type Loaded = { id: string; interaction: Interaction } | { page: Response };

async function load(ctx: RequestContext, params: Params, form?: { csrf?: string }): Promise<Loaded> {
  const id = params.values.get('interaction');
  if (params.invalid.size > 0 || id === undefined) return { page: errorPage(400, 'The sign-in request is malformed.') };
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

async function readForm(ctx: RequestContext): Promise<Params | Response> {
  try {
    return await readFormBody(ctx.request);
  } catch (error) {
    if (error instanceof BodyError) return errorPage(400, `The form could not be read: ${error.message}.`);
    throw error;
  }
}

function renderLogin(ctx: RequestContext, id: string, interaction: Interaction, extra: { message?: string; username?: string } = {}): Response {
  const username = extra.username ?? interaction.request.loginHint;
  return loginPage({
    action: `${ctx.issuer}/oidc/login`,
    interaction: id,
    csrf: interaction.csrf,
    clientId: interaction.request.clientId,
    ...(username !== undefined ? { username } : {}),
    ...(extra.message !== undefined ? { message: extra.message } : {}),
  });
}

function renderConsent(ctx: RequestContext, id: string, interaction: Interaction & { user: NonNullable<Interaction['user']> }): Response {
  return consentPage({
    action: `${ctx.issuer}/oidc/consent`,
    interaction: id,
    csrf: interaction.csrf,
    clientId: interaction.request.clientId,
    scopes: interaction.request.scopes,
    username: interaction.user.username,
  });
}

async function endWithError(ctx: RequestContext, id: string, error: OAuthError): Promise<Response> {
  const interaction = await ctx.server.store.takeInteraction(id);
  if (!interaction) return errorPage(400, 'This sign-in has expired or was already completed.');
  return redirectError(ctx, targetOf(interaction.request), error);
}

async function complete(ctx: RequestContext, id: string, headers?: Headers): Promise<Response> {
  const interaction = await ctx.server.store.takeInteraction(id);
  if (!interaction?.user) return errorPage(400, 'This sign-in has expired or was already completed.');
  return finishAuthorization(ctx, interaction.request, interaction.user, headers);
}

/**
 * `GET {base}/oidc/login?interaction=…`: the sign-in form.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/oidc/login', kind: 'html', cors: false, methods: { GET: showLogin, POST: submitLogin } }
 */
export async function showLogin(ctx: RequestContext): Promise<Response> {
  const loaded = await load(ctx, queryParams(ctx.request));
  if ('page' in loaded) return loaded.page;
  return renderLogin(ctx, loaded.id, loaded.interaction);
}

/**
 * `POST {base}/oidc/login`: checks the credentials, starts the session, then asks for consent
 * or completes the authorization.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/oidc/login', kind: 'html', cors: false, methods: { GET: showLogin, POST: submitLogin } }
 */
export async function submitLogin(ctx: RequestContext): Promise<Response> {
  const form = await readForm(ctx);
  if (form instanceof Response) return form;
  const loaded = await load(ctx, form, { csrf: form.values.get('csrf') });
  if ('page' in loaded) return loaded.page;
  const { id, interaction } = loaded;
  const action = form.values.get('action') ?? 'login';
  if (action === 'cancel') return endWithError(ctx, id, new OAuthError('invalid_grant', 'the user cancelled the sign-in'));
  if (action !== 'login') return errorPage(400, 'The form was submitted with an unknown action.');

  const username = form.values.get('username');
  const password = form.values.get('password');
  if (username === undefined || password === undefined) {
    return renderLogin(ctx, id, interaction, { message: 'Enter your username and password.', ...(username ? { username } : {}) });
  }
  const user = ctx.tenant.users.get(username);
  const matches = safeEqual(password, user?.password ?? DUMMY_PASSWORD);
  if (!user || !matches) {
    const failures = await ctx.server.store.countFailedLogin(id);
    ctx.server.logger.info(`tenant ${ctx.tenant.id}: failed sign-in attempt ${failures} of ${MAX_FAILED_LOGINS}`);
    if (failures >= MAX_FAILED_LOGINS) {
      return endWithError(ctx, id, new OAuthError('invalid_grant', 'the user could not be authenticated (too many failed attempts)'));
    }
    const left = MAX_FAILED_LOGINS - failures;
    return renderLogin(ctx, id, interaction, { message: `Wrong username or password. ${left} ${left === 1 ? 'attempt' : 'attempts'} left.`, username });
  }

  const authentication = { username, sub: user.claims.sub, sid: randomToken(16), authTime: nowSeconds(ctx.server) };
  const headers = new Headers({ 'Set-Cookie': await startSession(ctx, authentication) });
  const client = ctx.tenant.clients.get(interaction.request.clientId);
  if (client && (await needsConsent(ctx, client, authentication.sub, interaction.request.scopes, interaction.request.prompt))) {
    await ctx.server.store.saveInteraction(id, { ...interaction, user: authentication }, INTERACTION_SECONDS);
    headers.set('Location', `${ctx.issuer}/oidc/consent?interaction=${id}`);
    headers.set('Cache-Control', 'no-store');
    return new Response(null, { status: 302, headers });
  }
  await ctx.server.store.saveInteraction(id, { ...interaction, user: authentication }, INTERACTION_SECONDS);
  return complete(ctx, id, headers);
}

/**
 * `GET {base}/oidc/consent?interaction=…`: the consent form (the login form if not signed in).
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/oidc/consent', kind: 'html', cors: false, methods: { GET: showConsent, POST: submitConsent } }
 */
export async function showConsent(ctx: RequestContext): Promise<Response> {
  const loaded = await load(ctx, queryParams(ctx.request));
  if ('page' in loaded) return loaded.page;
  const { id, interaction } = loaded;
  if (!interaction.user) return renderLogin(ctx, id, interaction);
  return renderConsent(ctx, id, { ...interaction, user: interaction.user });
}

/**
 * `POST {base}/oidc/consent`: `decision=allow` remembers the grant and completes the
 * authorization; `decision=deny` ends it with `access_denied`.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/oidc/consent', kind: 'html', cors: false, methods: { GET: showConsent, POST: submitConsent } }
 */
export async function submitConsent(ctx: RequestContext): Promise<Response> {
  const form = await readForm(ctx);
  if (form instanceof Response) return form;
  const loaded = await load(ctx, form, { csrf: form.values.get('csrf') });
  if ('page' in loaded) return loaded.page;
  const { id, interaction } = loaded;
  if (!interaction.user) return errorPage(400, 'Sign in before giving consent.');
  const decision = form.values.get('decision');
  if (decision === 'deny') return endWithError(ctx, id, new OAuthError('access_denied', 'the user denied access'));
  if (decision !== 'allow') return errorPage(400, 'The consent form was submitted without a decision.');
  await rememberConsent(ctx, interaction.user.sub, interaction.request.clientId, interaction.request.scopes);
  return complete(ctx, id);
}
