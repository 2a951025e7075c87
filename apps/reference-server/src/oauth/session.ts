/**
 * Cookies of the login: a browser-binding cookie (ties a sign-in in progress to the browser
 * that started it, which defeats login CSRF) and the session cookie (SSO). Both HttpOnly and
 * SameSite=Lax; only their hashes are stored. Over https they are `Secure` and `__Host-`
 * prefixed (Path=/, the tenant in the name), so no sibling origin can set or shadow them;
 * over http they are scoped to the tenant's path.
 */
import { randomToken, storageKey } from '../crypto/secrets';
import { nowSeconds, type RequestContext } from '../request/context';
import type { Authentication, Session } from '../store/store';

/** Base name of the session cookie. */
export const SESSION_COOKIE = 'rs_session';
/** Base name of the browser-binding cookie (see browser-binding.ts). */
export const BROWSER_COOKIE = 'rs_browser';
/** How long a sign-in lasts for SSO. */
export const SESSION_SECONDS = 24 * 3600;
/** How long a sign-in in progress (login and consent pages) may take, in seconds. */
export const INTERACTION_SECONDS = 600;

/**
 * The value of a cookie on the request, or undefined.
 *
 * @example
 * readCookie(request, 'rs_session');
 */
export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{16,128}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/**
 * The name of one of the tenant's cookies: `__Host-{name}.{tenant}` when secure, else `name`.
 *
 * @example
 * readCookie(ctx.request, cookieName(ctx, 'rs_session'));
 */
export function cookieName(ctx: RequestContext, name: string): string {
  return ctx.secure ? `__Host-${name}.${ctx.tenant.id}` : name;
}

/**
 * A `Set-Cookie` value for one of the tenant's cookies (name as given to {@link cookieName}).
 *
 * @example
 * headers.append('Set-Cookie', cookie(ctx, 'rs_browser', value));
 */
export function cookie(ctx: RequestContext, name: string, value: string, maxAge?: number): string {
  const parts = [`${cookieName(ctx, name)}=${value}`, `Path=${ctx.secure ? '/' : `/${ctx.tenant.id}/`}`, 'HttpOnly', 'SameSite=Lax'];
  if (ctx.secure) parts.push('Secure');
  if (maxAge !== undefined) parts.push(`Max-Age=${maxAge}`);
  return parts.join('; ');
}

/**
 * The signed-in user of this browser, if the session is still valid.
 *
 * @example
 * const session = await currentSession(ctx);
 */
export async function currentSession(ctx: RequestContext): Promise<Session | undefined> {
  const value = readCookie(ctx.request, cookieName(ctx, SESSION_COOKIE));
  if (!value) return undefined;
  const session = await ctx.server.store.findSession(storageKey(value));
  if (!session || session.tenant !== ctx.tenant.id || session.expiresAt <= nowSeconds(ctx.server)) return undefined;
  if (!ctx.tenant.users.has(session.username)) return undefined;
  if (await ctx.server.store.isGrantRevoked(endedSessionMark(session.sid))) return undefined;
  return session;
}

/**
 * The store mark of a sign-in ended from the back end (`users.endSessions`): its cookie is
 * then refused on every instance. Kept as a revoked "grant" id no real grant can have.
 *
 * @example
 * await ctx.server.store.revokeGrant(endedSessionMark(sid), SESSION_SECONDS);
 */
export function endedSessionMark(sid: string): string {
  return `session-ended:${sid}`;
}

/**
 * Starts a fresh session (a new cookie value, so a planted cookie cannot be adopted) and
 * ends the previous one of this browser. Returns the `Set-Cookie` header value.
 *
 * @example
 * headers.append('Set-Cookie', await startSession(ctx, authentication));
 */
export async function startSession(ctx: RequestContext, user: Authentication): Promise<string> {
  const previous = readCookie(ctx.request, cookieName(ctx, SESSION_COOKIE));
  if (previous) await ctx.server.store.deleteSession(storageKey(previous));
  const value = randomToken();
  const session: Session = { ...user, tenant: ctx.tenant.id, expiresAt: nowSeconds(ctx.server) + SESSION_SECONDS };
  await ctx.server.store.saveSession(storageKey(value), session, SESSION_SECONDS);
  ctx.server.backchannel?.signedIn(ctx.tenant.id, ctx.issuer, user, undefined, session.expiresAt * 1000);
  return cookie(ctx, SESSION_COOKIE, value);
}

/**
 * Ends this browser's session. Returns the `Set-Cookie` header value that clears the cookie.
 *
 * @example
 * headers.append('Set-Cookie', await endSession(ctx));
 */
export async function endSession(ctx: RequestContext): Promise<string> {
  const value = readCookie(ctx.request, cookieName(ctx, SESSION_COOKIE));
  if (value) await ctx.server.store.deleteSession(storageKey(value));
  return cookie(ctx, SESSION_COOKIE, '', 0);
}

/**
 * A CSRF token for a form of a signed-in browser: derived from its session cookie (which
 * pages cannot read) and `purpose`, so it needs no storage and dies with the session.
 *
 * @example
 * const csrf = sessionFormToken(ctx, 'revoke-consent'); // undefined when not signed in
 */
export function sessionFormToken(ctx: RequestContext, purpose: string): string | undefined {
  const value = readCookie(ctx.request, cookieName(ctx, SESSION_COOKIE));
  return value ? storageKey(`${purpose}:${value}`) : undefined;
}
