/**
 * The one place that decides whether a URL is a login callback: it parses the URL once and
 * hands the parsed form on (to the callback handler, and to core, which takes the `URL` as is).
 */

import { tryParseUrl } from '@oidc-rp/core/internal';

/** A URL that carries an authorization response for this client's redirect URI. */
export interface CallbackUrl {
  url: URL;
  /** The response parameters: the query for the code flow, the fragment otherwise. */
  params: URLSearchParams;
  state: string;
}

// Everything the provider may add to the redirect URI's query.
const RESPONSE_PARAMS = ['code', 'state', 'iss', 'error', 'error_description', 'error_uri', 'session_state'];

/**
 * `href` read as a callback: same origin and path as `redirectUri`, with a `state` and a
 * `code`, `error` or token. Undefined for anything else, including an unparsable string.
 */
export function readCallbackUrl(href: string, redirectUri: URL, fragment: boolean): CallbackUrl | undefined {
  const url = tryParseUrl(href);
  if (url?.origin !== redirectUri.origin || url.pathname !== redirectUri.pathname) return undefined;
  const params = fragment ? new URLSearchParams(url.hash.slice(1)) : url.searchParams;
  const state = params.get('state');
  return state && ['code', 'error', 'access_token', 'id_token'].some((name) => params.has(name))
    ? { url, params, state }
    : undefined;
}

/** The callback's address without the response parameters (the fragment goes entirely when it carried them). */
export function cleanCallbackUrl({ url }: CallbackUrl, fragment: boolean): string {
  const query = new URLSearchParams(url.search);
  if (!fragment) for (const name of RESPONSE_PARAMS) query.delete(name);
  const search = query.toString();
  return `${url.origin}${url.pathname}${search ? `?${search}` : ''}${fragment ? '' : url.hash}`;
}
