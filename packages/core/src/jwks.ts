/**
 * The provider's signing keys (JWKS, RFC 7517), fetched from `jwks_uri` and cached per URI.
 * This cache is the only state core keeps.
 *
 * - Concurrent callers share one in-flight fetch (made with the http options of the caller
 *   that started it).
 * - A key the cached set lacks (the provider rotated its keys) triggers ONE refetch; further
 *   refetches for unknown keys wait out a cooldown, so forged `kid`s cannot make us hammer
 *   the provider. The first fetch does not start the cooldown: a rotation right after
 *   start-up is still picked up.
 * - A key set older than ten minutes is fetched again on next use, so keys the provider
 *   withdrew stop being trusted.
 */

import { DEV } from './dev';
import type { JWK } from 'jose';
import { OidcError, isOidcError } from './errors';
import { discardBody, isJsonObject, readJson, sendRequest } from './http';
import type { HttpOptions } from './types';

/** How long a fetched key set is trusted before it is fetched again. */
const JWKS_MAX_AGE_MS = 10 * 60 * 1000;

interface JwksCacheEntry {
  keys?: JWK[];
  fetchedAt: number;
  inFlight?: Promise<JWK[]> | undefined;
  lastUnknownKeyRefetch: number;
}

const cache = new Map<string, JwksCacheEntry>();

/** Options for {@link findJwksKey}. */
export interface FindJwksKeyOptions {
  http?: HttpOptions | undefined;
  /** Seconds between refetches caused by a key the cached set lacks. */
  refetchCooldown: number;
}

/**
 * Finds the key `select` picks in the JWKS at `jwksUri`: from the cache, else fetched. When
 * the cached set has no such key, refetches once (unless within the cooldown) and asks again.
 * Resolves undefined when no key fits; rejects with 'jwks_fetch_failed' / 'jwks_invalid'.
 */
export async function findJwksKey(
  jwksUri: string,
  select: (keys: readonly JWK[]) => JWK | undefined,
  options: FindJwksKeyOptions,
): Promise<JWK | undefined> {
  const entry = cache.get(jwksUri) ?? { fetchedAt: 0, lastUnknownKeyRefetch: -Infinity };
  cache.set(jwksUri, entry);
  const fresh = entry.keys && Date.now() - entry.fetchedAt < JWKS_MAX_AGE_MS ? entry.keys : undefined;
  const looked = fresh ?? (await load(entry, jwksUri, options.http));
  const key = select(looked);
  if (key) return key;

  // The set we looked in lacks the key. A newer set may be on its way or already here.
  if (entry.inFlight) return select(await entry.inFlight);
  if (entry.keys && entry.keys !== looked) return select(entry.keys);
  const now = Date.now();
  if (now - entry.lastUnknownKeyRefetch < options.refetchCooldown * 1000) return undefined;
  entry.lastUnknownKeyRefetch = now;
  return select(await load(entry, jwksUri, options.http));
}

/**
 * Forgets every cached key set (all providers). Call it in tests, or after changing a
 * provider's keys out of band, to make the next validation fetch the JWKS again.
 *
 * @example
 * ```ts
 * import { clearJwksCache } from '@oidc-rp/core';
 *
 * afterEach(() => clearJwksCache());
 * ```
 */
export function clearJwksCache(): void {
  cache.clear();
}

/**
 * The keys fit for verifying a JWS with `alg` (and `kid`, when the header names one): key
 * type and curve match the algorithm, and `use`, `alg` and `key_ops`, when present, allow it.
 * Returns the key only when exactly one fits: an ambiguous choice is no choice.
 */
export function selectVerificationKey(keys: readonly JWK[], alg: string, kid: string | undefined): JWK | undefined {
  const fitting = keys.filter((key) => (kid === undefined || key.kid === kid) && fitsAlgorithm(key, alg));
  return fitting.length === 1 ? fitting[0] : undefined;
}

const CURVES: Record<string, string> = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521', EdDSA: 'Ed25519', Ed25519: 'Ed25519' };

function fitsAlgorithm(key: JWK, alg: string): boolean {
  const crv = CURVES[alg];
  const kty = alg.startsWith('ES') ? 'EC' : crv ? 'OKP' : 'RSA';
  return (
    key.kty === kty &&
    key.crv === crv &&
    (key.use === undefined || key.use === 'sig') &&
    (key.alg === undefined || key.alg === alg) &&
    (!Array.isArray(key.key_ops) || key.key_ops.includes('verify'))
  );
}

// One fetch per entry at a time; a failed fetch keeps the previous keys.
function load(entry: JwksCacheEntry, jwksUri: string, http: HttpOptions | undefined): Promise<JWK[]> {
  entry.inFlight ??= fetchJwks(jwksUri, http)
    .then((keys) => {
      entry.keys = keys;
      entry.fetchedAt = Date.now();
      return keys;
    })
    .finally(() => {
      entry.inFlight = undefined;
    });
  return entry.inFlight;
}

async function fetchJwks(jwksUri: string, http: HttpOptions | undefined): Promise<JWK[]> {
  try {
    return await sendRequest(jwksUri, { headers: { accept: 'application/json' } }, http, DEV && 'The JWKS endpoint', readJwks);
  } catch (cause) {
    if (isOidcError(cause) && (cause.code === 'request_timeout' || cause.code === 'network_error')) {
      throw new OidcError('jwks_fetch_failed', cause.message, { cause });
    }
    throw cause;
  }
}

async function readJwks(response: Response): Promise<JWK[]> {
  if (!response.ok) {
    void discardBody(response); // not awaited: some fetch implementations never settle a cancel
    throw new OidcError('jwks_fetch_failed', DEV && `jwks_uri answered HTTP ${response.status}; check jwks_uri and the provider.`);
  }
  const body = await readJson(response);
  const keys = body.ok && isJsonObject(body.value) ? body.value.keys : undefined;
  if (!Array.isArray(keys)) {
    throw new OidcError('jwks_invalid', DEV && `jwks_uri answered no key set (${body.ok ? 'no "keys" array' : body.problem}); check jwks_uri.`);
  }
  return keys.filter(isJsonObject) as JWK[];
}
