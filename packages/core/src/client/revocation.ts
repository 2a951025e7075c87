/** Token revocation (RFC 7009): tells the provider a token is no longer needed. */

import { DEV } from '../dev';
import { assertSecureUrl } from '../provider/discovery';
import { invalidOptions, requireString } from '../options';
import { setDefined } from '../http/search-params';
import { discardBody, formHeaders, readJson, sendRequest } from '../http/transport';
import { authenticate } from '../provider/client-auth';
import type { DpopInternals } from './dpop-proof-maker';
import { type TokenCallBase, tokenEndpointError } from './token-endpoint';

/** Input of {@link revokeToken}. */
export interface RevokeTokenParams extends TokenCallBase {
  token: string;
  tokenTypeHint?: 'refresh_token' | 'access_token';
}

/**
 * Revokes a refresh or access token. Resolves `true` once the provider accepted the request
 * (RFC 7009 answers 200 even for tokens it did not know), `false` without any request when
 * the provider has no `revocation_endpoint`. An error answer → `TokenEndpointError`.
 *
 * @example
 * ```ts
 * await revokeToken({
 *   provider: serviceProvider('http://127.0.0.1:4000/demo'),
 *   client: { clientId: 'spa' },
 *   clientAuth: none(),
 *   token: tokens.refreshToken!,
 *   tokenTypeHint: 'refresh_token',
 * });
 * ```
 */
export async function revokeToken(params: RevokeTokenParams): Promise<boolean> {
  const { provider, client, token, tokenTypeHint } = params;
  const endpoint = provider.revocation_endpoint;
  if (endpoint === undefined) return false;
  assertSecureUrl(endpoint, DEV && "The provider's revocation_endpoint");
  requireString(token, DEV && 'token');
  if (tokenTypeHint !== undefined && tokenTypeHint !== 'refresh_token' && tokenTypeHint !== 'access_token') {
    throw invalidOptions(DEV && 'tokenTypeHint must be refresh_token or access_token.');
  }
  const body = setDefined({ token, token_type_hint: tokenTypeHint });
  const headers = formHeaders();
  await authenticate(params.clientAuth, { clientId: client?.clientId, provider, body, headers });

  // A DPoP-bound refresh token of a public client may need a proof to be revoked (RFC 9449 5).
  const dpop = params.dpop as DpopInternals | undefined;
  return (dpop ? dpop.sender_() : sendRequest)(
    endpoint,
    { method: 'POST', headers, body, redirect: 'manual' },
    params.http,
    DEV && 'The revocation endpoint',
    async (response) => {
      if (response.ok) {
        await discardBody(response);
        return true;
      }
      throw tokenEndpointError(response.status, await readJson(response));
    },
  );
}
