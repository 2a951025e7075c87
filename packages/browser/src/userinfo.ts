/**
 * The UserInfo endpoint, as a function over the client (like `authorizedFetch`): an app that
 * never calls it does not bundle it.
 */

import { DEV } from './dev';
import { OidcError, fetchUserInfo, type UserInfo } from '@oidc-rp/core';
import type { BrowserClient } from './types';

/**
 * The provider's userinfo claims for the user logged in to `client`, fetched with its access
 * token (refreshed first when due) and its network settings. Rejects with
 * `userinfo_sub_mismatch` when the answer is about another user than the ID token's (its claims
 * are then not used), `login_required` without a session, `invalid_options` for a login
 * without the `openid` scope. Uses only the client's public API.
 *
 * @example
 * ```ts
 * import { getUserInfo } from '@oidc-rp/browser';
 *
 * const { email } = await getUserInfo(client);
 * ```
 */
export async function getUserInfo(
  client: Pick<BrowserClient, 'getAccessToken' | 'getUser' | 'getProvider' | 'http'> & Partial<Pick<BrowserClient, 'dpop'>>,
): Promise<UserInfo> {
  const accessToken = await client.getAccessToken();
  const expectedSubject = client.getUser()?.sub;
  if (!expectedSubject) throw new OidcError('invalid_options', DEV && 'getUserInfo() needs a login with the openid scope.');
  // With the dpop part: `Authorization: DPoP` and a proof, never Bearer.
  return fetchUserInfo({ provider: await client.getProvider(), accessToken, expectedSubject, http: client.http, dpop: await client.dpop?.handle() });
}
