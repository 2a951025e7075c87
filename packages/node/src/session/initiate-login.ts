/**
 * The session layer's third-party initiated login route (OIDC Core 4): the provider sends the
 * browser here (GET, or a POSTed form) with `iss`, and maybe `login_hint` and
 * `target_link_uri`; a valid request starts the ordinary login, with the hint, returning to
 * the target's path. `iss` must be the client's issuer and the target on the app's own origin
 * (core's `readInitiateLogin`), so the route is neither a login starter for another provider
 * nor an open redirector. Internal: reached through `SessionAuth.handle`.
 */

import { OidcError } from '@oidc-rp/core';
import { readBoundedBody } from '@oidc-rp/core/internal';
import type { NodeClient } from '../client-types';
import { MAX_FORM_BYTES, safeReturnTo } from './request-checks';

/** What a valid initiation asks the login route for. */
export interface InitiatedSessionLogin {
  loginHint?: string;
  /** The path (with query and fragment) of `target_link_uri` on the app's origin. */
  returnTo?: string;
}

/**
 * Reads and checks the initiation in `request` (query of a GET, `application/x-www-form-urlencoded`
 * body of a POST). Throws an OidcError: core's `initiate_login_*` codes, or
 * `request_body_too_large` for a form over 16 KiB.
 *
 * @example
 * const { loginHint, returnTo } = await readSessionInitiation(client, request, originOf(request));
 */
export async function readSessionInitiation(client: NodeClient, request: Request, appOrigin: URL): Promise<InitiatedSessionLogin> {
  let params = new URL(request.url).searchParams;
  if (request.method === 'POST') {
    const body = await readBoundedBody(request, MAX_FORM_BYTES);
    if (!body) throw new OidcError('request_body_too_large', `The login initiation form is larger than ${MAX_FORM_BYTES / 1024} KiB.`);
    params = new URLSearchParams(new TextDecoder().decode(body));
  }
  const { loginHint, targetLinkUri } = client.readInitiateLogin(params, { targetOrigins: [appOrigin.origin] });
  const target = targetLinkUri === undefined ? undefined : new URL(targetLinkUri);
  const returnTo = target && safeReturnTo(`${target.pathname}${target.search}${target.hash}`);
  return { ...(loginHint !== undefined ? { loginHint } : {}), ...(returnTo !== undefined ? { returnTo } : {}) };
}
