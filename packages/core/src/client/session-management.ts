/**
 * OpenID Connect Session Management 1.0, the RP's side of the protocol (§3, §4): the
 * `session_state` of an authorization response, the message the RP frame posts to the
 * provider's `check_session_iframe`, and the answers it may get back. The frames themselves
 * belong to the browser package; these are the rules both sides of a test share.
 */

import { DEV } from '../dev';
import { OidcError } from '../errors';

/** The answers of a `check_session_iframe` (§3.3). */
export type CheckSessionAnswer = 'changed' | 'unchanged' | 'error';

// Printable ASCII without space: the spec forbids the space, which separates the message's parts.
const SESSION_STATE = /^[\x21-\x7e]{1,512}$/;

/**
 * The `session_state` of an authorization response (query or fragment parameters), or
 * undefined when the provider sent none; throws `session_state_invalid` when it is repeated,
 * empty, longer than 512 characters, or holds a space or a non-printable character.
 *
 * @example
 * ```ts
 * const state = readSessionState(new URL(location.href).searchParams);
 * ```
 */
export function readSessionState(params: URLSearchParams): string | undefined {
  const values = params.getAll('session_state');
  if (values.length === 0) return undefined;
  const [value] = values;
  if (values.length !== 1 || !SESSION_STATE.test(value as string)) {
    throw new OidcError('session_state_invalid', DEV && 'The session_state of the authorization response is malformed (repeated, empty, too long, or with a space): it cannot be checked.');
  }
  return value;
}

/**
 * The message an RP frame posts to the `check_session_iframe`: `client_id + " " + session_state`.
 *
 * @example
 * ```ts
 * opFrame.contentWindow.postMessage(checkSessionMessage('spa', state), opOrigin);
 * ```
 */
export function checkSessionMessage(clientId: string, sessionState: string): string {
  if (!clientId || clientId.includes(' ')) throw new OidcError('invalid_options', DEV && 'The client id of a session check must be non-empty and without spaces.');
  return `${clientId} ${sessionState}`;
}

/**
 * The answer in a message from the `check_session_iframe`, or undefined when the data is not one.
 * The caller checks the message's origin and source first: this reads the data only.
 *
 * @example
 * ```ts
 * if (event.origin === opOrigin && event.source === opFrame.contentWindow) handle(readCheckSessionAnswer(event.data));
 * ```
 */
export function readCheckSessionAnswer(data: unknown): CheckSessionAnswer | undefined {
  return data === 'changed' || data === 'unchanged' || data === 'error' ? data : undefined;
}
