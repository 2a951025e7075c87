/**
 * The other front-channel response types as opt-in parts, given to the client's `implicitFlow`
 * option like `implicitFlow` itself (so the default client reads no new option and carries none
 * of this): `idTokenFlow` (`id_token`, sign-in only) and `hybridFlow(type)` (`code id_token`,
 * `code token id_token`, `code token`), each answered in the URL fragment. Core validates every
 * rule (nonce, `at_hash`, `c_hash`, both ID tokens naming one user) before anything is stored.
 */

import { buildAuthorizationRequest, completeAuthorization, type ResponseType } from '@oidc-rp/core';
import { invalidOptions } from '@oidc-rp/core/internal';
import { DEV } from './dev';
import type { ImplicitFlow, ImplicitFlowPart } from './implicit';

/** The hybrid response types {@link hybridFlow} takes. */
export type HybridResponseType = Extract<ResponseType, 'code id_token' | 'code token id_token' | 'code token'>;

const HYBRID: readonly string[] = ['code id_token', 'code token id_token', 'code token'];

/**
 * The implicit flow without an access token (`response_type=id_token`): the user is signed in
 * from the ID token in the fragment; there is no access token, so `getAccessToken` has none to
 * give (`accessToken` is the empty string) and no refresh. For sign-in only, as the OpenID
 * Implicit RP plan's `id_token` variant.
 *
 * @deprecated The service deprecates the implicit flow; use the default code flow with PKCE.
 *
 * @example
 * ```ts
 * import { createBrowserClient, idTokenFlow } from '@oidc-rp/browser';
 *
 * const client = createBrowserClient({ ...options, implicitFlow: idTokenFlow });
 * ```
 */
export const idTokenFlow = {
  request: (params) => buildAuthorizationRequest({ ...params, responseType: 'id_token', responseMode: 'fragment' }),
  complete: completeAuthorization,
} satisfies ImplicitFlow as unknown as ImplicitFlowPart;

/**
 * The hybrid flow: a code (with PKCE) and an ID token (and, with `token`, an access token) in
 * the fragment. The front-channel ID token is validated first (`c_hash`, `at_hash` when an access
 * token came), then the code is redeemed with the verifier; the session holds the token
 * endpoint's tokens, refresh token included. Given as `implicitFlow: hybridFlow(type)`.
 * `invalid_options` for another response type.
 *
 * @example
 * ```ts
 * import { createBrowserClient, hybridFlow } from '@oidc-rp/browser';
 *
 * const client = createBrowserClient({ ...options, implicitFlow: hybridFlow('code id_token') });
 * ```
 */
export function hybridFlow(responseType: HybridResponseType = 'code id_token'): ImplicitFlowPart {
  if (!HYBRID.includes(responseType)) {
    throw invalidOptions(DEV && `hybridFlow takes ${HYBRID.map((type) => `"${type}"`).join(', ')}.`);
  }
  return {
    request: (params) => buildAuthorizationRequest({ ...params, responseType, responseMode: 'fragment' }),
    complete: completeAuthorization,
  } satisfies ImplicitFlow as unknown as ImplicitFlowPart;
}
