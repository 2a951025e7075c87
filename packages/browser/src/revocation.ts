/**
 * Token revocation at logout (RFC 7009), as an opt-in part: with it, `logout()` (and a logout
 * heard from another tab, for a session of this tab's own) asks the provider to end the refresh
 * token, so a copy taken earlier stops working at once instead of at its expiry.
 */

import { none, revokeToken, type HttpOptions, type ProviderMetadata } from '@oidc-rp/core';
import type { Part } from './parts';

/** What the part is given when a session ends. Internal. */
export interface RevocationContext {
  client: { clientId: string };
  http?: HttpOptions | undefined;
  provider: ProviderMetadata;
  /** The tokens of the session that ended. */
  session: { accessToken: string; refreshToken?: string | undefined };
}

/**
 * Revocation at logout, as the client's `revocation` option takes it. Opaque.
 *
 * @example
 * ```ts
 * const part: RevocationPart = revocation;
 * ```
 */
export type RevocationPart = Part<'revocation'>;

/** What the client uses of the part. Internal. */
export interface Revocation {
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
export const revocation = {
  revoke: ({ session, ...rest }) =>
    revokeToken({
      ...rest,
      clientAuth: none(),
      token: session.refreshToken ?? session.accessToken,
      tokenTypeHint: session.refreshToken ? 'refresh_token' : 'access_token',
    }),
} satisfies Revocation as unknown as RevocationPart;
