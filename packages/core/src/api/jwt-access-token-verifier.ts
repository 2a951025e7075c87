/**
 * JWT access tokens at a resource server (RFC 9068, with RFC 8725's rules): the token a
 * request carries, its signature by the issuer's key (the JWKS cache ID-token validation
 * uses), its claims, and its binding to a DPoP key (RFC 9449). One straight line of one-line
 * checks, each an {@link AccessTokenError} with its own code; messages never contain the token.
 */

import type { JWK } from 'jose';
import { DEV } from '../dev';
import { AccessTokenError, type AccessTokenClaims, type AccessTokenVerifier, type ResourceRequest, type VerifiedAccessToken } from './access-token-error';
import { DEFAULT_MAX_TOKEN_LENGTH, readAccessToken } from './access-token-header';
import { type Clock, systemClock } from '../clock';
import { type DpopProofChecker, checkDpopBinding, isReadableConfirmation, withDpopSettings } from './dpop-proof-check';
import type { OidcErrorCode } from '../errors';
import { type JosePrimitives, webCryptoPrimitives } from '../jose/primitives';
import { ASYMMETRIC_ALGORITHMS, cachedJwksKeys, findJwksKey, selectVerificationKey } from '../jose/jwks';
import { COMPACT_JWS } from '../jose/jwt';
import { invalidOptions, requireString } from '../options';
import type { HttpOptions } from '../types';

/** Options of {@link jwtAccessTokenVerifier}. */
export interface JwtAccessTokenVerifierOptions {
  /** The authorization server's issuer identifier: `iss` must equal it. */
  issuer: string;
  /** Where the issuer publishes its signing keys (its metadata's `jwks_uri`). */
  jwksUri: string;
  /** This API's resource identifier (RFC 8707 `resource`, RFC 9728 `resource`): `aud` must contain it. */
  audience: string;
  /** Accepted signing algorithms, asymmetric only. Default `RS256`, `PS256`, `ES256`, `EdDSA`. */
  algorithms?: string[] | undefined;
  /** Allowed clock skew in seconds for `exp`, `nbf` and `iat`. Default 30, at most 300. */
  clockTolerance?: number | undefined;
  /**
   * Also accept `typ` `JWT`, for providers that do not send RFC 9068's `at+jwt` (many still
   * do not). Their tokens often lack `client_id` and `jti`: with this on, `client_id` may come
   * from `azp` and `jti` may be absent. An ID token carries `typ` `JWT` too, and only `aud` then
   * tells them apart: use an `audience` that is never a client ID. Default false.
   */
  allowJwtTyp?: boolean | undefined;
  /** Scopes the token must all carry, else `insufficient_scope`. Default none (check them per route instead). */
  requiredScopes?: readonly string[] | undefined;
  /** DPoP proof checking ({@link dpopProofs}). Absent, a DPoP-bound token is refused. */
  dpop?: DpopProofChecker | undefined;
  /** Longest access token accepted, in characters, checked before parsing. Default 8192. */
  maxTokenLength?: number | undefined;
  /** Seconds between JWKS refetches caused by an unknown `kid`. Default 30. */
  jwksRefetchCooldown?: number | undefined;
  /** The fetch, timeout and body limits of the JWKS request. */
  http?: HttpOptions | undefined;
  /** The clock `exp`, `nbf` and `iat` are judged by. Default `systemClock` (from `@oidc-rp/core`). */
  now?: Clock | undefined;
  /** Signature, hash and decoding primitives. Default {@link webCryptoPrimitives}; `@oidc-rp/node/api` passes `node:crypto` ones. */
  primitives?: JosePrimitives | undefined;
  /**
   * A cache of tokens that passed the token checks (signature and claims), consulted first. A
   * hit is served only while `exp` has not passed; DPoP proofs and scopes are checked on every
   * request. Give each verifier its own (`@oidc-rp/node/api` has a bounded one).
   */
  cache?: VerifiedTokenCache | undefined;
}

