/**
 * The key sets clients publish at their `jwks_uri`, fetched for `private_key_jwt`. The URL is
 * the client's and anyone may make the server fetch it (one anonymous token request), so every
 * fetch is bounded: a timeout, no redirects, at most 64 KB read (refused from `Content-Length`
 * before the body, and cut off while streaming otherwise), one fetch in flight per URL however
 * many requests wait for it, and a failure remembered briefly so a broken or slow URL is not
 * fetched once per request. A good set is cached; while a fetch fails the last good set serves.
 */
import type { ClientJwk } from '../config/model';
import { invalidClient } from '../http/errors';
import { readStreamLimited } from '../http/params';
import { nowSeconds, type RequestContext } from '../request/context';

/** A fetched set is used this long (server clock), and fetched again at most this often for an unknown `kid`. */
const JWKS_CACHE_SECONDS = 300;
const JWKS_REFETCH_SECONDS = 30;
/** After a failed fetch, the URL is not fetched again for this long (server clock). */
const JWKS_FAILURE_SECONDS = 10;
/** How long a jwks_uri fetch may take, its body included. */
export const JWKS_TIMEOUT_MS = 5000;
/** The most of an answer read. */
export const MAX_JWKS_BYTES = 64 * 1024;
/** URLs remembered (good sets and failures, each). */
const MAX_REMEMBERED = 1000;

interface CachedSet {
  keys: ClientJwk[];
  fetchedAt: number;
}

// Per process: a client's key set is public, and each instance may fetch it itself.
const goodSets = new Map<string, CachedSet>();
const failedAt = new Map<string, number>();
const inFlight = new Map<string, Promise<ClientJwk[]>>();

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keeps `value` as the newest entry of a map bounded to MAX_REMEMBERED (oldest dropped first). */
function remember<T>(map: Map<string, T>, key: string, value: T): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_REMEMBERED) map.delete(map.keys().next().value as string);
}

/**
 * The body of `response` as text, refused past `limit` bytes: by its `Content-Length` before
 * anything is read, else as soon as the bytes read pass the limit (the rest is never received).
 */
export async function readCapped(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error('the answer is too large');
  }
  return new TextDecoder().decode(await readStreamLimited(response, limit));
}

async function download(uri: string): Promise<ClientJwk[]> {
  const response = await fetch(uri, { redirect: 'error', signal: AbortSignal.timeout(JWKS_TIMEOUT_MS), headers: { Accept: 'application/json' } });
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error('unusable answer');
  }
  const body: unknown = JSON.parse(await readCapped(response, MAX_JWKS_BYTES));
  if (!isRecord(body) || !Array.isArray(body.keys)) throw new Error('not a JWK Set');
  return body.keys.filter((key): key is ClientJwk => isRecord(key) && typeof key.kty === 'string' && !('d' in key) && !('k' in key));
}

/** One download per URL at a time: the requests that ask while it runs share its result. */
function sharedDownload(uri: string): Promise<ClientJwk[]> {
  let flight = inFlight.get(uri);
  if (!flight) {
    flight = download(uri).finally(() => inFlight.delete(uri));
    inFlight.set(uri, flight);
  }
  return flight;
}

/**
 * The keys published at `uri`: cached for 300 s, or (`refresh`, for a `kid` the cached set does
 * not have) for 30 s. Throws 401 `invalid_client` when there is no set to use.
 *
 * @example
 * const keys = await clientKeys(ctx, client.jwks_uri, false);
 */
export async function clientKeys(ctx: RequestContext, uri: string, refresh: boolean): Promise<ClientJwk[]> {
  const now = nowSeconds(ctx.server);
  const cached = goodSets.get(uri);
  const age = cached ? now - cached.fetchedAt : Number.POSITIVE_INFINITY;
  if (cached && age >= 0 && age < (refresh ? JWKS_REFETCH_SECONDS : JWKS_CACHE_SECONDS)) return cached.keys;
  const failed = failedAt.get(uri);
  const recentFailure = failed !== undefined && now - failed >= 0 && now - failed < JWKS_FAILURE_SECONDS;
  if (!recentFailure) {
    try {
      const keys = await sharedDownload(uri);
      failedAt.delete(uri);
      remember(goodSets, uri, { keys, fetchedAt: now });
      return keys;
    } catch {
      remember(failedAt, uri, now);
    }
  }
  // An unreachable key set authenticates nothing; the last good one serves until it is replaced.
  if (cached) return cached.keys;
  throw invalidClient(`the client's jwks_uri could not be fetched (a 2xx JWK Set of at most ${MAX_JWKS_BYTES / 1024} KB within ${JWKS_TIMEOUT_MS / 1000} s); it is tried again after ${JWKS_FAILURE_SECONDS} s`, false, ctx.tenant.id);
}
