/** Recognising a login callback URL and removing its parameters from the address bar. */

// Everything the provider may add to the redirect URI's query.
const RESPONSE_PARAMS = ['code', 'state', 'iss', 'error', 'error_description', 'error_uri', 'session_state'];

/** The authorization response parameters of `url`: the query for the code flow, the fragment otherwise. */
export function responseParams(url: URL, fragment: boolean): URLSearchParams {
  return fragment ? new URLSearchParams(url.hash.slice(1)) : url.searchParams;
}

/** True when `url` is `redirectUri` (same origin and path) carrying an authorization response. */
export function isCallbackUrl(url: string, redirectUri: string, fragment: boolean): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const expected = new URL(redirectUri);
  if (parsed.origin !== expected.origin || parsed.pathname !== expected.pathname) return false;
  const params = responseParams(parsed, fragment);
  return params.has('state') && ['code', 'error', 'access_token', 'id_token'].some((name) => params.has(name));
}

/** `url` without the response parameters (the fragment goes entirely when it carried them). */
export function cleanCallbackUrl(url: string, fragment: boolean): string {
  const parsed = new URL(url);
  if (fragment) parsed.hash = '';
  else for (const name of RESPONSE_PARAMS) parsed.searchParams.delete(name);
  return parsed.href;
}
