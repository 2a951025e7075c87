/**
 * Pushed authorization requests (RFC 9126): the parameters of an authorization request go to
 * the provider over the back channel, authenticated like a token request, and the browser
 * carries only `client_id` and the `request_uri` the provider answered. Nothing on the front
 * channel can then be read or changed. An app that never pushes bundles none of this module.
 */

import { DEV } from '../dev';
import type { AuthorizationRequest } from './authorization-request';
import { authenticate, type ClientAuth } from '../provider/client-auth';
import { assertSecureUrl } from '../provider/discovery';
import type { DpopHandle, DpopInternals } from './dpop-proof-maker';
import { OidcError } from '../errors';
import { formHeaders, isJsonObject, readJson, sendRequest } from '../http/transport';
import { invalidOptions } from '../options';
import { tokenEndpointError } from './token-endpoint';
import type { ClientConfig, HttpOptions, ProviderMetadata } from '../types';

/** Input of {@link pushAuthorizationRequest}. */
export interface PushAuthorizationRequestParams {
  provider: ProviderMetadata;
  client: ClientConfig;
  /** How the client authenticates at the PAR endpoint, as at the token endpoint: `none()` for a public client. */
  clientAuth: ClientAuth;
  /** The request {@link buildAuthorizationRequest} made: its URL's parameters are pushed. */
  request: AuthorizationRequest;
  http?: HttpOptions;
  /**
   * A DPoP handle: the push carries a proof, so the provider binds the code to its key (RFC 9449
   * 10.1) — the same effect as `dpop_jkt`.
   */
  dpop?: DpopHandle;
}

/**
 * Whether a login should be pushed: the provider requires it
 * (`require_pushed_authorization_requests`), or the app asks for it (`wanted`) and the provider
 * has a `pushed_authorization_request_endpoint`. `wanted: true` on a provider without one is
 * `invalid_options` (the app asked for a protection it cannot have); `wanted: false` on one that
 * requires it is `invalid_options` too.
 *
 * @example
 * ```ts
 * if (usesPushedAuthorization(provider, true)) request = await pushAuthorizationRequest({ ... });
 * ```
 */
export function usesPushedAuthorization(provider: ProviderMetadata, wanted?: boolean): boolean {
  const required = provider?.require_pushed_authorization_requests === true;
  const offered = typeof provider?.pushed_authorization_request_endpoint === 'string';
  if (wanted === false && required) {
    throw invalidOptions(DEV && 'The provider requires pushed authorization requests (PAR): leave par unset or set it to true.');
  }
  if ((wanted === true || required) && !offered) {
    throw invalidOptions(DEV && 'The provider has no pushed_authorization_request_endpoint: it does not offer PAR; leave par unset.');
  }
  return required || wanted === true;
}

/**
 * Pushes an authorization request (RFC 9126) and returns it with its URL replaced by the short
 * one: the authorization endpoint with `client_id` and `request_uri` only. The transaction is
 * unchanged (the state, nonce and verifier stay with the app; the callback is checked as
 * always). An error answer is a `TokenEndpointError` (same error shape, RFC 9126 2.3); an answer
 * without a usable `request_uri`, or whose `expires_in` is not a positive number, is
 * `par_response_invalid`. The `request_uri` expires quickly
 * (usually 60 s) and works once: push right before redirecting.
 *
 * @example
 * ```ts
 * const pushed = await pushAuthorizationRequest({
 *   provider,
 *   client: { clientId: 'web' },
 *   clientAuth: privateKeyJwt(key),
 *   request: await buildAuthorizationRequest({ provider, clientId: 'web', redirectUri, scope: 'openid' }),
 * });
 * // redirect to pushed.url; keep pushed.transaction for the callback
 * ```
 */
export async function pushAuthorizationRequest(params: PushAuthorizationRequestParams): Promise<AuthorizationRequest> {
  const { provider, client, request } = params;
  const endpoint = provider?.pushed_authorization_request_endpoint;
  if (typeof endpoint !== 'string') throw invalidOptions(DEV && 'The provider has no pushed_authorization_request_endpoint.');
  assertSecureUrl(endpoint, DEV && "The provider's pushed_authorization_request_endpoint");
  if (!(request?.url instanceof URL) || request.url.searchParams.get('client_id') !== client?.clientId) {
    throw invalidOptions(DEV && 'request must come from buildAuthorizationRequest for this client.');
  }
  const body = new URLSearchParams(request.url.searchParams);
  const headers = formHeaders();
  await authenticate(params.clientAuth, { clientId: client.clientId, provider, body, headers });
  const dpop = params.dpop as DpopInternals | undefined;
  const requestUri = await (dpop ? dpop.sender_() : sendRequest)(
    endpoint,
    { method: 'POST', headers, body, redirect: 'manual' },
    params.http,
    DEV && 'The PAR endpoint',
    async (response) => {
      const json = await readJson(response);
      if (response.status !== 201 && response.status !== 200) throw tokenEndpointError(response.status, json);
      const answer = json.ok && isJsonObject(json.value) ? json.value : {};
      const value = answer.request_uri;
      const expiresIn = answer.expires_in;
      // RFC 9126 2.2: both are required; an answer without a positive numeric lifetime is not a PAR answer.
      if (typeof value !== 'string' || value === '' || value.length > 2048 || typeof expiresIn !== 'number' || !(expiresIn > 0)) {
        throw new OidcError('par_response_invalid', DEV && 'The PAR endpoint answered without a request_uri and a positive numeric expires_in (RFC 9126 2.2); check the endpoint URL.');
      }
      return value;
    },
  );
  // The endpoint as published (a query it has, e.g. a policy, stays), and these two parameters only.
  const url = new URL(provider.authorization_endpoint);
  url.searchParams.set('client_id', client.clientId);
  url.searchParams.set('request_uri', requestUri);
  return { url, transaction: request.transaction };
}
