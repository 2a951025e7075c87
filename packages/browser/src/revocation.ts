/**
 * Token revocation at logout (RFC 7009), as an opt-in part: with it, `logout()` (and a logout
 * heard from another tab, for a session of this tab's own) asks the provider to end the refresh
 * token, so a copy taken earlier stops working at once instead of at its expiry.
 */

import { revokeTokenAsPublicClient, type HttpOptions, type ProviderMetadata } from '@oidc-rp/core';

/** What the part is given when a session ends. */
export interface RevocationContext {
  client: { clientId: string };
  http?: HttpOptions | undefined;
  provider: ProviderMetadata;
  /** The tokens of the session that ended. */
  session: { accessToken: string; refreshToken?: string | undefined };
}

/**
 * What the client needs to revoke an ended session's tokens.
 *
 * @example
 * ```ts
 * const part: RevocationPart = revocation;
 * ```
 */
export interface RevocationPart {
  /**
   * Revokes the session's refresh token (its access token when it has none); resolves false
   * when the provider has no revocation endpoint.
   */
  revoke(context: RevocationContext): Promise<boolean>;
}

/**
 * Revokes the refresh token at logout (the access token when there is none), when the provider
 * offers a `revocation_endpoint`; a failure is reported as an `error` event, the local logout
 * happens regardless. Recommended unless the provider ends refresh tokens at its own logout.
 *
 * @example
 * ```ts
 * import { createBrowserClient, revocation } from '@oidc-rp/browser';
 *
 * const client = createBrowserClient({ ...options, revocation });
 * await client.logout(); // revokes, then goes to the provider's logout page
 * ```
 */
export const revocation: RevocationPart = {
  revoke: ({ session, ...rest }) =>
    revokeTokenAsPublicClient({
      ...rest,
      token: session.refreshToken ?? session.accessToken,
      tokenTypeHint: session.refreshToken ? 'refresh_token' : 'access_token',
    }),
};
