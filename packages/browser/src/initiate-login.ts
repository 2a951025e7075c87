/**
 * Third-party initiated login (OIDC Core 4), as a function over the client: the page at the
 * client's `initiate_login_uri` calls it, and it starts the ordinary login the provider asked
 * for. An app that never calls it does not bundle it.
 */

import { readInitiateLogin, type InitiatedLogin } from '@oidc-rp/core';
import type { BrowserClient } from './types';

/** Options of {@link loginFromInitiation}. */
export interface LoginFromInitiationOptions {
  /** The initiation URL (the page's, by default): its query holds `iss`, `login_hint`, `target_link_uri`. */
  url?: string;
  /** Origins `target_link_uri` may point at. Default: the page's own origin. */
  targetOrigins?: readonly string[];
}

/**
 * Checks the third-party login initiation in the page's URL (`iss` must be the client's
 * issuer, `target_link_uri` on an allowed origin) and starts the login with its `login_hint`;
 * the target's path, query and fragment go in `appState.returnTo`, for the callback page to go
 * on to. Rejects with core's `initiate_login_iss_mismatch`, `initiate_login_target_not_allowed`
 * or `initiate_login_invalid` before anything is stored or any navigation.
 *
 * @example
 * ```ts
 * import { loginFromInitiation } from '@oidc-rp/browser';
 *
 * // the page at initiate_login_uri
 * await loginFromInitiation(client);
 * ```
 */
export async function loginFromInitiation(
  client: Pick<BrowserClient, 'login' | 'getProvider'>,
  options: LoginFromInitiationOptions = {},
): Promise<InitiatedLogin> {
  const url = new URL(options.url ?? location.href);
  const { issuer } = await client.getProvider();
  const initiated = readInitiateLogin(url.searchParams, { issuer, targetOrigins: options.targetOrigins ?? [url.origin] });
  const target = initiated.targetLinkUri === undefined ? undefined : new URL(initiated.targetLinkUri);
  await client.login({
    ...(initiated.loginHint !== undefined ? { loginHint: initiated.loginHint } : {}),
    ...(target ? { appState: { returnTo: `${target.pathname}${target.search}${target.hash}` } } : {}),
  });
  return initiated;
}
