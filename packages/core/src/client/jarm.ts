/**
 * JARM (JWT Secured Authorization Response Mode for OAuth 2.0), client side: asking for it
 * (`withJarm`, outside the request builder, so apps without JARM carry none of it), and
 * opening the `response` JWT before anything else of the response is read: the algorithm
 * (pinned, never `none` or HMAC), the signature by the provider's JWKS, `iss`, `aud`, `exp`.
 * Its content then passes the usual `state`, `iss` and response-type checks.
 */

import { DEV } from '../dev';
import { type Clock, systemClock } from '../clock';
import { type OidcErrorCode, OidcError } from '../errors';
import { invalidOptions } from '../options';
import { ASYMMETRIC_ALGORITHMS } from '../jose/jwks';
import { decodeUnverifiedJwt } from '../jose/jwt';
import { verifyProviderSignature } from '../jose/provider-signature';
import { algorithmProblem, allowedAlgorithms, seconds, show } from './id-token';
import { responseParameters } from './authorization-response';
import type { AuthorizationTransaction, HttpOptions, ProviderMetadata, ResponseMode, ResponseType } from '../types';

/** The JARM response modes (JARM 2.3); `jwt` is the response type's default: `query.jwt` for `code`, `fragment.jwt` otherwise. */
export type JarmResponseMode = 'jwt' | 'query.jwt' | 'fragment.jwt' | 'form_post.jwt';

const JARM_MODES: readonly string[] = ['jwt', 'query.jwt', 'fragment.jwt', 'form_post.jwt'];

/**
 * Whether `mode` is a JARM response mode.
 *
 * @example
 * ```ts
 * isJarmResponseMode('form_post.jwt'); // true
 * ```
 */
export function isJarmResponseMode(mode: unknown): mode is JarmResponseMode {
  return typeof mode === 'string' && JARM_MODES.includes(mode);
}

/**
 * Where a JARM response travels: the plain mode under the `.jwt`; `jwt` is `query` for the
 * `code` response type and `fragment` otherwise (JARM 2.3.4).
 *
 * @example
 * ```ts
 * jarmDelivery('jwt', 'code'); // 'query'
 * ```
 */
export function jarmDelivery(mode: JarmResponseMode, responseType: ResponseType): ResponseMode {
  if (mode === 'jwt') return responseType === 'code' ? 'query' : 'fragment';
  return mode.slice(0, -'.jwt'.length) as ResponseMode;
}

/**
 * `request` asking for a JARM response: `response_mode` becomes the JARM form of the
 * transaction's mode (`query.jwt`, `fragment.jwt`, `form_post.jwt`) and the transaction is
 * marked, so its callback accepts only a verified `response` JWT. The same URL object and
 * transaction, for the flow's redirect or push. `query.jwt` is refused for response types that
 * return tokens (JARM 2.3.1).
 *
 * @example
 * ```ts
 * const { url, transaction } = withJarm(await buildAuthorizationRequest({ ...params, responseMode: jarmDelivery('jwt', 'code') }));
 * ```
 */
export function withJarm<R extends { url: URL; transaction: AuthorizationTransaction }>(request: R): R {
  const { transaction } = request;
  if (transaction.responseMode === 'query' && transaction.responseType !== 'code') {
    throw invalidOptions(DEV && `JARM never uses query.jwt for responseType "${transaction.responseType}" (it returns tokens): use fragment.jwt or form_post.jwt.`);
  }
  request.url.searchParams.set('response_mode', `${transaction.responseMode}.jwt`);
  transaction.jarm = true;
  return request;
}

/** Options for {@link validateJarmResponse}. */
export interface JarmValidationOptions {
  provider: ProviderMetadata;
  clientId: string;
  /**
   * The one algorithm the client is registered for: a response signed with any other is
   * refused (`jarm_alg_not_allowed`). Default: unset, `algorithms` decides.
   */
  signingAlgorithm?: string | undefined;
  /** Accepted algorithms, asymmetric only. Default: the provider's `authorization_signing_alg_values_supported`, RS256 when it lists none. */
  algorithms?: string[] | undefined;
  /** Allowed clock skew in seconds for `exp`. Default 60. */
  clockTolerance?: number | undefined;
  http?: HttpOptions | undefined;
  /** Seconds between JWKS refetches caused by an unknown `kid`. Default 30. */
  jwksRefetchCooldown?: number | undefined;
  /** The clock `exp` is judged by. Default {@link systemClock}. */
  now?: Clock | undefined;
}

// Claims of the JWT itself, not response parameters.
const ENVELOPE = new Set(['aud', 'exp', 'iat', 'nbf', 'jti']);

/**
 * Verifies a JARM `response` JWT and returns the authorization response parameters it carries
 * (`iss` among them), for the usual `state`/`iss`/`error`/response-type checks. In this order:
 * `jarm_response_malformed` (not a signed JWT of JSON, an encrypted one, a `crit` header),
 * `jarm_alg_not_allowed` (`none`, HMAC, or not the pinned algorithm: before any key lookup),
 * `jarm_unknown_kid`, `jarm_signature_invalid`, `jarm_iss_mismatch` (absent or not the
 * provider's issuer), `jarm_aud_mismatch` (absent or not naming the client), `jarm_exp_missing`,
 * `jarm_expired`, then `jarm_response_malformed` for a parameter that is not a string.
 *
 * @example
 * ```ts
 * import { validateJarmResponse } from '@oidc-rp/core';
 *
 * const params = await validateJarmResponse(url.searchParams.get('response') ?? '', { provider, clientId: 'web' });
 * params.get('code');
 * ```
 */
