/** RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0). */

import { DEV } from '../dev';
import { assertSecureUrl, tryParseUrl } from '../provider/discovery';
import { invalidOptions, requireString } from '../options';
import { setDefined } from '../http/search-params';
import type { ProviderMetadata } from '../types';

/** Input of {@link buildEndSessionUrl}. */
export interface EndSessionParams {
  provider: ProviderMetadata;
  clientId: string;
  /** The ID token of the session being ended: lets the provider skip the "log out?" question. */
  idTokenHint?: string;
  /** Where the provider sends the user afterwards; must be registered for the client. */
  postLogoutRedirectUri?: string;
  state?: string;
}

/**
 * The provider's logout URL to send the user agent to, or `undefined` when the provider
 * has no `end_session_endpoint` (then clearing the local session is all there is).
 *
 * @example
 * ```ts
 * const url = buildEndSessionUrl({
 *   provider: serviceProvider('http://127.0.0.1:4000/demo'),
 *   clientId: 'spa',
 *   idTokenHint: tokens.idToken,
 *   postLogoutRedirectUri: 'http://127.0.0.1:5173/',
 * });
 * if (url) location.assign(url);
 * ```
 */
export function buildEndSessionUrl(params: EndSessionParams): URL | undefined {
  const { provider, clientId, idTokenHint, postLogoutRedirectUri, state } = params;
  const endpoint = provider.end_session_endpoint;
  if (endpoint === undefined) return undefined;
  assertSecureUrl(endpoint, DEV && "The provider's end_session_endpoint");
  requireString(clientId, DEV && 'clientId');
  if (postLogoutRedirectUri !== undefined && !tryParseUrl(postLogoutRedirectUri)) {
    throw invalidOptions(DEV && 'postLogoutRedirectUri must be an absolute URL.');
  }
  const url = new URL(endpoint);
  setDefined(
    { client_id: clientId, id_token_hint: idTokenHint, post_logout_redirect_uri: postLogoutRedirectUri, state },
    url.searchParams,
  );
  return url;
}
