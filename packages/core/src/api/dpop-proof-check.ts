/**
 * DPoP proofs at a resource server (RFC 9449 sections 4.3 and 7.1): a request with a
 * DPoP-bound access token must carry a proof signed by the token's key, for this method and
 * URL, fresh, carrying the token's hash, never seen before, and (optionally) with a nonce this
 * server issued. One straight line of checks, each with its own message; a failure is an
 * {@link AccessTokenError} with `invalid_dpop_proof` (or `use_dpop_nonce` and a fresh nonce).
 * Opt-in: a verifier given no {@link dpopProofs} value refuses DPoP-bound tokens. Every verifier
 * (JWT access tokens, introspection) takes the same checker and applies the same binding rule.
 */

import type { JWK } from 'jose';
import { DEV } from '../dev';
import { type AccessTokenClaims, AccessTokenError, type AccessTokenVerifier, type ResourceRequest } from './access-token-error';
import { type Clock, systemClock } from '../clock';
import { base64url, utf8 } from '../http/encoding';
import type { OidcErrorCode } from '../errors';
import { isJsonObject } from '../http/transport';
import type { JosePrimitives } from '../jose/primitives';
import { ASYMMETRIC_ALGORITHMS, selectVerificationKey } from '../jose/jwks';
import { COMPACT_JWS } from '../jose/jwt';
import { invalidOptions } from '../options';

/**
 * Where seen proof `jti`s are kept until their proof could no longer be accepted anyway. The
 * default keeps them in memory ({@link memoryDpopReplayCache}); a fleet of instances shares one
 * (`RedisDpopReplayCache` in `@oidc-rp/node/redis`).
 *
 * @example
 * ```ts
 * const seen = new Set<string>();
 * const replayCache: DpopReplayCache = { remember: (jti) => !seen.has(jti) && !!seen.add(jti) };
 * ```
 */
export interface DpopReplayCache {
  /** Records `jti` until `expiresAt` (epoch seconds). Resolves false when it was recorded before: a replay. */
  remember(jti: string, expiresAt: number): boolean | Promise<boolean>;
}

/**
 * Server nonces (RFC 9449 section 9): a proof must carry one this server issued recently.
 *
 * @example
 * ```ts
 * const nonces = dpopNonces({ secret: process.env.DPOP_NONCE_SECRET! });
 * ```
 */
export interface DpopNonces {
  /** The nonce to hand out now (sent in `DPoP-Nonce`). */
  current(): string | Promise<string>;
  /** Whether a proof's nonce is still accepted. */
  accepts(nonce: string): boolean | Promise<boolean>;
}

/** Options of {@link dpopProofs}. */
export interface DpopProofOptions {
  /** Accepted proof algorithms, asymmetric only. Default `ES256`, `ES384`, `PS256`, `RS256`, `EdDSA`. */
  algorithms?: string[] | undefined;
  /** Seconds a proof stays acceptable after its `iat`. Default 60, at most 300. */
  maxAge?: number | undefined;
  /** Seconds a proof's `iat` may lie in the future (client clocks). Default 5, at most 60. */
  clockTolerance?: number | undefined;
  /** Where seen `jti`s are kept. Default a {@link memoryDpopReplayCache} of this checker's own. */
  replayCache?: DpopReplayCache | undefined;
  /** Require server nonces; absent, proofs need none. */
  nonces?: DpopNonces | undefined;
  /** Longest `DPoP` header accepted, in characters, checked before parsing. Default 8192. */
  maxLength?: number | undefined;
  /** The clock `iat` is judged by. Default `systemClock` (from `@oidc-rp/core`). */
  now?: Clock | undefined;
  /**
   * Accept DPoP-bound tokens only: a token without `cnf.jkt` is refused, and challenges and RFC
   * 9728 metadata say so (`dpop_bound_access_tokens_required`). Default false: Bearer tokens too.
   */
  required?: boolean | undefined;
}

/**
 * The DPoP proof check a verifier runs for a DPoP-bound token, made by {@link dpopProofs}.
 * Verifiers call it; an app passes the value along.
 */
export interface DpopProofChecker {
  /**
   * Checks the request's proof for `accessToken`, bound to the key with thumbprint `jkt`.
   * Throws {@link AccessTokenError} (`invalid_dpop_proof`, `use_dpop_nonce`).
   */
  check(request: ResourceRequest, accessToken: string, jkt: string, primitives: JosePrimitives): Promise<void>;
  /** The proof algorithms accepted (for the `algs` of a DPoP challenge). */
  readonly algorithms: readonly string[];
  /** True when tokens that are not DPoP-bound are refused. */
  readonly required: boolean;
}

