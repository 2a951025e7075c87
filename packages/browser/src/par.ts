/**
 * Pushed authorization requests (RFC 9126) as an opt-in part: every login pushes its parameters
 * to the provider's `pushed_authorization_request_endpoint` from the page (a public client sends
 * its `client_id` only), and the browser is sent to the authorization endpoint with `client_id`
 * and the `request_uri` the provider answered. The push is core's `pushAuthorizationRequest`;
 * this module only puts it between the flow's request builder and the redirect.
 */

import { none, pushAuthorizationRequest, usesPushedAuthorization } from '@oidc-rp/core';
import type { ResolvedOptions } from './options';
import type { Part } from './parts';

/**
 * Pushed authorization requests, as the client's `par` option takes it (made by {@link par}). Opaque.
 *
 * @example
 * ```ts
 * const part: ParPart = par();
 * ```
 */
export type ParPart = Part<'par'>;

/** What the client uses of the part. Internal: names ending in `_` are shortened by the build. */
export interface Par {
  /**
   * Binds the part to one client: replaces the flow's `request_` in `options` with one that
   * builds the request as before (with the dpop part's `dpop_jkt` when that part wraps this one),
   * pushes it, and returns the short URL with the same transaction.
   */
  bind_(options: ResolvedOptions): void;
}

/**
 * Pushes every login (RFC 9126): `login()`, in a redirect or a popup, first posts all the
 * authorization parameters (redirect URI, scope, state, nonce, PKCE challenge, `prompt`,
 * `login_hint`, `extra`, and with `dpop()` the key's `dpop_jkt`) to the provider's
 * `pushed_authorization_request_endpoint`, then sends the browser to the authorization endpoint
 * with `client_id` and `request_uri` only. The transaction and the callback are unchanged. A
 * provider without that endpoint is `invalid_options` at `login()` (as `par: true` in
 * `@oidc-rp/node`); a refused push is `token_endpoint_error` with the provider's `error`, a
 * failed one `network_error` or `request_timeout`, an answer without a `request_uri`
 * `par_response_invalid`.
 *
 * @example
 * ```ts
 * import { createBrowserClient, discovery, par } from '@oidc-rp/browser';
 *
 * const client = createBrowserClient({ ...options, provider: discovery('https://login.example.com/acme'), par: par() });
 * await client.login(); // to https://login.example.com/…/authorize?client_id=spa&request_uri=urn%3A…
 * ```
 */
export function par(): ParPart {
  const part: Par = {
    bind_(options) {
      const { request_: request, clientId, http } = options;
      options.request_ = async (params) => {
        // Wanted: a provider that does not offer PAR is refused before anything is built or sent.
        usesPushedAuthorization(params.provider, true);
        return pushAuthorizationRequest({ provider: params.provider, client: { clientId }, clientAuth: none(), request: await request(params), http });
      };
    },
  };
  return part as unknown as ParPart;
}
