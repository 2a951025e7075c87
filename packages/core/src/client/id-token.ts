/**
 * ID token validation (OIDC Core 3.1.3.7, 3.2.2.11, 3.3.2.12) as one straight line of
 * one-line checks, each throwing an {@link OidcError} with its own code. Messages name the
 * claim, what was expected and what came, and never contain the token, a nonce, a code,
 * an access token or a hash.
 */

import { DEV } from '../dev';
import { invalidOptions } from '../options';
import { type Clock, systemClock } from '../clock';
import { type OidcErrorCode, OidcError } from '../errors';
import { ASYMMETRIC_ALGORITHMS, findJwksKey, selectVerificationKey } from '../jose/jwks';
import { verifyCompactJws } from '../jose/jws';
import { decodeUnverifiedJwt } from '../jose/jwt';
import { tokenHash } from '../jose/token-hashes';
import type { HttpOptions, IdTokenClaims, ProviderMetadata } from '../types';

/** Options for {@link validateIdToken}. */
export interface IdTokenValidationOptions {
  provider: ProviderMetadata;
  clientId: string;
  /** The nonce sent with the login request: the claim is then required and must equal it. */
  nonce?: string | undefined;
  /** The `max_age` sent with the login request, in seconds: `auth_time` is then required and checked. */
  maxAge?: number | undefined;
  /** Allowed clock skew in seconds. Default 60. */
  clockTolerance?: number | undefined;
  /** The access token that came with the ID token: `at_hash`, when present, must match it. */
  accessToken?: string | undefined;
  /** The code that came with the ID token: `c_hash`, when present, must match it. */
  code?: string | undefined;
  /**
   * The ID token came from the authorization endpoint (hybrid/implicit): `at_hash` and
   * `c_hash` are then required for the access token and code given.
   */
  frontChannel?: boolean | undefined;
  /** Accepted signing algorithms, asymmetric only. Default: those the provider lists, RS256 when it lists none. */
  algorithms?: string[] | undefined;
  /**
   * The one algorithm the client is registered for (its `id_token_signed_response_alg`): a token
   * signed with any other is refused (`id_token_alg_not_allowed`), even by a key the provider
   * publishes. Replaces `algorithms`. Default: unset, `algorithms` decides.
   */
  signingAlgorithm?: string | undefined;
  http?: HttpOptions | undefined;
  /** Seconds between JWKS refetches caused by an unknown `kid`. Default 30. */
  jwksRefetchCooldown?: number | undefined;
  /** The clock `exp`, `iat`, `nbf` and `auth_time` are judged by. Default {@link systemClock}. */
  now?: Clock | undefined;
}


/**
 * Verifies an ID token's signature against the provider's JWKS (cached; see
 * {@link clearJwksCache}) and checks its claims: `iss`, `aud`, `azp`, `exp`, `iat`, `nbf`,
 * `sub`, `nonce`, `auth_time` against `maxAge`, `at_hash` and `c_hash`. Resolves the
 * verified claims; rejects with an {@link OidcError} whose `code` names the failed rule.
 *
 * @example
 * ```ts
 * import { validateIdToken } from '@oidc-rp/core';
 *
 * const claims = await validateIdToken(tokens.idToken, {
 *   provider,
 *   clientId: 'my-client',
 *   nonce: transaction.nonce,
 * });
 * console.log(claims.sub);
 * ```
 */
export async function validateIdToken(idToken: string, options: IdTokenValidationOptions): Promise<IdTokenClaims> {
  const tolerance = seconds(options.clockTolerance, DEV && 'clockTolerance') ?? 60;
  const maxAge = seconds(options.maxAge, DEV && 'maxAge');
  const allowed = allowedAlgorithms(options);

  const token = typeof idToken === 'string' ? decodeUnverifiedJwt(idToken) : undefined;
  if (!token) fail('id_token_malformed', DEV && 'not a JWS of three base64url JSON parts');
  // The header is checked before any key lookup: `none` and HMAC never reach the JWKS.
  const { alg, kid, crit } = token.header;
  if (typeof alg !== 'string' || (kid !== undefined && typeof kid !== 'string')) {
    fail('id_token_malformed', DEV && 'header "alg" or "kid" is not a string');
  }
  // No JWS extension is understood here, so none may be critical (RFC 7515 section 4.1.11).
  if (crit !== undefined) fail('id_token_malformed', DEV && 'header "crit" names extensions this client does not support');
  if (!allowed.includes(alg)) {
    fail(
      'id_token_alg_not_allowed',
      DEV && algorithmProblem(alg, allowed, options.signingAlgorithm),
      DEV && (options.signingAlgorithm ? 'check the signing algorithm registered for the client' : 'set the algorithms option'),
    );
  }
  await verifySignature(idToken, alg, kid, options);
  // The signature covers the very segments these claims were decoded from.
  const claims = token.payload;

  await checkClaims(claims, options, alg, tolerance, maxAge);
  return claims as IdTokenClaims;
}

