/**
 * OpenID Connect Front-Channel Logout 1.0, the RP's check of a request to its
 * `frontchannel_logout_uri` (§2, §3): `iss` must be the provider's issuer and `sid` must be
 * present; the caller then ends only the sessions of that `sid`. A request without them is
 * refused: ending "the current session" on a bare GET would let any site that can load the
 * page log the user out (and with third-party cookies blocked, the cookie is not there anyway).
 * Register `frontchannel_logout_session_required: true` with the provider.
 */

import { DEV } from '../dev';
import { OidcError } from '../errors';

/** What a valid front-channel logout request names. */
export interface FrontChannelLogoutRequest {
  iss: string;
  sid: string;
}

/**
 * Reads the `iss` and `sid` of a request to the `frontchannel_logout_uri`: throws
 * `frontchannel_logout_iss_mismatch` when `iss` is missing, repeated or another issuer's, and
 * `frontchannel_logout_sid_missing` when `sid` is missing, repeated or empty.
 *
 * @example
 * ```ts
 * const { sid } = readFrontChannelLogoutRequest(new URL(request.url), 'http://127.0.0.1:4000/demo');
 * // end the sessions whose ID token carried this sid
 * ```
 */
export function readFrontChannelLogoutRequest(url: URL | URLSearchParams, issuer: string): FrontChannelLogoutRequest {
  const params = url instanceof URL ? url.searchParams : url;
  const iss = params.getAll('iss');
  if (iss.length !== 1 || iss[0] !== issuer) {
    throw new OidcError(
      'frontchannel_logout_iss_mismatch',
      DEV && 'The front-channel logout request does not name this provider in `iss` (missing, repeated or another issuer): nothing was ended.',
    );
  }
  const sid = params.getAll('sid');
  if (sid.length !== 1 || !sid[0]) {
    throw new OidcError(
      'frontchannel_logout_sid_missing',
      DEV && 'The front-channel logout request has no `sid`: register the client with frontchannel_logout_session_required: true so the provider sends iss and sid. Nothing was ended.',
    );
  }
  return { iss: iss[0] as string, sid: sid[0] as string };
}