/** What a {@link VerifiedTokenCache} keeps per token. */
export interface CachedAccessToken {
  claims: AccessTokenClaims;
  scopes: readonly string[];
}

/**
 * A cache of verified access tokens for one verifier. `get` may return an entry past its
 * `exp`: the verifier then verifies the token again.
 *
 * @example
 * ```ts
 * const entries = new Map<string, CachedAccessToken>();
 * const cache: VerifiedTokenCache = { get: (token) => entries.get(token), set: (token, entry) => void entries.set(token, entry) };
 * ```
 */
export interface VerifiedTokenCache {
  get(token: string): CachedAccessToken | undefined;
  set(token: string, entry: CachedAccessToken): void;
}

const DEFAULT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];
const AT_JWT = ['at+jwt', 'application/at+jwt'];
const AT_JWT_OR_JWT = ['at+jwt', 'application/at+jwt', 'JWT', 'jwt', 'application/jwt'];

/**
 * A verifier of RFC 9068 JWT access tokens for one API: give it each request's method, URL
 * (built from the API's public origin), `Authorization` and `DPoP` headers. It checks, in this
 * order: one `Bearer` or `DPoP` credential; the token's length; a compact JWS of JSON; no `crit`;
 * `alg` in the allow-list (never `none` or HMAC); `typ` `at+jwt`; the issuer's key by `kid` from
 * its JWKS (cached with ID-token validation; `jku`, `x5u`, `jwk` and `x5c` headers are never
 * used); the signature; `iss`; `aud`; `exp`, `nbf`, `iat` with the clock tolerance; `sub`,
 * `client_id`, `jti`; `scope` or `scp`; then the binding: a token with `cnf.jkt` only with the
 * `DPoP` scheme and a valid proof, an unbound one only as `Bearer` (and only when `dpop` does
 * not require binding); then `requiredScopes`.
 * Resolves the claims and scopes; rejects with {@link AccessTokenError} (its `challenge` for the
 * `WWW-Authenticate` answer), or `jwks_fetch_failed` when the issuer's keys cannot be fetched.
 *
 * @example
 * ```ts
 * import { jwtAccessTokenVerifier } from '@oidc-rp/core/api';
 *
 * const verify = jwtAccessTokenVerifier({
 *   issuer: 'https://id.example.com',
 *   jwksUri: 'https://id.example.com/jwks',
 *   audience: 'https://api.example.com',
 * });
 * const { claims, scopes } = await verify({
 *   method: request.method,
 *   url: new URL(new URL(request.url).pathname, 'https://api.example.com').href,
 *   authorization: request.headers.get('authorization'),
 *   dpop: request.headers.get('dpop'),
 * });
 * ```
 */
