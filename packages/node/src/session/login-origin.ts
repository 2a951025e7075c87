/**
 * A login must start on the host the provider calls back: the login's transaction cookie is set
 * by the host the browser is on, and only that host's callback receives it. An app opened at
 * `http://localhost:3000` whose `redirectUri` says `http://127.0.0.1:3000/callback` would
 * otherwise end at the callback with `transaction_not_found`. Internal.
 */

import { OidcError } from '@oidc-rp/core';
import { assertSecureUrl, tryParseUrl } from '@oidc-rp/core/internal';

/** Core's one definition of a loopback host (http is accepted there only), asked through its public check. */
export function isLoopbackHost(hostname: string): boolean {
  try {
    assertSecureUrl(`http://${hostname}/`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks the login about to start against where it was started. Returns a redirect to the same
 * path on the redirect URI's origin when the browser reached the app under another loopback name
 * (both are this machine: the friendly fix), throws `invalid_options` for a configuration that
 * cannot work, and returns undefined when the login can go on.
 *
 * Only loopback names are compared with the request's host (its `Host` header, else its URL):
 * behind a proxy that host may be an internal one, so elsewhere only the configured `baseUrl`
 * is compared. After the redirect the browser's host is the redirect URI's, so it cannot loop.
 */
export function checkLoginOrigin(
  request: Request,
  authorizeUrl: string | null,
  baseUrl: URL | undefined,
  callbackPath: string,
): Response | undefined {
  const redirectUri = authorizeUrl === null ? null : new URL(authorizeUrl).searchParams.get('redirect_uri');
  if (redirectUri === null) return undefined; // nothing to compare (e.g. a pushed request)
  const target = new URL(redirectUri);
  if (target.pathname !== callbackPath) {
    fail(
      `The client's redirectUri (${target.href}) is not the callback route of the session layer (${callbackPath}): ` +
        `set routes: { callback: '${target.pathname}' } in createSessionAuth, or make redirectUri end in ${callbackPath} (and register it at the provider).`,
    );
  }
  if (baseUrl && baseUrl.hostname !== target.hostname) {
    fail(
      `baseUrl (${baseUrl.origin}) and the client's redirectUri (${target.origin}) name different hosts: the login's cookie would be set on ` +
        `${baseUrl.hostname} and the provider returns to ${target.hostname}. Use the same host name for both.`,
    );
  }
  const here = new URL(request.url);
  // The browser's host is in the Host header; the URL may be built on baseUrl (toWebRequest) instead.
  const browserHost = tryParseUrl(`http://${request.headers.get('host') ?? ''}`)?.hostname || here.hostname;
  if (browserHost === target.hostname || !isLoopbackHost(browserHost) || !isLoopbackHost(target.hostname)) return undefined;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    fail(
      `This login started at ${browserHost} but the provider returns to ${target.origin} (the client's redirectUri), which would not ` +
        `receive the login's cookie: open the app at ${target.origin}.`,
    );
  }
  const location = `${target.origin}${here.pathname}${here.search}`;
  return new Response(null, { status: 302, headers: { location, 'cache-control': 'no-store' } });
}

function fail(message: string): never {
  throw new OidcError('invalid_options', message);
}
