/** The UserInfo endpoint (OIDC Core 5.3): claims about the logged-in user. */

import { DEV } from '../dev';
import { invalidOptions, requireString } from '../options';
import { assertSecureUrl } from '../provider/discovery';
import { OidcError } from '../errors';
import { discardBody, isJsonObject, readJson, sendRequest } from '../http/transport';
import type { HttpOptions, ProviderMetadata } from '../types';
import type { DpopHandle, DpopInternals } from './dpop-proof-maker';

/** Input of {@link fetchUserInfo}. */
export interface UserInfoParams {
  provider: ProviderMetadata;
  accessToken: string;
  /** The `sub` of the validated ID token: the answer must be about the same user. */
  expectedSubject: string;
  http?: HttpOptions;
  /**
   * The DPoP handle the access token is bound to: the request then carries `Authorization:
   * DPoP` and a proof (with one nonce retry), never `Bearer`.
   */
  dpop?: DpopHandle;
  /**
   * Where the access token goes: `header` (`Authorization: Bearer`, the default) or `body`
   * (a POST with the `access_token` form field, RFC 6750 2.2, for providers that want it).
   * Bearer tokens only: a DPoP-bound token always goes in the header.
   */
  tokenIn?: 'header' | 'body' | undefined;
}

/** UserInfo claims; `sub` is always present and equals the expected subject. */
export interface UserInfo {
  sub: string;
  [claim: string]: unknown;
}

/**
 * Fetches the user's claims with the access token (`Authorization: Bearer`, or `DPoP` with `dpop`,
 * or in a POST body with `tokenIn: 'body'`). Non-2xx →
 * `userinfo_error`; a `sub` other than `expectedSubject` → `userinfo_sub_mismatch`
 * (OIDC Core 5.3.2: the claims might belong to someone else).
 *
 * @example
 * ```ts
 * const user = await fetchUserInfo({
 *   provider,
 *   accessToken: tokens.accessToken,
 *   expectedSubject: tokens.claims!.sub,
 * });
 * user.email;
 * ```
 */
export async function fetchUserInfo(params: UserInfoParams): Promise<UserInfo> {
  const { provider, accessToken, expectedSubject } = params;
  const endpoint = provider.userinfo_endpoint;
  if (typeof endpoint !== 'string') {
    throw invalidOptions(DEV && 'The provider has no userinfo_endpoint.');
  }
  assertSecureUrl(endpoint, DEV && "The provider's userinfo_endpoint");
  requireString(accessToken, DEV && 'accessToken');
  if (typeof expectedSubject !== 'string' || expectedSubject === '') {
    throw invalidOptions(DEV && "expectedSubject is required: pass the ID token's sub.");
  }
  const dpop = params.dpop as DpopInternals | undefined;
  const inBody = params.tokenIn === 'body';
  if (params.tokenIn !== undefined && !inBody && params.tokenIn !== 'header') throw invalidOptions(DEV && 'tokenIn must be "header" or "body".');
  if (inBody && dpop) throw invalidOptions(DEV && 'tokenIn "body" is for Bearer tokens: a DPoP-bound token goes in the Authorization header.');
  const headers = new Headers({ Accept: 'application/json' });
  // One scheme per token: a DPoP-bound token never goes as Bearer.
  if (!dpop && !inBody) headers.set('Authorization', `Bearer ${accessToken}`);
  if (inBody) headers.set('Content-Type', 'application/x-www-form-urlencoded');
  const init: RequestInit = inBody
    ? { method: 'POST', headers, redirect: 'manual', body: new URLSearchParams({ access_token: accessToken }).toString() }
    : { method: 'GET', headers, redirect: 'manual' };
  const claims = await (dpop ? dpop.sender_(accessToken) : sendRequest)(
    endpoint,
    init,
    params.http,
    DEV && 'The userinfo endpoint',
    async (response) => {
      if (!response.ok) {
        await discardBody(response);
        const hint = response.status === 401 ? 'refresh the access token or log in again' : 'check the scopes and the provider';
        throw new OidcError('userinfo_error', DEV && `The userinfo endpoint answered HTTP ${response.status}; ${hint}.`);
      }
      const body = await readJson(response);
      if (!body.ok || !isJsonObject(body.value)) {
        throw new OidcError('userinfo_error', DEV && 'The userinfo endpoint answered no JSON object (signed userinfo is unsupported).');
      }
      return body.value;
    },
  );
  if (typeof claims.sub !== 'string' || claims.sub !== expectedSubject) {
    throw new OidcError('userinfo_sub_mismatch', DEV && 'The userinfo is about another user (sub differs); log in again.');
  }
  return claims as UserInfo;
}