/**
 * The algorithms a provider's signed token may use: the client's pinned `signingAlgorithm`
 * alone, else the caller's `algorithms` (asymmetric only), else those the provider advertises
 * for ID tokens, RS256 when it lists none. Internal (shared with the logout-token validator).
 */
export function allowedAlgorithms({
  algorithms,
  provider,
  signingAlgorithm,
}: Pick<IdTokenValidationOptions, 'algorithms' | 'provider' | 'signingAlgorithm'>): string[] {
  // Pinned, it is the one algorithm allowed, checked as `algorithms` are.
  if (signingAlgorithm !== undefined) algorithms = [signingAlgorithm];
  if (!algorithms) {
    const advertised = provider.id_token_signing_alg_values_supported;
    return Array.isArray(advertised) ? ASYMMETRIC_ALGORITHMS.filter((alg) => advertised.includes(alg)) : ['RS256'];
  }
  if (algorithms.length && algorithms.every((alg) => ASYMMETRIC_ALGORITHMS.includes(alg))) return algorithms;
  throw invalidOptions(DEV && `algorithms and signingAlgorithm may name only ${ASYMMETRIC_ALGORITHMS}.`);
}

/**
 * A client's pinned signing algorithm, checked: one asymmetric JWS algorithm; anything else is
 * `invalid_options`. The wrappers call it when a client is created, so a typo fails at start-up.
 *
 * @example
 * ```ts
 * import { checkSigningAlgorithm } from '@oidc-rp/core/internal';
 *
 * checkSigningAlgorithm('RS256'); // 'RS256'
 * ```
 */
export function checkSigningAlgorithm(signingAlgorithm: string): string {
  if (ASYMMETRIC_ALGORITHMS.includes(signingAlgorithm)) return signingAlgorithm;
  throw invalidOptions(DEV && `signingAlgorithm must be one of ${ASYMMETRIC_ALGORITHMS} (the client's registered id_token_signed_response_alg).`);
}

/** What is wrong with a token's `alg`: not the pinned one, or not an allowed one. Internal (messages only). */
export function algorithmProblem(alg: unknown, allowed: string[], signingAlgorithm: string | undefined): string {
  return signingAlgorithm !== undefined
    ? `"alg" is ${show(alg)}, but the client is registered for ${show(signingAlgorithm)} (signingAlgorithm)`
    : `"alg" ${show(alg)} is not in [${allowed}] (never none/HMAC)`;
}

// The key comes from the provider's JWKS (cached; refetched for an unknown `kid`).
async function verifySignature(idToken: string, alg: string, kid: string | undefined, options: IdTokenValidationOptions): Promise<void> {
  const jwksUri = options.provider.jwks_uri;
  if (typeof jwksUri !== 'string') {
    throw new OidcError('invalid_provider_metadata', DEV && 'The provider has no jwks_uri: add it to verify ID tokens.');
  }
  const key = await findJwksKey(jwksUri, (keys) => selectVerificationKey(keys, alg, kid), {
    http: options.http,
    refetchCooldown_: seconds(options.jwksRefetchCooldown, DEV && 'jwksRefetchCooldown') ?? 30,
  });
  if (!key) {
    fail(
      'id_token_unknown_kid',
      DEV && (kid === undefined ? `no "kid", and the JWKS has not exactly one ${alg} key to pick` : `the JWKS has no ${alg} key with "kid" ${show(kid)}`),
      DEV && 'retry later',
    );
  }
  let cause: unknown;
  const valid = await verifyCompactJws(idToken, key, alg).catch((error: unknown) => {
    cause = error;
    return false;
  });
  if (!valid) throw new OidcError('id_token_signature_invalid', DEV && message('the signature does not verify'), { cause });
}

/**
 * The claim rules of OIDC Core 3.1.3.7, one line each, in order of precedence: the first rule
 * broken names the error. Times are judged by the caller's clock with `tolerance` either way.
 */
