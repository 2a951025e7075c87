/**
 * Pushed authorization requests (RFC 9126): a client sends its authorize parameters over the
 * back channel, authenticated, and gets a `request_uri` to send the browser with instead. Every
 * authorize-time check runs at push time; the `request_uri` is random, bound to the client,
 * short-lived and used once; at authorize it comes with `client_id` alone, so nothing on the
 * front channel can change what was pushed.
 */
import type { Client } from '../config/model';
import { randomToken, storageKey } from '../crypto/secrets';
import { faultyPushedRequestError } from '../faults/pushed-request';
import { OAuthError } from '../http/errors';
import type { Params } from '../http/params';
import { nowSeconds, type RequestContext } from '../request/context';
import type { AuthorizationRequest } from '../store/store';
import type { AuthorizeValidation } from './authorize-request';
import { targetOf } from './authorization-response';

/** The URN prefix of every `request_uri` this server hands out. */
export const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';
/** Seconds a pushed request may wait for its authorize request. */
export const PUSHED_REQUEST_SECONDS = 60;
/**
 * Pushes accepted per client, and in total on the server, within one window of
 * PUSHED_REQUEST_SECONDS. A public client's pushes are anonymous, and each is kept until it
 * expires: the caps bound what anyone can make the server hold (about twice the total cap, the
 * entries of the last window and of this one).
 */
export const PUSHES_PER_CLIENT = 100;
export const PUSHES_IN_TOTAL = 1000;

// Bound to the tenant and the client in the key: a lookup by another tenant (even for a client
// of the same client_id) or another client misses, and a miss spends nothing.
function storeKey(tenantId: string, clientId: string, id: string): string {
  return storageKey(`par.${tenantId}.${clientId}.${id}`);
}

/**
 * Keeps a validated request and answers the `request_uri` for it.
 *
 * @example
 * const { request_uri, expires_in } = await pushRequest(ctx, request);
 */
export async function pushRequest(ctx: RequestContext, request: AuthorizationRequest): Promise<{ request_uri: string; expires_in: number }> {
  await countPush(ctx, request.clientId);
  const id = randomToken();
  const expiresAt = nowSeconds(ctx.server) + PUSHED_REQUEST_SECONDS;
  await ctx.server.store.savePushedRequest(storeKey(ctx.tenant.id, request.clientId, id), { tenant: ctx.tenant.id, request, expiresAt }, PUSHED_REQUEST_SECONDS);
  return { request_uri: `${REQUEST_URI_PREFIX}${id}`, expires_in: PUSHED_REQUEST_SECONDS };
}

/**
 * Counts a push against its client's cap and the server's, or refuses it (nothing counted) with
 * 429 `temporarily_unavailable` (RFC 9126 2.3 allows 429 for a client over its allowance).
 */
async function countPush(ctx: RequestContext, clientId: string): Promise<void> {
  const counters = [
    { key: `par-pushes:${ctx.tenant.id}:${clientId}`, limit: PUSHES_PER_CLIENT },
    { key: 'par-pushes:all', limit: PUSHES_IN_TOTAL },
  ];
  const { allowed, counts } = await ctx.server.store.countAttempt(counters, PUSHED_REQUEST_SECONDS);
  if (allowed) return;
  const whose = (counts[0] ?? 0) >= PUSHES_PER_CLIENT ? `this client has pushed ${PUSHES_PER_CLIENT}` : `clients have pushed ${PUSHES_IN_TOTAL}`;
  throw new OAuthError(
    'temporarily_unavailable',
    `${whose} authorization requests within ${PUSHED_REQUEST_SECONDS} seconds, the most the server keeps waiting; use a request_uri you already have, or push again after Retry-After seconds`,
    429,
    { 'Retry-After': String(PUSHED_REQUEST_SECONDS) },
  );
}

/**
 * The pushed request an authorize request names with `request_uri`, spent by this call. Only
 * `client_id` and `request_uri` may be sent with it: any other parameter is refused rather than
 * merged, so the pushed parameters are the whole request. Problems are 400 pages (the redirect
 * URI of a request that cannot be trusted is never used).
 *
 * @example
 * const result = params.values.has('request_uri') ? await pushedAuthorizeRequest(ctx, params) : validateAuthorizeRequest(params, clients);
 */
export async function pushedAuthorizeRequest(ctx: RequestContext, params: Params): Promise<AuthorizeValidation> {
  const page = (message: string): AuthorizeValidation => ({ kind: 'page', message });
  if (params.invalid.size > 0) return page('The request has a malformed parameter.');
  const clientId = params.values.get('client_id');
  if (clientId === undefined) return page('The request has no client_id (it must come with the request_uri).');
  const client: Client | undefined = ctx.tenant.clients.get(clientId);
  if (!client) return page('The client_id is not registered with this service.');
  const others = [...params.values.keys()].filter((name) => name !== 'client_id' && name !== 'request_uri');
  if (others.length > 0) {
    return page('A request with a request_uri takes client_id and request_uri only: push every other parameter (RFC 9126 4).');
  }
  const requestUri = params.values.get('request_uri') as string;
  const id = requestUri.slice(REQUEST_URI_PREFIX.length);
  const pushed = id === '' ? undefined : await ctx.server.store.takePushedRequest(storeKey(ctx.tenant.id, clientId, id));
  if (!pushed || pushed.tenant !== ctx.tenant.id || pushed.expiresAt <= nowSeconds(ctx.server)) {
    return page('The request_uri is unknown, expired or already used, or was pushed by another client: push the request again.');
  }
  const expired = client.faults.size > 0 ? faultyPushedRequestError(client.faults) : undefined;
  if (expired) return { kind: 'error', target: targetOf(pushed.request), error: expired };
  return { kind: 'ok', client, request: pushed.request };
}