export function jwtAccessTokenVerifier<C extends AccessTokenClaims = AccessTokenClaims>(options: JwtAccessTokenVerifierOptions): AccessTokenVerifier<C> {
  const { issuer, jwksUri, audience, dpop, cache, requiredScopes } = options;
  requireString(issuer, DEV && 'issuer');
  requireString(jwksUri, DEV && 'jwksUri');
  requireString(audience, DEV && 'audience');
  const algorithms = options.algorithms ?? DEFAULT_ALGORITHMS;
  if (!algorithms.length || !algorithms.every((alg) => ASYMMETRIC_ALGORITHMS.includes(alg))) {
    throw invalidOptions(DEV && `algorithms may list only ${ASYMMETRIC_ALGORITHMS} (never none or HMAC).`);
  }
  const tolerance = bounded(options.clockTolerance, 30, 300, DEV && 'clockTolerance');
  const maxLength = bounded(options.maxTokenLength, DEFAULT_MAX_TOKEN_LENGTH, 65_536, DEV && 'maxTokenLength');
  const jwksOptions = { http: options.http, refetchCooldown_: bounded(options.jwksRefetchCooldown, 30, 86_400, DEV && 'jwksRefetchCooldown') };
  const types = options.allowJwtTyp ? AT_JWT_OR_JWT : AT_JWT;
  const legacy = options.allowJwtTyp === true;
  const clock = options.now ?? systemClock;
  const primitives = options.primitives ?? webCryptoPrimitives;
  const isCompactJws = primitives.isCompactJws ?? ((token: string) => COMPACT_JWS.test(token));

  // An issuer's tokens share a few headers (one per key): each is decoded once. Never mutated.
  // The last one is compared first, before any map lookup (a slice and ===: cheaper than startsWith on the hot path).
  const headers = new Map<string, Record<string, unknown> | undefined>();
  let lastSegment = '';
  let lastHeader: Record<string, unknown> | undefined;
  const decodeHeader = (token: string, dot: number) => {
    if (dot === lastSegment.length && dot > 0 && token.slice(0, dot) === lastSegment) return lastHeader;
    const segment = token.slice(0, dot);
    let header: Record<string, unknown> | undefined;
    if (headers.has(segment)) header = headers.get(segment);
    else {
      header = primitives.decodeJson(segment);
      if (headers.size >= 16) headers.delete(headers.keys().next().value as string);
      headers.set(segment, header);
    }
    lastSegment = segment;
    lastHeader = header;
    return header;
  };

  // The key each (alg, kid) selects in the cached key set, remembered until the set changes.
  // The last selection is kept apart: an issuer signs with one key at a time, so the hot path
  // compares two strings instead of building a map key per token.
  let selectedFrom: readonly JWK[] | undefined;
  const selected = new Map<string, JWK | undefined>();
  let lastAlg: string | undefined;
  let lastKid: string | undefined;
  let lastKey: JWK | undefined;
  const selectCached = (alg: string, kid: string | undefined, nowMs: number): JWK | undefined => {
    const keys = cachedJwksKeys(jwksUri, nowMs);
    if (!keys) return undefined;
    if (keys !== selectedFrom) {
      selectedFrom = keys;
      selected.clear();
      lastAlg = undefined;
    }
    if (lastAlg !== undefined && alg === lastAlg && kid === lastKid) return lastKey;
    const name = `${alg} ${kid}`;
    if (!selected.has(name) && selected.size < 64) selected.set(name, selectVerificationKey(keys, alg, kid));
    const key = selected.has(name) ? selected.get(name) : selectVerificationKey(keys, alg, kid);
    if (key) {
      lastAlg = alg;
      lastKid = kid;
      lastKey = key;
    }
    return key;
  };

  // The token checks: everything that depends on the token alone (what the cache may keep).
  // Synchronous while the key set is cached and the primitives are (node:crypto): no await on the hot path.
  function verifyToken(token: string): CachedAccessToken | Promise<CachedAccessToken> {
    if (!isCompactJws(token)) fail('access_token_malformed', DEV && 'not a JWS of three base64url parts');
    const dot = token.indexOf('.');
    const header = decodeHeader(token, dot);
    const claims = header && primitives.decodeJson(token.slice(dot + 1, token.indexOf('.', dot + 1)));
    if (!header || !claims) fail('access_token_malformed', DEV && 'not a JWS of base64url JSON objects');

    const { alg, kid, typ, crit } = header;
    // No JWS extension is understood here, so none may be critical (RFC 7515 section 4.1.11).
    if (crit !== undefined) fail('access_token_malformed', DEV && 'its crit header names extensions this API does not support');
    if (typeof alg !== 'string' || !algorithms.includes(alg)) fail('access_token_alg_not_allowed', DEV && `its alg is not one of ${algorithms.join(', ')}`);
    if (kid !== undefined && typeof kid !== 'string') fail('access_token_malformed', DEV && 'its kid header is not a string');
    if (typeof typ !== 'string' || !types.includes(typ)) {
      fail('access_token_typ_invalid', DEV && `its typ header is not ${types.join(' or ')}${legacy ? '' : ' (allowJwtTyp accepts JWT)'}`);
    }
    // Keys come from the issuer's JWKS only: `jku`, `x5u`, `jwk` and `x5c` are never read.
    // One reading of the system clock serves the key set's age and, on this synchronous path
    // with the default clock, the claims' times too (a reading costs as much as a claim check).
    const nowMs = Date.now();
    const key = selectCached(alg, kid as string | undefined, nowMs);
    if (key) return checkSignature(token, key, alg, claims, clock === systemClock ? Math.floor(nowMs / 1000) : undefined);
    const select = (keys: readonly JWK[]) => selectVerificationKey(keys, alg, kid as string | undefined);
    return findJwksKey(jwksUri, select, jwksOptions).then((found) => {
      if (!found) fail('access_token_unknown_kid', DEV && `the issuer's JWKS has no ${alg} key with its kid`);
      return checkSignature(token, found, alg, claims);
    });
  }

  // `now`: the claims' clock when already read; a later (asynchronous) answer reads it again.
  function checkSignature(token: string, key: JWK, alg: string, claims: Record<string, unknown>, now?: number): CachedAccessToken | Promise<CachedAccessToken> {
    let valid: boolean | Promise<boolean>;
    try {
      valid = primitives.verify(token, key, alg);
    } catch {
      valid = false; // a key the platform cannot use for `alg` verifies nothing
    }
    // node:crypto answers at once: no closure, no promise on that path.
    if (typeof valid === 'boolean') return verified(valid, claims, now);
    return valid.then(
      (ok) => verified(ok, claims),
      () => verified(false, claims),
    );
  }

  function verified(ok: boolean, claims: Record<string, unknown>, now = clock()): CachedAccessToken {
    if (!ok) fail('access_token_signature_invalid', DEV && 'the signature does not verify');
    return { claims: checkClaims(claims, now) as AccessTokenClaims, scopes: scopesOf(claims) };
  }

  // An issuer's tokens share a few `scope` strings: the last one's words are kept and each
  // token gets its own copy (callers may change theirs).
  let lastScope: string | undefined;
  let lastWords: readonly string[] = [];
  function scopesOf(claims: Record<string, unknown>): readonly string[] {
    const { scope } = claims;
    if (typeof scope !== 'string') return scopesOfClaims(claims);
    if (scope !== lastScope) {
      lastWords = words(scope);
      lastScope = scope;
    }
    return lastWords.slice();
  }

  // RFC 9068 section 4, one line per claim; the first rule broken names the error.
  function checkClaims(claims: Record<string, unknown>, now: number): Record<string, unknown> {
    const { iss, aud, sub, exp, nbf, iat, jti, cnf } = claims;
    if (iss !== issuer) fail('access_token_iss_mismatch', DEV && 'its iss claim is not the issuer this API trusts');
    if (typeof aud === 'string' ? aud !== audience : !Array.isArray(aud) || !aud.includes(audience)) {
      fail('access_token_aud_mismatch', DEV && `its aud claim does not name this API (${audience}): the client must ask for a token for this resource`);
    }
    if (typeof exp !== 'number' || !Number.isFinite(exp)) fail('access_token_claim_missing', DEV && 'it has no numeric exp claim');
    if (exp <= now - tolerance) fail('access_token_expired', DEV && 'it has expired (exp); the client must get a new token');
    if (nbf !== undefined && (typeof nbf !== 'number' || !Number.isFinite(nbf))) fail('access_token_malformed', DEV && 'its nbf claim is not a number');
    if (nbf !== undefined && nbf > now + tolerance) fail('access_token_nbf_future', DEV && 'its nbf claim is in the future');
    if (iat === undefined ? !legacy : typeof iat !== 'number' || !Number.isFinite(iat)) fail('access_token_claim_missing', DEV && 'it has no numeric iat claim');
    if (typeof iat === 'number' && iat > now + tolerance) fail('access_token_iat_future', DEV && 'its iat claim is in the future');
    if (typeof sub !== 'string' || !sub) fail('access_token_claim_missing', DEV && 'it has no sub claim');
    const clientId = claims.client_id ?? (legacy ? claims.azp : undefined);
    if (typeof clientId !== 'string' || !clientId) fail('access_token_claim_missing', DEV && 'it has no client_id claim');
    if (jti === undefined ? !legacy : typeof jti !== 'string' || !jti) fail('access_token_claim_missing', DEV && 'it has no jti claim');
    if (!isReadableConfirmation(cnf)) fail('access_token_malformed', DEV && 'its cnf claim is not an object with a string jkt');
    return claims;
  }

  // Not an async function: while the key set is cached and the primitives are synchronous
  // (node:crypto), every check runs at once and the answer is one resolved promise; a failure is
  // a rejected one, as from an async function.
  const verify: AccessTokenVerifier<C> = (request) => {
    try {
      const { scheme, token } = readAccessToken(request, maxLength);
      if (token.length > maxLength) fail('access_token_malformed', DEV && `longer than ${maxLength} characters`);
      const hit = cache?.get(token);
      // A cached token is served only before its `exp`, without tolerance: never an expired one.
      if (hit && hit.claims.exp > clock()) return settle(request, scheme, token, hit);
      const checked = verifyToken(token);
      if (checked instanceof Promise) {
        return checked.then((verified) => {
          cache?.set(token, verified);
          return settle(request, scheme, token, verified);
        });
      }
      cache?.set(token, checked);
      return settle(request, scheme, token, checked);
    } catch (error) {
      return Promise.reject(error);
    }
  };

  // After the token checks: the DPoP binding, then `requiredScopes`. Throws (or rejects) on a failure.
  function settle(request: ResourceRequest, scheme: 'Bearer' | 'DPoP', token: string, verified: CachedAccessToken): Promise<VerifiedAccessToken<C>> {
    const { claims, scopes } = verified;
    const binding = checkDpopBinding(request, scheme, token, claims.cnf?.jkt, dpop, primitives);
    const result: VerifiedAccessToken<C> = { claims: claims as C, scheme, scopes };
    if (binding) {
      return binding.then(() => {
        if (requiredScopes) checkScopes(result, requiredScopes);
        return result;
      });
    }
    if (requiredScopes) checkScopes(result, requiredScopes);
    return Promise.resolve(result);
  }
  return withDpopSettings(verify, dpop);
}

