/**
 * `fetch` for the app's API, as a function of its own (an app that does not call it does not
 * ship it): attaches the access token and, when the resource answers 401, renews the token
 * once and retries once. The retry is what makes access tokens of unknown lifetime work (the
 * service's code exchange gives no `expires_in`).
 */

import type { BrowserClient, GetAccessTokenOptions } from './types';

/** A `fetch` that sends the client's access token. */
export type AuthorizedFetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/** Options of {@link authorizedFetch}. */
export interface AuthorizedFetchOptions {
  /** The fetch to send with. Default: the global `fetch`, looked up on each call. */
  fetch?: typeof fetch;
}

/**
 * Returns `fetch` with `Authorization: Bearer <access token>` from `client`; on a 401 it
 * renews the token once (`getAccessToken({ rejected })`: a token another call or tab already
 * renewed is used without a new refresh) and retries once. Without the `resources` part, send
 * it only to your own API: it gives the access token to every URL it is called with. With it,
 * each request carries the token of the listed resource its URL belongs to (same origin, path
 * at or under the resource's path; the longest match), and a URL of no listed resource is
 * refused with `resource_not_configured` before anything is sent, unless the part says
 * `otherUrls: 'defaultToken'`. A failed renewal returns the first
 * 401 response (the client's `error` event and state say why); a second 401 is returned as
 * is, never retried.
 *
 * @example
 * ```ts
 * import { authorizedFetch } from '@oidc-rp/browser';
 *
 * const api = authorizedFetch(client);
 * const response = await api('https://api.example.com/orders');
 * ```
 */
export function authorizedFetch(
  client: Pick<BrowserClient, 'getAccessToken'> & Partial<Pick<BrowserClient, 'dpop' | 'http' | 'resources'>>,
  options: AuthorizedFetchOptions = {},
): AuthorizedFetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const send = (attempt: Request, token: string) => {
      // A DPoP-bound token goes with a proof of the key, never as Bearer.
      if (client.dpop) return client.dpop.request(token, attempt, undefined, options.fetch && { ...client.http, fetch: options.fetch });
      attempt.headers.set('Authorization', `Bearer ${token}`);
      return (options.fetch ?? fetch)(attempt);
    };
    // With the resources part: the token of the URL's API, never another API's (a URL of none is refused there).
    const { resources } = client;
    const resource = resources?.forUrl(request.url);
    const tokenFor = (tokenOptions?: GetAccessTokenOptions) =>
      resource ? (resources as NonNullable<typeof resources>).getAccessToken(resource, tokenOptions) : client.getAccessToken(tokenOptions);
    const token = await tokenFor();
    const first = await send(request.clone(), token);
    if (first.status !== 401) return first;
    let renewed: string;
    try {
      renewed = await tokenFor({ rejected: token });
    } catch {
      return first;
    }
    await first.body?.cancel().catch(() => undefined);
    return send(request, renewed);
  };
}
