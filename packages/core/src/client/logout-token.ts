/**
 * Logout-token validation (OpenID Connect Back-Channel Logout 1.0, section 2.6): the ID-token
 * signature path (one decode, the cached JWKS, WebCrypto, asymmetric algorithms only) plus the
 * logout-token rules, one line each, each with its own error code. Replay (`jti`) is the
 * caller's: a function over plain data keeps no store. Messages never contain the token.
 */

import { DEV } from '../dev';
import { type Clock, systemClock } from '../clock';
import { type OidcErrorCode, OidcError } from '../errors';
import { algorithmProblem, allowedAlgorithms, seconds, show } from './id-token';
import { verifyProviderSignature } from '../jose/provider-signature';
import { decodeUnverifiedJwt } from '../jose/jwt';
import type { HttpOptions, ProviderMetadata } from '../types';

/** The member of the `events` claim that makes a JWT a back-channel logout token. */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** Options for {@link validateLogoutToken}. */
export interface LogoutTokenValidationOptions {
  provider: ProviderMetadata;
  clientId: string;
  /** Allowed clock skew in seconds. Default 60. */
  clockTolerance?: number | undefined;
  /**
   * How old (by `iat`) a token may be, in seconds. Default 120. Keep a token's `jti` at least
   * this long plus twice `clockTolerance` to refuse its replay ({@link logoutTokenReplayWindow}).
   */
  maxAge?: number | undefined;
  /** Accepted signing algorithms, asymmetric only. Default: those the provider lists for ID tokens, RS256 when it lists none. */
  algorithms?: string[] | undefined;
  /**
   * The one algorithm the client is registered for (its `id_token_signed_response_alg`, which
   * logout tokens share): a token signed with any other is refused
   * (`logout_token_alg_not_allowed`), even by a key the provider publishes. Replaces `algorithms`.
   */
  signingAlgorithm?: string | undefined;
  http?: HttpOptions | undefined;
  /** Seconds between JWKS refetches caused by an unknown `kid`. Default 30. */
  jwksRefetchCooldown?: number | undefined;
  /** The clock `iat` and `exp` are judged by. Default {@link systemClock}. */
  now?: Clock | undefined;
}

/** The verified claims of a logout token: at least one of `sub` and `sid`. */
export interface LogoutTokenClaims {
  iss: string;
  aud: string | string[];
  iat: number;
  exp?: number;
  /** Unique per token: refuse a second token with the same `jti` (replay). */
  jti: string;
  /** The user whose sessions end (all of them, when `sid` is absent). */
  sub?: string;
  /** The provider session that ended (the `sid` of the ID tokens it issued). */
  sid?: string;
  events: Record<string, unknown>;
  [claim: string]: unknown;
}

// Explicit typing (section 2.4, RFC 8725 3.11): a token of another kind (an access token, a
// DPoP proof) never passes for a logout token; `JWT` and an absent `typ` are still allowed.
const ACCEPTED_TYP = new Set(['logout+jwt', 'application/logout+jwt', 'jwt']);

const DEFAULT_MAX_AGE = 120;
const DEFAULT_TOLERANCE = 60;

/**
 * How long, in seconds, a logout token validated with these options can be accepted: keep its
 * `jti` at least this long to refuse a replay.
 *
 * @example
 * ```ts
 * import { logoutTokenReplayWindow } from '@oidc-rp/core';
 *
 * const ttl = logoutTokenReplayWindow({}); // 240 with the defaults
 * ```
 */
export function logoutTokenReplayWindow(options: Pick<LogoutTokenValidationOptions, 'maxAge' | 'clockTolerance'>): number {
  const tolerance = seconds(options.clockTolerance, DEV && 'clockTolerance') ?? DEFAULT_TOLERANCE;
  return (seconds(options.maxAge, DEV && 'maxAge') ?? DEFAULT_MAX_AGE) + 2 * tolerance;
}

/**
 * Verifies a back-channel logout token's signature against the provider's JWKS (cached, shared
 * with ID-token validation) and checks the rules of Back-Channel Logout 1.0 section 2.6: `typ`,
 * `iss`, `aud`, `iat` (not in the future, not older than `maxAge`), `exp` when present, `jti`,
 * the `events` claim with the back-channel member as an object, no `nonce`, and `sub` and/or
 * `sid`. Resolves the verified claims; rejects with an {@link OidcError} whose `code` names the
 * failed rule. Refusing a replayed `jti` is the caller's job.
 *
 * @example
 * ```ts
 * import { validateLogoutToken } from '@oidc-rp/core';
 *
 * const claims = await validateLogoutToken(form.get('logout_token') ?? '', { provider, clientId: 'my-client' });
 * console.log(claims.sid ?? claims.sub);
 * ```
 */
