/** The UserInfo endpoint as an opt-in part: `getUserInfo()` works only with it. */

import { DEV } from './dev';
import { OidcError, fetchUserInfo, type HttpOptions, type ProviderMetadata, type UserInfo } from '@oidc-rp/core';

/** What `getUserInfo()` needs from the client. */
export interface UserInfoContext {
  /** A valid access token (refreshed first when due). */
  accessToken: () => Promise<string>;
  /** The `sub` of the logged-in user's ID token. */
  subject: () => string | undefined;
  provider: () => Promise<ProviderMetadata>;
  http: HttpOptions | undefined;
}

/**
 * What the client needs for `getUserInfo()`: core's checked userinfo call, given the session.
 *
 * @example
 * ```ts
 * const part: UserInfoPart = userInfo;
 * ```
 */
export interface UserInfoPart {
  get(context: UserInfoContext): Promise<UserInfo>;
}

/**
 * Enables `client.getUserInfo()`.
 *
 * @example
 * ```ts
 * import { createBrowserClient, userInfo } from '@oidc-rp/browser';
 *
 * const client = createBrowserClient({ ...options, userInfo });
 * const { email } = await client.getUserInfo();
 * ```
 */
export const userInfo: UserInfoPart = {
  async get(context) {
    const accessToken = await context.accessToken();
    const expectedSubject = context.subject();
    if (!expectedSubject) throw new OidcError('invalid_options', DEV && 'getUserInfo() needs a login with the openid scope.');
    return fetchUserInfo({ provider: await context.provider(), accessToken, expectedSubject, http: context.http });
  },
};
