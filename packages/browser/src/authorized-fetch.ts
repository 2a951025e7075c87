/**
 * `fetch` for the app's API: attaches the access token and, when the resource answers 401,
 * renews the token once and retries once. The retry is what makes access tokens of unknown
 * lifetime work (the service's code exchange gives no `expires_in`).
 */

/** What the wrapper needs from the client. */
export interface AuthorizedFetchContext {
  /** A currently valid access token (refreshing ahead of a known expiry). */
  accessToken: () => Promise<string>;
  /** A new access token after `rejected` got a 401. */
  renew: (rejected: string) => Promise<string>;
  /** The fetch to send with; looked up on each call. */
  fetch: () => typeof fetch;
}

/**
 * Creates the wrapper. Send it only to your own API: it gives the access token to every URL
 * it is called with. A failed renewal returns the first 401 response (the client's `error`
 * event and state say why); a second 401 is returned as is, never retried.
 *
 * @example
 * ```ts
 * const authorizedFetch = createAuthorizedFetch({ accessToken, renew, fetch: () => fetch });
 * const response = await authorizedFetch('https://api.example.com/me');
 * ```
 */
export function createAuthorizedFetch(context: AuthorizedFetchContext) {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const send = (attempt: Request, token: string) => {
      attempt.headers.set('Authorization', `Bearer ${token}`);
      return context.fetch()(attempt);
    };
    const token = await context.accessToken();
    const first = await send(request.clone(), token);
    if (first.status !== 401) return first;
    let renewed: string;
    try {
      renewed = await context.renew(token);
    } catch {
      return first;
    }
    await first.body?.cancel().catch(() => undefined);
    return send(request, renewed);
  };
}