const DEFAULT_ALGORITHMS = ['ES256', 'ES384', 'PS256', 'RS256', 'EdDSA'];
// Members only a private (or symmetric) key has: a proof carrying one is refused.
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const JTI = /^[\x21-\x7e]{1,256}$/;

/**
 * DPoP proof checking for a verifier's `dpop` option (`jwtAccessTokenVerifier`,
 * `introspectionVerifier`): on, with its settings. Every proof is
 * checked in this order: at most `maxLength` characters; one compact JWS of JSON; `typ`
 * `dpop+jwt`; `alg` in the allow-list; a public `jwk` that fits `alg` and whose thumbprint is
 * the token's `cnf.jkt`; the signature; `htm` the request's method; `htu` the request's URL
 * without query and fragment (the URL built from the API's configured origin, never `Host`);
 * `ath` the token's hash; `iat` within `maxAge` (and `clockTolerance`); the server nonce when
 * `nonces` is set; `jti` never seen before.
 *
 * @example
 * ```ts
 * const verify = jwtAccessTokenVerifier({
 *   issuer: 'https://id.example.com',
 *   jwksUri: 'https://id.example.com/jwks',
 *   audience: 'https://api.example.com',
 *   dpop: dpopProofs({ maxAge: 30 }),
 * });
 * ```
 */
export function dpopProofs(options: DpopProofOptions = {}): DpopProofChecker {
  const algorithms = options.algorithms ?? DEFAULT_ALGORITHMS;
  if (!algorithms.length || !algorithms.every((alg) => ASYMMETRIC_ALGORITHMS.includes(alg))) {
    throw invalidOptions(DEV && `dpop algorithms may list only ${ASYMMETRIC_ALGORITHMS}.`);
  }
  const maxAge = bounded(options.maxAge, 60, 300, DEV && 'maxAge');
  const tolerance = bounded(options.clockTolerance, 5, 60, DEV && 'clockTolerance');
  const maxLength = bounded(options.maxLength, 8192, 65536, DEV && 'maxLength');
  const clock = options.now ?? systemClock;
  const replayCache = options.replayCache ?? memoryDpopReplayCache({ now: clock });
  const { nonces } = options;

  async function check(request: ResourceRequest, accessToken: string, jkt: string, primitives: JosePrimitives): Promise<void> {
    const proof = request.dpop;
    if (proof === null || proof === undefined || proof === '') fail(DEV && 'the request has no DPoP header; send a proof with every request');
    if (typeof proof !== 'string' || proof.length > maxLength) fail(DEV && `the DPoP header is over ${maxLength} characters`);
    // Two DPoP headers arrive joined by a comma, which no compact JWS contains.
    if (!COMPACT_JWS.test(proof)) fail(DEV && 'the DPoP header is not one compact JWS');
    const [headerSegment, payloadSegment] = proof.split('.', 2) as [string, string];
    const header = primitives.decodeJson(headerSegment);
    const claims = primitives.decodeJson(payloadSegment);
    if (!header || !claims) fail(DEV && 'the proof is not a JWS of base64url JSON objects');

    const { typ, alg, jwk, crit } = header;
    if (typ !== 'dpop+jwt') fail(DEV && 'its typ header is not dpop+jwt');
    if (typeof alg !== 'string' || !algorithms.includes(alg)) fail(DEV && `its alg is not one of ${algorithms.join(', ')}`);
    if (crit !== undefined) fail(DEV && 'its crit header names extensions this server does not support');
    const publicKey = publicJwk(jwk, alg);
    if (!publicKey) fail(DEV && 'its jwk header is not a public key for its alg (private members, or another key type)');
    if ((await primitives.sha256(thumbprintInput(publicKey))) !== jkt) {
      fail(DEV && 'the proof is signed by another key than the one the access token is bound to');
    }
    const valid = await Promise.resolve()
      .then(() => primitives.verify(proof, publicKey, alg))
      .catch(() => false);
    if (!valid) fail(DEV && 'the proof signature does not verify');

    const { htm, htu, ath, iat, nonce, jti } = claims;
    if (htm !== request.method) fail(DEV && 'its htm claim is not the method of this request');
    if (typeof htu !== 'string' || targetUri(htu) === undefined || targetUri(htu) !== targetUri(request.url)) {
      fail(DEV && 'its htu claim is not the URL of this request (query and fragment left out)');
    }
    if (typeof ath !== 'string' || ath !== (await primitives.sha256(accessToken))) fail(DEV && 'its ath claim is not the hash of the access token sent');
    const now = clock();
    if (typeof iat !== 'number' || !Number.isFinite(iat)) fail(DEV && 'its iat claim is missing');
    if (iat > now + tolerance || iat < now - maxAge - tolerance) fail(DEV && `its iat claim is outside the ${maxAge} s window; check the client's clock`);
    if (nonces && (typeof nonce !== 'string' || !(await nonces.accepts(nonce)))) {
      throw new AccessTokenError('dpop_nonce_required', 'use_dpop_nonce', DEV && 'The DPoP proof must carry the nonce this server sent: retry with the DPoP-Nonce of this answer.', {
        dpopNonce: await nonces.current(),
      });
    }
    if (typeof jti !== 'string' || !JTI.test(jti)) fail(DEV && 'its jti claim is missing or not a short printable string');
    if (!(await replayCache.remember(jti, iat + maxAge + tolerance))) {
      fail(DEV && 'this proof was used before; make a new proof for every request', 'dpop_proof_replayed');
    }
  }
  return { check, algorithms: [...algorithms], required: options.required === true };
}

