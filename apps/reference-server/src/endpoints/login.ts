/**
 * The login page and its form post. Three wrong passwords or Cancel end the flow with
 * `invalid_grant`; too many failures of a user or an address lock sign-ins (throttle.ts).
 */
import { randomToken, safeEqual } from '../crypto/secrets';
import { OAuthError } from '../http/errors';
import { errorPage } from '../http/html';
import { queryParams } from '../http/params';
import { needsConsent } from '../oauth/consent';
import { rotateBinding } from '../oauth/browser-binding';
import { INTERACTION_SECONDS, startSession } from '../oauth/session';
import { isLoginLocked, recordFailedLogin, recordSuccessfulLogin } from '../oauth/throttle';
import { nowSeconds, type RequestContext } from '../request/context';
import { complete, endWithError, load, readForm, renderLogin } from './interaction';
import { lockedError, lockedPage, RETURN_ACTION } from './locked-page';

/** Wrong passwords allowed before the flow ends with an error redirect. */
export const MAX_FAILED_LOGINS = 3;
const DUMMY_PASSWORD = randomToken();

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
  if (action === RETURN_ACTION) return endWithError(ctx, id, lockedError());
  if (action !== 'login') return errorPage(400, 'The form was submitted with an unknown action.');

  const username = form.values.get('username');
  const password = form.values.get('password');
  if (username === undefined || password === undefined) {
    return renderLogin(ctx, id, interaction, { message: 'Enter your username and password.', ...(username ? { username } : {}) });
  }
  if (await isLoginLocked(ctx, username)) return lockedPage(ctx, id, interaction);
  const user = ctx.tenant.users.get(username);
  const matches = safeEqual(password, user?.password ?? DUMMY_PASSWORD);
  if (!user || !matches) {
    if (await recordFailedLogin(ctx, username)) return lockedPage(ctx, id, interaction);
    const failures = await ctx.server.store.countFailedLogin(id);
    ctx.server.logger.info(`tenant ${ctx.tenant.id}: failed sign-in attempt ${failures} of ${MAX_FAILED_LOGINS}`);
    if (failures >= MAX_FAILED_LOGINS) {
      return endWithError(ctx, id, new OAuthError('invalid_grant', 'the user could not be authenticated (too many failed attempts)'));
    }
    const left = MAX_FAILED_LOGINS - failures;
    return renderLogin(ctx, id, interaction, { message: `Wrong username or password. ${left} ${left === 1 ? 'attempt' : 'attempts'} left.`, username });
  }

  await recordSuccessfulLogin(ctx, username);
  const authentication = { username, sub: user.claims.sub, sid: randomToken(16), authTime: nowSeconds(ctx.server) };
  const headers = new Headers({ 'Set-Cookie': await startSession(ctx, authentication) });
  const binding = await rotateBinding(ctx);
  headers.append('Set-Cookie', binding.setCookie);
  const client = ctx.tenant.clients.get(interaction.request.clientId);
  if (client && (await needsConsent(ctx, client, authentication.sub, interaction.request.scopes, interaction.request.prompt))) {
    await ctx.server.store.saveInteraction(id, { ...interaction, browser: binding.key, user: authentication }, INTERACTION_SECONDS);
    headers.set('Location', `${ctx.issuer}/oidc/consent?interaction=${id}`);
    headers.set('Cache-Control', 'no-store');
    return new Response(null, { status: 302, headers });
  }
  await ctx.server.store.saveInteraction(id, { ...interaction, user: authentication }, INTERACTION_SECONDS);
  return complete(ctx, id, headers);
}
