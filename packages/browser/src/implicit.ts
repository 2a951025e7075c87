/** The deprecated implicit flow as an opt-in part: the default client carries only the code flow. */

import { buildAuthorizationRequest, completeAuthorization } from '@oidc-rp/core';

/**
 * What the client needs for an implicit login: core's request builder and callback for every flow.
 *
 * @example
 * ```ts
 * const part: ImplicitFlowPart = implicitFlow;
 * ```
 */
export interface ImplicitFlowPart {
  request: typeof buildAuthorizationRequest;
  complete: typeof completeAuthorization;
}

/**
 * Enables `responseType: 'id_token token'` (tokens in the URL fragment, no refresh token).
 *
 * @deprecated The service deprecates the implicit flow; use the default code flow with PKCE.
 *
 * @example
 * ```ts
 * import { createBrowserClient, implicitFlow } from '@oidc-rp/browser';
 *
 * const client = createBrowserClient({ ...options, responseType: 'id_token token', implicitFlow });
 * ```
 */
export const implicitFlow: ImplicitFlowPart = { request: buildAuthorizationRequest, complete: completeAuthorization };
