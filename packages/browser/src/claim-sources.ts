/**
 * Aggregated and distributed claims (OIDC Core 5.6.2), as a function over the client: an app
 * that never calls it does not bundle it.
 */

import { resolveClaimSources, type ClaimsProvider, type ResolvedClaims } from '@oidc-rp/core';
import type { BrowserClient } from './types';

/**
 * The claims of a userinfo answer (or the ID token's) with their aggregated and distributed
 * sources resolved by core's `resolveClaimSources`: a source's claims are added only once its
 * JWT verifies with the provider's keys or those of one of `claimsProviders`; distributed ones
 * are fetched over https from a trusted provider's origin only (the provider's CORS must allow
 * the page). What was not used is in `unresolved`, each with a typed error.
 *
 * @example
 * ```ts
 * import { getUserInfo, resolveClaims } from '@oidc-rp/browser';
 *
 * const { claims, unresolved } = await resolveClaims(client, await getUserInfo(client));
 * ```
 */
export async function resolveClaims(
  client: Pick<BrowserClient, 'getProvider' | 'http'>,
  claims: Record<string, unknown>,
  options: { claimsProviders?: readonly ClaimsProvider[] } = {},
): Promise<ResolvedClaims> {
  return resolveClaimSources(claims, { provider: await client.getProvider(), http: client.http, claimsProviders: options.claimsProviders });
}