async function checkClaims(
  claims: Record<string, unknown>,
  { provider, clientId, nonce, accessToken, code, frontChannel, now: clock }: IdTokenValidationOptions,
  alg: string,
  tolerance: number,
  maxAge: number | undefined,
): Promise<void> {
  const { iss, aud, azp, sub } = claims;
  const now = (clock ?? systemClock)();
  const earliest = now - tolerance;
  const latest = now + tolerance;
  const at = DEV && `now ${now}, tolerance ${tolerance} s`;
  if (iss !== provider.issuer) fail('id_token_iss_mismatch', DEV && `"iss" is ${show(iss)}, not ${show(provider.issuer)}`);
  if (typeof aud === 'string' ? aud !== clientId : !Array.isArray(aud) || !aud.includes(clientId)) {
    fail('id_token_aud_mismatch', DEV && `"aud" is ${show(aud)}, not ${show(clientId)}`);
  }
  if (azp === undefined && Array.isArray(aud) && aud.length > 1) fail('id_token_azp_missing', DEV && 'several audiences and no "azp"');
  if (azp !== undefined && azp !== clientId) fail('id_token_azp_mismatch', DEV && `"azp" is ${show(azp)}, not ${show(clientId)}`);

  const exp = numericDate(claims, 'exp') ?? fail('id_token_malformed', DEV && 'no "exp"');
  if (exp <= earliest) fail('id_token_expired', DEV && `"exp" ${exp} has passed (${at})`);
  const iat = numericDate(claims, 'iat') ?? fail('id_token_iat_missing', DEV && 'no "iat"');
  if (iat > latest) fail('id_token_iat_future', DEV && `"iat" ${iat} is in the future (${at})`, DEV && CHECK_CLOCK);
  const nbf = numericDate(claims, 'nbf') ?? now; // absent: no lower bound
  if (nbf > latest) fail('id_token_nbf_future', DEV && `"nbf" ${nbf} is in the future (${at})`, DEV && CHECK_CLOCK);
  if (typeof sub !== 'string' || !sub) fail('id_token_sub_missing', DEV && 'no "sub"');

  // Never echoes either nonce.
  if (nonce !== undefined && claims.nonce === undefined) fail('id_token_nonce_missing', DEV && 'no "nonce", though the login sent one');
  if (nonce !== undefined && claims.nonce !== nonce) fail('id_token_nonce_mismatch', DEV && '"nonce" is not the one this login sent');

  const authTime = numericDate(claims, 'auth_time');
  if (maxAge !== undefined) {
    if (authTime === undefined) fail('id_token_auth_time_missing', DEV && 'no "auth_time", which max_age requires');
    if (authTime + maxAge < earliest) {
      fail('id_token_auth_time_too_old', DEV && `"auth_time" ${authTime} is over max_age ${maxAge} s ago (${at})`);
    }
  }
  await checkTokenHash(claims, 'at_hash', accessToken, alg, frontChannel);
  await checkTokenHash(claims, 'c_hash', code, alg, frontChannel);
}

// Never echoes the hash or the value it binds.
async function checkTokenHash(
  claims: Record<string, unknown>,
  claim: 'at_hash' | 'c_hash',
  value: string | undefined,
  alg: string,
  frontChannel: boolean | undefined,
): Promise<void> {
  if (value === undefined) return;
  if (claims[claim] === undefined) {
    if (frontChannel) fail(`id_token_${claim}_missing`, DEV && `no "${claim}", required in the front channel`);
  } else if (claims[claim] !== (await tokenHash(value, alg))) {
    fail(`id_token_${claim}_mismatch`, DEV && `"${claim}" does not match the token or code it came with`);
  }
}

/** A time claim: undefined when absent; a malformed token when present but not a finite number. */
function numericDate(claims: Record<string, unknown>, name: string): number | undefined {
  const value = claims[name];
  if (value === undefined || Number.isFinite(value)) return value as number | undefined;
  return fail('id_token_malformed', DEV && `"${name}" is not a number`);
}

/** A non-negative number of seconds option, or undefined; anything else is a caller mistake. Internal. */
export function seconds(value: number | undefined, name: string): number | undefined {
  if (value === undefined || (Number.isFinite(value) && value >= 0)) return value;
  throw invalidOptions(DEV && `${name} must be a number of seconds >= 0.`);
}

const CHECK_CLOCK = "check this machine's clock";

// "Invalid ID token: <what is wrong>; <what to do>." Never a token, nonce, code or hash value.
function message(problem: string, todo = 'start a new login'): string {
  return `Invalid ID token: ${problem}; ${todo}.`;
}

// `problem` and `todo` are `DEV && ...`: a production build keeps only the code.
function fail(code: OidcErrorCode, problem?: string, todo?: string): never {
  throw new OidcError(code, DEV && message(problem as string, todo || undefined));
}

/** A value from a token, shown only when short and printable; arrays item by item. Internal. */
export function show(value: unknown): string {
  if (typeof value === 'string') {
    return /^[\x20-\x7e]{1,100}$/.test(value) ? JSON.stringify(value) : 'an unprintable or long string';
  }
  if (Array.isArray(value)) return value.length < 6 ? `[${value.map(show)}]` : `${value.length} values`;
  return value === undefined ? 'absent' : typeof value;
}
