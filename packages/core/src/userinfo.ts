/** The UserInfo endpoint (OIDC Core 5.3): claims about the logged-in user. */

import { assertSecureUrl } from './discovery';
import { OidcError } from './errors';
import { discardBody, isJsonObject, readJson, sendRequest } from './http';
import type { HttpOptions, ProviderMetadata } from './types';

/** Input of {@link fetchUserInfo}. */
export interface UserInfoParams {
  provider: ProviderMetadata;
  accessToken: string;
  /** The `sub` of the validated ID token: the answer must be about the same user. */
  expectedSubject: string;
  http?: HttpOptions;
}

/** UserInfo claims; `sub` is always present and equals the expected subject. */
export interface UserInfo {
  sub: string;
  [claim: string]: unknown;
}

/**
 * Fetches the user's claims with the access token (`Authorization: Bearer`). Non-2xx →
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
    throw new OidcError('invalid_options', 'The provider metadata has no userinfo_endpoint.');
  }
  assertSecureUrl(endpoint, "The provider's userinfo_endpoint");
  if (typeof accessToken !== 'string' || accessToken === '') {
    throw new OidcError('invalid_options', 'accessToken is required.');
  }
  if (typeof expectedSubject !== 'string' || expectedSubject === '') {
    throw new OidcError('invalid_options', 'expectedSubject is required: pass the sub of the validated ID token.');
  }
  const claims = await sendRequest(
    endpoint,
    {
      method: 'GET',
      headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/json' },
      redirect: 'manual',
    },
    params.http,
    'the userinfo endpoint',
    async (response) => {
      if (!response.ok) {
        await discardBody(response);
        const hint =
          response.status === 401
            ? 'the access token is expired or revoked: refresh it or log in again'
            : 'check the access token scopes and the provider';
        throw new OidcError('userinfo_error', `The userinfo endpoint answered HTTP ${response.status}; ${hint}.`);
      }
      const body = await readJson(response);
      if (!body.ok || !isJsonObject(body.value)) {
        throw new OidcError(
          'userinfo_error',
          'The userinfo endpoint did not answer with a JSON object (signed or encrypted userinfo is not supported).',
        );
      }
      return body.value;
    },
  );
  if (typeof claims.sub !== 'string' || claims.sub !== expectedSubject) {
    throw new OidcError(
      'userinfo_sub_mismatch',
      'The userinfo response is about another user than the ID token (sub differs); do not use it, log the user in again.',
    );
  }
  return claims as UserInfo;
}
