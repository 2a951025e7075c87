/**
 * The `state` of RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0, section 2): sent
 * to the provider's end_session_endpoint, kept in a short-lived cookie of this browser, and
 * checked when the provider sends the user back to the post-logout route, so that only a logout
 * this browser started comes back as one. Internal.
 */

import { createState } from '@oidc-rp/core';
import type { CookieShape } from './cookies';

/** Seconds the browser has to come back from the provider's logout pages. */
const LOGOUT_STATE_MAX_AGE = 600;

// Beside the session cookie, never read as one of its chunks (those end in `.<digit>`).
const nameOf = (shape: CookieShape) => `${shape.name}-logout-state`;

/** A new logout state and the `Set-Cookie` value that keeps it in this browser. */
export function newLogoutState(shape: CookieShape): { state: string; cookie: string } {
  const state = createState(); // 256 random bits, base64url
  return { state, cookie: `${nameOf(shape)}=${state}; ${shape.attributes}; Max-Age=${LOGOUT_STATE_MAX_AGE}` };
}

/**
 * Whether `returned` (the post-logout redirect's `state`) is the one this browser's logout
 * sent; and the `Set-Cookie` value that forgets it either way (a state is used once).
 */
export function checkLogoutState(pairs: Array<[string, string]>, shape: CookieShape, returned: string | null): { ok: boolean; clear: string } {
  const kept = pairs.find(([name]) => name === nameOf(shape))?.[1];
  return { ok: kept !== undefined && kept !== '' && returned === kept, clear: `${nameOf(shape)}=; ${shape.attributes}; Max-Age=0` };
}