export async function validateLogoutToken(logoutToken: string, options: LogoutTokenValidationOptions): Promise<LogoutTokenClaims> {
  const tolerance = seconds(options.clockTolerance, DEV && 'clockTolerance') ?? DEFAULT_TOLERANCE;
  const maxAge = seconds(options.maxAge, DEV && 'maxAge') ?? DEFAULT_MAX_AGE;
  const allowed = allowedAlgorithms(options);

  const token = typeof logoutToken === 'string' ? decodeUnverifiedJwt(logoutToken) : undefined;
  if (!token) fail('logout_token_malformed', DEV && 'not a JWS of three base64url JSON parts');
  const { alg, kid, crit, typ } = token.header;
  if (typeof alg !== 'string' || (kid !== undefined && typeof kid !== 'string')) {
    fail('logout_token_malformed', DEV && 'header "alg" or "kid" is not a string');
  }
  if (crit !== undefined) fail('logout_token_malformed', DEV && 'header "crit" names extensions this client does not support');
  // Before any key lookup: `none` and HMAC never reach the JWKS.
  if (!allowed.includes(alg)) fail('logout_token_alg_not_allowed', DEV && algorithmProblem(alg, allowed, options.signingAlgorithm));
  if (typ !== undefined && (typeof typ !== 'string' || !ACCEPTED_TYP.has(typ.toLowerCase()))) {
    fail('logout_token_typ_invalid', DEV && `header "typ" is ${show(typ)}, not "logout+jwt"`);
  }
  await verifySignature(logoutToken, alg, kid, options);
  // The signature covers the very segments these claims were decoded from.
  checkClaims(token.payload, options, tolerance, maxAge);
  return token.payload as LogoutTokenClaims;
}

async function verifySignature(token: string, alg: string, kid: string | undefined, options: LogoutTokenValidationOptions): Promise<void> {
  const outcome = await verifyProviderSignature(token, alg, kid, {
    provider: options.provider,
    http: options.http,
    refetchCooldown: seconds(options.jwksRefetchCooldown, DEV && 'jwksRefetchCooldown') ?? 30,
  });
  if (outcome.ok) return;
  if (outcome.reason === 'no_jwks_uri') {
    throw new OidcError('invalid_provider_metadata', DEV && 'The provider has no jwks_uri: add it to verify logout tokens.');
  }
  if (outcome.reason === 'unknown_kid') fail('logout_token_unknown_kid', DEV && `the JWKS has no ${alg} key with "kid" ${show(kid)}`);
  throw new OidcError('logout_token_signature_invalid', DEV && message('the signature does not verify'), { cause: outcome.cause });
}

/** Section 2.6's claim rules, in order: the first rule broken names the error. */
function checkClaims(claims: Record<string, unknown>, { provider, clientId, now: clock }: LogoutTokenValidationOptions, tolerance: number, maxAge: number): void {
  const { iss, aud, jti, sub, sid, events } = claims;
  const now = (clock ?? systemClock)();
  const at = DEV && `now ${now}, tolerance ${tolerance} s`;
  if (iss !== provider.issuer) fail('logout_token_iss_mismatch', DEV && `"iss" is ${show(iss)}, not ${show(provider.issuer)}`);
  if (typeof aud === 'string' ? aud !== clientId : !Array.isArray(aud) || !aud.includes(clientId)) {
    fail('logout_token_aud_mismatch', DEV && `"aud" is ${show(aud)}, not ${show(clientId)}`);
  }
  const event = typeof events === 'object' && events !== null && !Array.isArray(events) ? (events as Record<string, unknown>)[BACKCHANNEL_LOGOUT_EVENT] : undefined;
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    fail('logout_token_events_invalid', DEV && `"events" has no "${BACKCHANNEL_LOGOUT_EVENT}" member that is a JSON object`);
  }
  // A nonce makes an ID token; a logout token must never be one (section 2.4).
  if (claims.nonce !== undefined) fail('logout_token_nonce_present', DEV && 'it carries "nonce", which a logout token never does');
  const iat = numericDate(claims, 'iat') ?? fail('logout_token_iat_invalid', DEV && 'no "iat"');
  if (iat > now + tolerance) fail('logout_token_iat_invalid', DEV && `"iat" ${iat} is in the future (${at})`);
  if (iat < now - tolerance - maxAge) fail('logout_token_iat_invalid', DEV && `"iat" ${iat} is over maxAge ${maxAge} s ago (${at})`);
  const exp = numericDate(claims, 'exp');
  if (exp !== undefined && exp <= now - tolerance) fail('logout_token_expired', DEV && `"exp" ${exp} has passed (${at})`);
  if (typeof jti !== 'string' || !jti) fail('logout_token_jti_missing', DEV && 'no "jti" (needed to refuse a replay)');
  if (sub !== undefined && (typeof sub !== 'string' || !sub)) fail('logout_token_malformed', DEV && '"sub" is not a non-empty string');
  if (sid !== undefined && (typeof sid !== 'string' || !sid)) fail('logout_token_malformed', DEV && '"sid" is not a non-empty string');
  if (sub === undefined && sid === undefined) fail('logout_token_sub_sid_missing', DEV && 'neither "sub" nor "sid" says whose session ended');
}

/** A time claim: undefined when absent; a malformed token when present but not a finite number. */
function numericDate(claims: Record<string, unknown>, name: string): number | undefined {
  const value = claims[name];
  if (value === undefined || Number.isFinite(value)) return value as number | undefined;
  return fail('logout_token_malformed', DEV && `"${name}" is not a number`);
}

// "Invalid logout token: <what is wrong>; <what to do>." Never the token or a claim value but short printable ones.
function message(problem: string): string {
  return `Invalid logout token: ${problem}; answer 400 and end no session.`;
}

// `problem` is `DEV && ...`: a production build keeps only the code.
function fail(code: OidcErrorCode, problem?: string): never {
  throw new OidcError(code, DEV && message(problem as string));
}