export async function validateJarmResponse(response: string, options: JarmValidationOptions): Promise<URLSearchParams> {
  const tolerance = seconds(options.clockTolerance, DEV && 'clockTolerance') ?? 60;
  const allowed = allowedJarmAlgorithms(options);
  if (typeof response === 'string' && response.split('.').length === 5) {
    fail('jarm_response_malformed', DEV && 'it is encrypted (a JWE), which this client does not decrypt', DEV && 'register the client for signed-only responses');
  }
  const token = typeof response === 'string' ? decodeUnverifiedJwt(response) : undefined;
  if (!token) fail('jarm_response_malformed', DEV && 'not a JWS of three base64url JSON parts');
  const { alg, kid, crit } = token.header;
  if (typeof alg !== 'string' || (kid !== undefined && typeof kid !== 'string')) fail('jarm_response_malformed', DEV && 'header "alg" or "kid" is not a string');
  if (crit !== undefined) fail('jarm_response_malformed', DEV && 'header "crit" names extensions this client does not support');
  if (!allowed.includes(alg)) fail('jarm_alg_not_allowed', DEV && algorithmProblem(alg, allowed, options.signingAlgorithm));

  const outcome = await verifyProviderSignature(response, alg, kid, {
    provider: options.provider,
    http: options.http,
    refetchCooldown: seconds(options.jwksRefetchCooldown, DEV && 'jwksRefetchCooldown') ?? 30,
  });
  if (!outcome.ok) {
    if (outcome.reason === 'no_jwks_uri') throw new OidcError('invalid_provider_metadata', DEV && 'The provider has no jwks_uri: add it to verify JARM responses.');
    if (outcome.reason === 'unknown_kid') fail('jarm_unknown_kid', DEV && `the JWKS has no ${alg} key with "kid" ${show(kid)}`, DEV && 'retry later');
    throw new OidcError('jarm_signature_invalid', DEV && message('the signature does not verify'), { cause: outcome.cause });
  }

  // The signature covers the very segments these claims were decoded from.
  const claims = token.payload;
  const { iss, aud, exp } = claims;
  const now = (options.now ?? systemClock)();
  if (iss !== options.provider.issuer) fail('jarm_iss_mismatch', DEV && `"iss" is ${show(iss)}, not ${show(options.provider.issuer)}`);
  if (typeof aud === 'string' ? aud !== options.clientId : !Array.isArray(aud) || !aud.includes(options.clientId)) {
    fail('jarm_aud_mismatch', DEV && `"aud" is ${show(aud)}, not ${show(options.clientId)}`);
  }
  if (exp === undefined) fail('jarm_exp_missing', DEV && 'no "exp"');
  if (!Number.isFinite(exp)) fail('jarm_response_malformed', DEV && '"exp" is not a number');
  if ((exp as number) <= now - tolerance) fail('jarm_expired', DEV && `"exp" ${String(exp)} has passed (now ${now}, tolerance ${tolerance} s)`);

  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(claims)) {
    if (ENVELOPE.has(name)) continue;
    if (typeof value !== 'string') fail('jarm_response_malformed', DEV && `the parameter ${show(name)} is not a string`);
    params.append(name, value);
  }
  return params;
}

/**
 * The verified parameters of a JARM login's callback: the one `response` parameter, where the
 * transaction's mode delivers it, opened by {@link validateJarmResponse}. A callback without it
 * (plain parameters, e.g. a `code`, where JARM was asked for) is `jarm_response_missing`: the
 * downgrade is refused. Internal: `completeAuthorization` calls it.
 */
export async function openJarmResponse(
  input: URL | string | URLSearchParams,
  transaction: AuthorizationTransaction,
  options: JarmValidationOptions,
): Promise<URLSearchParams> {
  const responses = responseParameters(input, transaction).getAll('response');
  if (responses.length === 0) {
    fail('jarm_response_missing', DEV && 'the callback has no "response" JWT, though this login asked for one (a downgrade?)');
  }
  if (responses.length > 1) fail('jarm_response_malformed', DEV && '"response" appears twice');
  return validateJarmResponse(responses[0] as string, options);
}

// The pinned or given algorithms (checked as for ID tokens), else those the provider lists for JARM, else RS256 (JARM 3).
function allowedJarmAlgorithms(options: JarmValidationOptions): string[] {
  if (options.signingAlgorithm !== undefined || options.algorithms !== undefined) return allowedAlgorithms(options);
  const advertised = options.provider.authorization_signing_alg_values_supported;
  return Array.isArray(advertised) ? ASYMMETRIC_ALGORITHMS.filter((alg) => advertised.includes(alg)) : ['RS256'];
}

// "Invalid JARM response: <what is wrong>; <what to do>." Never the token, a code or a state.
function message(problem: string, todo = 'start a new login'): string {
  return `Invalid JARM response: ${problem}; ${todo}.`;
}

// `problem` and `todo` are `DEV && ...`: a production build keeps only the code.
function fail(code: OidcErrorCode, problem?: string, todo?: string): never {
  throw new OidcError(code, DEV && message(problem as string, todo || undefined));
}
