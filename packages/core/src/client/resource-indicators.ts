/**
 * RFC 8707 resource indicators on the client side: the APIs a login asks tokens for (each an
 * absolute URI without a fragment, sent as a `resource` parameter), and which of them a request
 * URL belongs to, so a token is only ever sent to the API it was issued for.
 */

import { DEV } from '../dev';
import { OidcError } from '../errors';
import { invalidOptions } from '../options';

/**
 * `resources` checked: a list of absolute URIs without a fragment (RFC 8707 §2), no repeats.
 * Undefined stays undefined.
 *
 * @example
 * ```ts
 * checkResources(['https://api.example.com/']); // ['https://api.example.com/']
 * checkResources(['/api']); // throws invalid_options
 * ```
 */
export function checkResources(resources: readonly string[] | undefined): readonly string[] {
  if (resources === undefined) return [];
  if (!Array.isArray(resources)) throw invalidOptions(DEV && 'resources must be a list of API URIs, e.g. ["https://api.example.com/"].');
  for (const resource of resources) {
    let ok = false;
    try {
      ok = typeof resource === 'string' && !resource.includes('#') && new URL(resource).href !== '';
    } catch {
      // refused below
    }
    if (!ok) throw invalidOptions(DEV && `resources: ${JSON.stringify(String(resource).slice(0, 100))} is not an absolute URI without a fragment (RFC 8707).`);
  }
  if (new Set(resources).size !== resources.length) throw invalidOptions(DEV && 'resources lists a resource twice.');
  return resources;
}

/**
 * `request` asking for `resources` too (RFC 8707: one `resource` parameter each, checked as
 * {@link checkResources} does): the same URL object and transaction, for the flow's redirect or
 * push. Kept out of the request builder, so apps that name no resource carry none of it.
 *
 * @example
 * ```ts
 * const { url, transaction } = withResources(await buildCodeAuthorizationRequest(params), ['https://api.example.com/']);
 * ```
 */
export function withResources<R extends { url: URL }>(request: R, resources: readonly string[] | undefined): R {
  for (const resource of checkResources(resources)) request.url.searchParams.append('resource', resource);
  return request;
}

/**
 * The configured resource a request URL belongs to: same origin, and a path at or under the
 * resource's (at a segment boundary); the most specific one when several match. Undefined
 * when none does: the URL is not one of the app's APIs.
 *
 * @example
 * ```ts
 * resourceForUrl('https://api.example.com/orders/7', ['https://api.example.com/', 'https://files.example.com/']);
 * // 'https://api.example.com/'
 * ```
 */
export function resourceForUrl(url: string | URL, resources: readonly string[]): string | undefined {
  const target = new URL(url);
  let best: string | undefined;
  let bestLength = -1;
  for (const resource of resources) {
    const candidate = new URL(resource);
    const base = candidate.pathname.replace(/\/$/, '');
    const within = candidate.origin === target.origin && (target.pathname === base || target.pathname.startsWith(`${base}/`) || base === '');
    if (within && base.length > bestLength) {
      best = resource;
      bestLength = base.length;
    }
  }
  return best;
}

/**
 * The error for a token asked for a resource the client was not configured with: nothing is
 * sent, and the session is unchanged.
 *
 * @example
 * ```ts
 * if (!resources.includes(resource)) throw resourceNotConfigured(resource, resources);
 * ```
 */
export function resourceNotConfigured(resource: string, resources: readonly string[]): OidcError {
  return new OidcError(
    'resource_not_configured',
    DEV &&
      `No token for ${String(resource).slice(0, 200)}: it is not one of the resources this client logs in for (${resources.join(', ') || 'none'}); ` +
        'add it to the resources option (and to the client registration at the provider), then log in again.',
  );
}
