/** The deprecated implicit flow as an opt-in part: the default client carries only the code flow. */

import {
  buildAuthorizationRequest,
  completeAuthorization,
  type AuthorizationRequest,
  type AuthorizationRequestParams,
} from '@oidc-rp/core';
import type { Part } from './parts';

/**
 * The implicit flow, as the client's `implicitFlow` option takes it. Opaque.
 *
 * @example
 * ```ts
 * const part: ImplicitFlowPart = implicitFlow;
 * ```
 */
export type ImplicitFlowPart = Part<'implicitFlow'>;

/** What the client uses of the part: a request builder for this flow and core's callback for every flow. Internal. */
export interface ImplicitFlow {
  request: (params: Omit<AuthorizationRequestParams, 'responseType' | 'responseMode' | 'pkce'>) => Promise<AuthorizationRequest>;
  complete: typeof completeAuthorization;
}

/**
 * Turns the client to the implicit flow (`response_type=id_token token`: tokens in the URL
 * fragment, no refresh token), one switch: `createBrowserClient({ ...options, implicitFlow })`.
 *
 * @deprecated The service deprecates the implicit flow; use the default code flow with PKCE.
 *
 * @example
 * ```ts
 * import { createBrowserClient, implicitFlow } from '@oidc-rp/browser';
 *
 * const client = createBrowserClient({ ...options, implicitFlow });
 * ```
 */
export const implicitFlow = {
  request: (params) => buildAuthorizationRequest({ ...params, responseType: 'id_token token' }),
  complete: completeAuthorization,
} satisfies ImplicitFlow as unknown as ImplicitFlowPart;
