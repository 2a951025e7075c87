/**
 * Pushed authorization request faults (RFC 9126): a valid push refused or answered with a
 * malformed body, and a valid `request_uri` reported expired at authorize, so a client's
 * handling of each can be tested. Consulted only for a client with faults.
 */
import type { Fault } from '../config/fault-names';
import { OAuthError } from '../http/errors';

/**
 * Throws the refusal `par_request_refused` makes of a valid push: 400 `invalid_request`, in the
 * endpoint's JSON shape, and nothing stored.
 *
 * @example
 * if (client.faults.size > 0) refuseFaultyPush(client.faults);
 */
export function refuseFaultyPush(faults: ReadonlySet<Fault>): void {
  if (faults.has('par_request_refused')) {
    throw new OAuthError('invalid_request', 'the authorization request cannot be accepted; check it and push it again');
  }
}

/**
 * The PAR endpoint's 201 body as the client's faults make it: without `request_uri`, or with
 * `expires_in` a string instead of a JSON number (the request is still stored and usable).
 *
 * @example
 * const body = client.faults.size > 0 ? faultyPushAnswer(client.faults, answer) : answer;
 */
export function faultyPushAnswer(faults: ReadonlySet<Fault>, answer: { request_uri: string; expires_in: number }): Record<string, unknown> {
  const out: Record<string, unknown> = { ...answer };
  if (faults.has('par_response_missing_request_uri')) delete out.request_uri;
  if (faults.has('par_response_bad_expires_in')) out.expires_in = String(answer.expires_in);
  return out;
}

/**
 * The error `par_request_uri_expired` makes of a valid pushed request at authorize (already
 * spent): `invalid_request_uri` (RFC 9101 6.2), sent to its redirect URI with its `state`, as a
 * provider that still knows the request says it expired. Undefined without the fault.
 *
 * @example
 * const expired = client.faults.size > 0 ? faultyPushedRequestError(client.faults) : undefined;
 */
export function faultyPushedRequestError(faults: ReadonlySet<Fault>): OAuthError | undefined {
  if (!faults.has('par_request_uri_expired')) return undefined;
  return new OAuthError('invalid_request_uri', 'the request_uri has expired or was already used; push the request again');
}