/**
 * Throws `insufficient_scope` unless the verified token carries every scope of `required`.
 *
 * @example
 * ```ts
 * const token = await verify(request);
 * checkScopes(token, ['orders:read']);
 * ```
 */
export function checkScopes(token: VerifiedAccessToken, required: readonly string[]): void {
  const missing = required.filter((scope) => !token.scopes.includes(scope));
  if (missing.length) {
    throw new AccessTokenError('insufficient_scope', 'insufficient_scope', DEV && `The access token lacks the scope ${missing.join(' ')}: the client must ask for it.`);
  }
}

// `scope` (space-separated, RFC 9068 section 2.2.3) or `scp` (an array, or a string).
function scopesOfClaims({ scope, scp }: Record<string, unknown>): readonly string[] {
  if (typeof scope === 'string') return words(scope);
  if (scope === undefined && typeof scp === 'string') return words(scp);
  if (scope === undefined && Array.isArray(scp) && scp.every((s) => typeof s === 'string')) return scp as string[];
  if (scope === undefined && scp === undefined) return [];
  return fail('access_token_malformed', DEV && 'its scope claim is not a string (or scp not an array of strings)');
}

// The space-separated words of a string; the empty strings of extra spaces are dropped (filtered
// only when there are any: the usual scope has single spaces).
function words(text: string): string[] {
  const list = text.split(' ');
  return list.includes('') ? list.filter(Boolean) : list;
}

function bounded(value: number | undefined, fallback: number, max: number, name: string): number {
  if (value === undefined) return fallback;
  if (Number.isFinite(value) && value >= 0 && value <= max) return value;
  throw invalidOptions(DEV && `${name} must be a number from 0 to ${max}.`);
}

// "Invalid access token: <what is wrong>." Never the token or a claim value.
function fail(code: OidcErrorCode, problem?: string): never {
  const challenge = 'invalid_token';
  throw new AccessTokenError(code, challenge, DEV && `Invalid access token: ${problem}.`);
}