/**
 * RFC 9449 section 7, the one binding rule of every verifier: a token with `cnf.jkt` only with
 * the DPoP scheme and a proof by its key; the DPoP scheme only for a bound token; an unbound
 * token only when `dpop` does not require binding. Undefined when there is nothing to await.
 */
export function checkDpopBinding(
  request: ResourceRequest,
  scheme: 'Bearer' | 'DPoP',
  token: string,
  jkt: string | undefined,
  dpop: DpopProofChecker | undefined,
  primitives: JosePrimitives,
): Promise<void> | undefined {
  if (jkt === undefined) {
    if (scheme === 'DPoP') mismatch(DEV && 'the DPoP scheme was used with a token that is not DPoP-bound; send it as Bearer');
    if (dpop?.required) mismatch(DEV && 'this API accepts DPoP-bound tokens only; the client must get one bound to its DPoP key');
    return undefined;
  }
  if (scheme !== 'DPoP') mismatch(DEV && 'a DPoP-bound token was sent as Bearer; send it with the DPoP scheme and a proof');
  if (!dpop) mismatch(DEV && 'the token is DPoP-bound and this API checks no DPoP proofs; pass the dpop option (dpopProofs())');
  return dpop.check(request, token, jkt, primitives);
}

/**
 * A `cnf` claim the binding rule can read (RFC 7800, RFC 9449 6): absent, or an object whose
 * `jkt`, when present, is a non-empty string. Both verifiers refuse a token or answer without one.
 */
export function isReadableConfirmation(cnf: unknown): boolean {
  return cnf === undefined || (isJsonObject(cnf) && (cnf.jkt === undefined || (typeof cnf.jkt === 'string' && cnf.jkt !== '')));
}

/** A verifier with its DPoP settings attached, for the HTTP layer's challenges and RFC 9728 metadata. */
export function withDpopSettings<C extends AccessTokenClaims>(verify: AccessTokenVerifier<C>, dpop: DpopProofChecker | undefined): AccessTokenVerifier<C> {
  return dpop ? Object.assign(verify, { dpop: { required: dpop.required, algorithms: dpop.algorithms } }) : verify;
}

// A token presented against its binding: `invalid_token`, like the token checks' failures.
function mismatch(problem?: string): never {
  throw new AccessTokenError('dpop_binding_mismatch', 'invalid_token', DEV && `Invalid access token: ${problem}.`);
}

// The proof's `jwk` as a public key that fits `alg`, or undefined.
function publicJwk(jwk: unknown, alg: string): JWK | undefined {
  if (!isJsonObject(jwk) || PRIVATE_MEMBERS.some((member) => member in jwk)) return undefined;
  const { kty, crv, n, e, x, y } = jwk;
  const key = { kty, crv, n, e, x, y } as JWK;
  const members = kty === 'EC' ? [crv, x, y] : kty === 'RSA' ? [n, e] : kty === 'OKP' ? [crv, x] : [undefined];
  if (!members.every((member) => typeof member === 'string' && member !== '')) return undefined;
  // Key type, curve, and `use`/`alg`/`key_ops` when present must all allow `alg`.
  return selectVerificationKey([{ ...jwk, ...key } as JWK], alg, undefined) ? key : undefined;
}

// RFC 7638: the required members in lexicographic order, as JSON without whitespace.
function thumbprintInput({ kty, crv, n, e, x, y }: JWK): string {
  return JSON.stringify(kty === 'EC' ? { crv, kty, x, y } : kty === 'RSA' ? { e, kty, n } : { crv, kty, x });
}

