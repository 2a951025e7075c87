/**
 * The login page and its form post. Three wrong passwords or Cancel end the flow with
 * `access_denied` (RFC 6749 §4.1.2.1: the user or the server denied the request), each with
 * its own `error_description`; too many failures of a user or an address lock sign-ins
 * (throttle.ts), and the page warns before the attempt that would lock.
 *
 * Development tenants with `demo_login` also sign a user in without a password: the one
 * named by `login_hint`, or the one whose button was pressed (`login_as`, CSRF-checked like
 * every post). Elsewhere `login_hint` only pre-fills the form and `login_as` is refused.
 */
import type { User } from '../config/model';
import { randomToken, safeEqual } from '../crypto/secrets';
import { OAuthError } from '../http/errors';
import { errorPage } from '../http/html';
import { queryParams } from '../http/params';
import { needsConsent } from '../oauth/consent';
import { rotateBinding } from '../oauth/browser-binding';
import { demoUser } from '../oauth/demo-login';
import { INTERACTION_SECONDS, startSession } from '../oauth/session';
import { countLoginAttempt, failedLogin, recordSuccessfulLogin, THROTTLE_WINDOW_SECONDS } from '../oauth/throttle';
import { nowSeconds, type RequestContext } from '../request/context';
import type { Interaction } from '../store/store';
import { CANCELLED_DESCRIPTION, TOO_MANY_ATTEMPTS_DESCRIPTION } from './descriptions';
import { complete, endWithError, load, readForm, renderLogin } from './interaction';
import { lockedError, lockedPage, RETURN_ACTION } from './locked-page';
import { browserStateCookie } from '../oauth/browser-state';

/** Wrong passwords allowed before the flow ends with an error redirect. */
export const MAX_FAILED_LOGINS = 3;

// What an unknown user's password is compared with, so both paths take the same time. Made at the
// first sign-in, not at start (a start need not load WebCrypto's random source).
let dummy: string | undefined;
function dummyPassword(): string {
  dummy ??= randomToken();
  return dummy;
}

/**
 * `GET {base}/oidc/login?interaction=…`: the sign-in form (on a `demo_login` tenant, a
 * `login_hint` naming one of its users signs that user in at once).
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/oidc/login', kind: 'html', cors: false, methods: { GET: showLogin, POST: submitLogin } }
 */
export async function showLogin(ctx: RequestContext): Promise<Response> {
  const loaded = await load(ctx, queryParams(ctx.request));
  if ('page' in loaded) return loaded.page;
  const hinted = demoUser(ctx.tenant, loaded.interaction.request.loginHint);
  if (hinted && !loaded.interaction.user) return signIn(ctx, loaded.id, loaded.interaction, hinted);
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
  const loginAs = form.values.get('login_as');
  if (loginAs !== undefined) {
    const user = demoUser(ctx.tenant, loginAs);
    if (!user) return errorPage(403, 'Signing in without a password is off for this tenant, or there is no such user.', 'access_denied');
    return signIn(ctx, id, interaction, user);
  }
  const action = form.values.get('action') ?? 'login';
  if (action === 'cancel') return endWithError(ctx, id, new OAuthError('access_denied', CANCELLED_DESCRIPTION));
  if (action === RETURN_ACTION) return endWithError(ctx, id, lockedError());
  if (action !== 'login') return errorPage(400, 'The form was submitted with an unknown action.');

  const username = form.values.get('username');
  const password = form.values.get('password');
  if (username === undefined || password === undefined) {
    return renderLogin(ctx, id, interaction, { message: 'Enter your username and password.', ...(username ? { username } : {}) });
  }
  // Counted before the password is looked at: a burst of guesses compares no more than the limits allow.
  const attempt = await countLoginAttempt(ctx, username);
  if (!attempt.allowed) return lockedPage(ctx, id, interaction);
  const user = ctx.tenant.users.get(username);
  const matches = safeEqual(password, user?.password ?? dummyPassword());
  if (!user || !matches) {
    if (failedLogin(ctx, username, attempt)) return lockedPage(ctx, id, interaction);
    const failures = await ctx.server.store.countFailedLogin(id);
    ctx.server.logger.info(`tenant ${ctx.tenant.id}: failed sign-in attempt ${failures} of ${MAX_FAILED_LOGINS}`);
    if (failures >= MAX_FAILED_LOGINS) return endWithError(ctx, id, new OAuthError('access_denied', TOO_MANY_ATTEMPTS_DESCRIPTION));
    return renderLogin(ctx, id, interaction, { message: `Wrong username or password. ${attemptsLeft(MAX_FAILED_LOGINS - failures, attempt.left)}`, username });
  }
  await recordSuccessfulLogin(ctx, user.username);
  return signIn(ctx, id, interaction, user);
}

/**
 * What the login page says after a wrong password: the attempts this sign-in has left, or,
 * when the lockout comes first, how many before it and for how long, so that nobody walks
 * into a lockout one typo after being told "2 attempts left".
 *
 * @example
 * attemptsLeft(2, 1); // '1 attempt left before sign-in is locked for 15 minutes.'
 */
export function attemptsLeft(inThisSignIn: number, beforeLockout: number): string {
  const plural = (n: number) => `${n} ${n === 1 ? 'attempt' : 'attempts'} left`;
  if (beforeLockout > inThisSignIn) return `${plural(inThisSignIn)}.`;
  return `${plural(beforeLockout)} before sign-in is locked for ${THROTTLE_WINDOW_SECONDS / 60} minutes.`;
}

/**
 * Starts the user's session and rotates the browser binding (a value planted before sign-in
 * never outlives it), then asks for consent or completes the authorization.
 */
async function signIn(ctx: RequestContext, id: string, interaction: Interaction, user: User): Promise<Response> {
  const authentication = { username: user.username, sub: user.claims.sub, sid: randomToken(16), authTime: nowSeconds(ctx.server) };
  const headers = new Headers({ 'Set-Cookie': await startSession(ctx, authentication) });
  const binding = await rotateBinding(ctx);
  headers.append('Set-Cookie', binding.setCookie);
  // Session Management 1.0: the browser state the check_session_iframe reads.
  headers.append('Set-Cookie', browserStateCookie(ctx, authentication.sid));
  await ctx.server.store.saveInteraction(id, { ...interaction, browser: binding.key, user: authentication }, INTERACTION_SECONDS);
  const client = ctx.tenant.clients.get(interaction.request.clientId);
  if (client && (await needsConsent(ctx, client, authentication.sub, interaction.request.scopes, interaction.request.prompt))) {
    headers.set('Location', `${ctx.issuer}/oidc/consent?interaction=${id}`);
    headers.set('Cache-Control', 'no-store');
    return new Response(null, { status: 302, headers });
  }
  return complete(ctx, id, headers);
}
