/**
 * OpenID Connect Session Management 1.0, the provider's side of the state: the OP browser state
 * (a cookie the check_session_iframe reads with JavaScript) and the `session_state` of each
 * authorization response, a salted hash of client_id, the RP's origin and that browser state
 * (§3, §4.2). The browser state is derived from the sign-in's `sid`: it changes with every new
 * sign-in and is gone (cleared cookie) after logout, which is what "changed" means.
 */
import { nodeCrypto } from '../crypto/node-crypto';
import { randomToken, storageKey } from '../crypto/secrets';
import { cookieName } from './session';
import type { RequestContext } from '../request/context';

/** Base name of the OP browser-state cookie (readable by the check_session_iframe: not HttpOnly). */
export const BROWSER_STATE_COOKIE = 'rs_opbs';

/**
 * The OP browser state of a sign-in: public (the iframe reads it), not derived from any secret.
 *
 * @example
 * browserState(user.sid);
 */
export function browserState(sid: string): string {
  return storageKey(`op-browser-state:${sid}`);
}

/**
 * A `Set-Cookie` value setting (sign-in) or clearing (logout, `sid` undefined) the browser-state
 * cookie. SameSite=Lax like the session cookie; not HttpOnly, as the spec's iframe reads it.
 *
 * @example
 * headers.append('Set-Cookie', browserStateCookie(ctx, authentication.sid));
 */
export function browserStateCookie(ctx: RequestContext, sid: string | undefined): string {
  const parts = [
    `${cookieName(ctx, BROWSER_STATE_COOKIE)}=${sid === undefined ? '' : browserState(sid)}`,
    `Path=${ctx.secure ? '/' : `/${ctx.tenant.id}/`}`,
    'SameSite=Lax',
  ];
  if (ctx.secure) parts.push('Secure');
  if (sid === undefined) parts.push('Max-Age=0');
  return parts.join('; ');
}

/**
 * The `session_state` of an authorization response (§3): `base64url(SHA-256(client_id + " " +
 * origin + " " + browser state + " " + salt)) + "." + salt`, the origin being the redirect URI's.
 * The check_session_iframe recomputes it with the origin of the RP frame that asks.
 *
 * @example
 * params.session_state = sessionState('web', 'http://127.0.0.1:3000/callback', user.sid);
 */
export function sessionState(clientId: string, redirectUri: string, sid: string, salt = randomToken(12)): string {
  const origin = new URL(redirectUri).origin;
  const hash = nodeCrypto().createHash('sha256').update(`${clientId} ${origin} ${browserState(sid)} ${salt}`, 'utf8').digest('base64url');
  return `${hash}.${salt}`;
}