// RFC 9449 section 4.3: compared without query and fragment, after URL normalisation.
function targetUri(value: string): string | undefined {
  try {
    const url = new URL(value);
    url.search = '';
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}

function bounded(value: number | undefined, fallback: number, max: number, name: string): number {
  if (value === undefined) return fallback;
  if (Number.isFinite(value) && value >= 0 && value <= max) return value;
  throw invalidOptions(DEV && `${name} must be a number from 0 to ${max}.`);
}

// "Invalid DPoP proof: <what is wrong>." Never the proof, the token or a hash.
function fail(problem?: string, code: OidcErrorCode = 'dpop_proof_invalid'): never {
  throw new AccessTokenError(code, 'invalid_dpop_proof', DEV && `Invalid DPoP proof: ${problem}.`);
}

/** Options of {@link memoryDpopReplayCache}. */
export interface MemoryDpopReplayCacheOptions {
  /** Most `jti`s kept; past it the oldest go first. Default 100,000 (about 10 MB). */
  maxEntries?: number | undefined;
  now?: Clock | undefined;
}

/**
 * The default `jti` replay cache: this process's memory, bounded. Right for one instance; a
 * fleet behind a load balancer needs a shared one, else a proof replayed to another instance
 * passes. Past `maxEntries` live entries the oldest are forgotten (a flood of proofs larger
 * than that within `maxAge` could replay the oldest; size it above your peak requests per
 * `maxAge`).
 *
 * @example
 * ```ts
 * const dpop = dpopProofs({ replayCache: memoryDpopReplayCache({ maxEntries: 1_000_000 }) });
 * ```
 */
export function memoryDpopReplayCache(options: MemoryDpopReplayCacheOptions = {}): DpopReplayCache {
  const maxEntries = options.maxEntries ?? 100_000;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw invalidOptions(DEV && 'maxEntries must be a positive integer.');
  const clock = options.now ?? systemClock;
  const seen = new Map<string, number>();
  return {
    remember(jti, expiresAt) {
      const now = clock();
      // Entries arrive roughly in expiry order: drop expired ones from the front, a few per call.
      for (const [oldest, until] of seen) {
        if (until > now && seen.size < maxEntries) break;
        seen.delete(oldest);
      }
      const until = seen.get(jti);
      if (until !== undefined && until > now) return false;
      seen.set(jti, expiresAt);
      return true;
    },
  };
}

/** Options of {@link dpopNonces}. */
export interface DpopNoncesOptions {
  /**
   * The key nonces are derived from (at least 32 characters or bytes). Instances of a fleet
   * share it so that any of them accepts the others' nonces. Default a random key per process.
   */
  secret?: string | Uint8Array | undefined;
  /** Seconds a nonce is handed out; it is accepted for one more period. Default 300. */
  period?: number | undefined;
  now?: Clock | undefined;
}

/**
 * Server nonces without state: an HMAC of the current time period, so every instance with the
 * same `secret` issues and accepts the same ones, and a nonce lives between one and two periods.
 *
 * @example
 * ```ts
 * const dpop = dpopProofs({ nonces: dpopNonces({ secret: process.env.DPOP_NONCE_SECRET! }) });
 * ```
 */
export function dpopNonces(options: DpopNoncesOptions = {}): DpopNonces {
  const secret = typeof options.secret === 'string' ? utf8(options.secret) : (options.secret ?? crypto.getRandomValues(new Uint8Array(32)));
  if (!(secret instanceof Uint8Array) || secret.length < 32) throw invalidOptions(DEV && 'secret must be at least 32 characters or bytes.');
  const period = bounded(options.period, 300, 86_400, DEV && 'period');
  if (period < 1) throw invalidOptions(DEV && 'period must be at least 1 second.');
  const clock = options.now ?? systemClock;
  const key = crypto.subtle.importKey('raw', new Uint8Array(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const byWindow = new Map<number, Promise<string>>();
  const nonceOf = (window: number): Promise<string> => {
    let nonce = byWindow.get(window);
    if (!nonce) {
      nonce = key.then(async (k) => base64url(new Uint8Array(await crypto.subtle.sign('HMAC', k, utf8(`dpop-nonce.${window}`)))));
      byWindow.set(window, nonce);
      for (const old of byWindow.keys()) if (old < window - 1) byWindow.delete(old);
    }
    return nonce;
  };
  const windowNow = () => Math.floor(clock() / period);
  return {
    current: () => nonceOf(windowNow()),
    async accepts(nonce) {
      const window = windowNow();
      return nonce === (await nonceOf(window)) || nonce === (await nonceOf(window - 1));
    },
  };
}
