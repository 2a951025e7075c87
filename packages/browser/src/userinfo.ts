/** The UserInfo endpoint as an opt-in part: `getUserInfo()` works only with it. */

import { fetchUserInfo } from '@oidc-rp/core';

/**
 * What the client needs for `getUserInfo()`: core's checked userinfo call.
 *
 * @example
 * ```ts
 * const part: UserInfoPart = userInfo;
 * ```
 */
export interface UserInfoPart {
  fetch: typeof fetchUserInfo;
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
export const userInfo: UserInfoPart = { fetch: fetchUserInfo };
