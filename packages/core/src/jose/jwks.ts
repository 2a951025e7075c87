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

import { DEV } from '../dev';
import type { JWK } from 'jose';
import { OidcError, isOidcError } from '../errors';
import { discardBody, isJsonObject, readJson, sendRequest } from '../http/transport';
import type { HttpOptions } from '../types';

/** How long a fetched key set is trusted before it is fetched again. */
const JWKS_MAX_AGE_MS = 10 * 60 * 1000;

// `keys` is the fetch itself, so concurrent callers share it; a failed fetch puts back the entry it replaced.
interface JwksCacheEntry {
  keys: Promise<JWK[]>;
  /** The keys once fetched: what {@link cachedJwksKeys} reads without waiting. */
  resolved_?: JWK[];
  fetchedAt_: number;
  // When a key the set lacked last caused a refetch (-Infinity: never).
  refetchedAt_: number;
}

const cache = new Map<string, JwksCacheEntry>();

/** Options for {@link findJwksKey}. */
export interface FindJwksKeyOptions {
  http?: HttpOptions | undefined;
  /** Seconds between refetches caused by a key the cached set lacks. */
  refetchCooldown_: number;
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
  const fetchKeys = (refetchedAt: number): JwksCacheEntry => {
    const previous = cache.get(jwksUri);
    const entry: JwksCacheEntry = { keys: fetchJwks(jwksUri, options.http), fetchedAt_: Date.now(), refetchedAt_: refetchedAt };
    cache.set(jwksUri, entry);
    entry.keys.then(
      (keys) => {
        entry.resolved_ = keys;
      },
      () => {
        if (cache.get(jwksUri) !== entry) return;
        if (!previous) return void cache.delete(jwksUri);
        previous.refetchedAt_ = refetchedAt; // a failed refetch still starts the cooldown
        cache.set(jwksUri, previous);
      },
    );
    return entry;
  };
  let entry = cache.get(jwksUri);
  if (!entry || Date.now() - entry.fetchedAt_ >= JWKS_MAX_AGE_MS) entry = fetchKeys(entry?.refetchedAt_ ?? -Infinity);
  const key = select(await entry.keys);
  if (key) return key;

  // The set we looked in lacks the key. A newer set may be on its way or already here.
  const latest = cache.get(jwksUri);
  if (latest && latest !== entry) return select(await latest.keys);
  if (Date.now() - entry.refetchedAt_ < options.refetchCooldown_ * 1000) return undefined;
  return select(await fetchKeys(Date.now()).keys);
}

/**
 * The cached key set of `jwksUri` when it is fetched and fresh, without waiting: a verifier's
 * hot path reads it synchronously and falls back to {@link findJwksKey} when it has no fitting
 * key (not fetched yet, stale, or a key it lacks). `nowMs`: `Date.now()`, unless the caller
 * has just read it.
 */
export function cachedJwksKeys(jwksUri: string, nowMs = Date.now()): readonly JWK[] | undefined {
  const entry = cache.get(jwksUri);
  return entry && nowMs - entry.fetchedAt_ < JWKS_MAX_AGE_MS ? entry.resolved_ : undefined;
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

/**
 * Every signature algorithm a token or proof may use here: asymmetric ones only, never `none`
 * or HMAC. One list for ID tokens, access tokens and DPoP proofs.
 */
export const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** The curve of each EC and EdDSA algorithm (also the curve of a new DPoP key, dpop.ts). */
export const CURVES: Record<string, string> = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521', EdDSA: 'Ed25519', Ed25519: 'Ed25519' };

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
    throw new OidcError('jwks_invalid', DEV && `jwks_uri answered no key set (${body.ok ? 'no "keys" array' : body.problem_}); check jwks_uri.`);
  }
  return keys.filter(isJsonObject) as JWK[];
}
