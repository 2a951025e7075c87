/**
 * A resource server's verifier of opaque access tokens, built on introspection (RFC 7662): a
 * bounded cache of answers (keyed by the token's hash, never kept past the token's `exp`) and one
 * request for concurrent checks of one token.
 */

import {
  type AccessTokenClaims,
  AccessTokenError,
  type AccessTokenVerifier,
  type ResourceRequest,
  type VerifiedAccessToken,
} from './access-token-error';
import { type Clock, systemClock } from '../clock';
import { DEV } from '../dev';
import { type DpopProofChecker, checkDpopBinding, isReadableConfirmation, withDpopSettings } from './dpop-proof-check';
import { base64url, digest } from '../http/encoding';
import { type JosePrimitives, webCryptoPrimitives } from '../jose/primitives';
import { invalidOptions, requireString } from '../options';
import { readAccessToken } from './access-token-header';
import { type IntrospectTokenParams, type IntrospectionResponse, introspectToken } from './introspection';

/** Settings of {@link introspectionVerifier}. */
export interface IntrospectionVerifierOptions extends Omit<IntrospectTokenParams, 'token' | 'tokenTypeHint'> {
  /** This API's resource identifier: an active token must name it in `aud`. Omit only when the provider states no audience. */
  audience?: string;
  /**
   * Answers kept per token (by its SHA-256 hash): at most `maxAge` seconds (default 30) and never
   * past the token's `exp`, so a revoked token is refused at most `maxAge` seconds after its
   * revocation; `maxEntries` (default 10 000) bounds memory, the oldest entry going first.
   * `false`: ask the provider on every request.
   */
  cache?: { maxAge?: number; maxEntries?: number } | false;
  /** The clock of `exp`, `nbf` and the cache. Default `systemClock` (from `@oidc-rp/core`). */
  now?: Clock;
  /** Seconds of clock skew accepted on `nbf`. Default 60. */
  clockTolerance?: number;
  /**
   * DPoP proof checking ({@link dpopProofs}), the same value `jwtAccessTokenVerifier` takes: the
   * proof is checked against the introspected `cnf.jkt`. Absent, a DPoP-bound token is refused.
   */
  dpop?: DpopProofChecker | undefined;
  /** Hash, signature and decoding primitives of the DPoP proof checks. Default `webCryptoPrimitives`; `@oidc-rp/node/api` passes `node:crypto` ones. */
  primitives?: JosePrimitives | undefined;
}

type Answer = IntrospectionResponse | undefined; // undefined: not active

const DEFAULT_CACHE_SECONDS = 30;
const DEFAULT_CACHE_ENTRIES = 10_000;

/**
 * A verifier for opaque access tokens: the token is introspected (RFC 7662) and must be active,
 * unexpired, for `audience`, from the provider's `issuer` and an access token; then the DPoP
 * binding, the rule of `jwtAccessTokenVerifier`: a token with `cnf.jkt` only with the `DPoP`
 * scheme and a proof `dpop` accepts, an unbound one only as `Bearer`. Answers are cached (see
 * `cache`) and concurrent checks of one token share one request. Failures are {@link AccessTokenError}s; a provider that cannot be asked is an
 * `OidcError` (`introspection_failed`, `network_error`) that the HTTP layer answers with 503.
 *
 * @example
 * ```ts
 * const verifier = introspectionVerifier({
 *   provider: await discover('https://id.example.com'),
 *   client: { clientId: 'orders-api' },
 *   clientAuth: clientSecretBasic(process.env.API_CLIENT_SECRET!),
 *   audience: 'https://api.example.com',
 *   dpop: dpopProofs(), // DPoP-bound tokens too, checked against the introspected cnf.jkt
 * });
 * const { claims, scopes } = await verifier({ method: 'GET', url, authorization, dpop });
 * ```
 */
export function introspectionVerifier<C extends AccessTokenClaims = AccessTokenClaims>(options: IntrospectionVerifierOptions): AccessTokenVerifier<C> {
  const { audience, dpop } = options;
  const primitives = options.primitives ?? webCryptoPrimitives;
  const now = options.now ?? systemClock;
  const tolerance = options.clockTolerance ?? 60;
  const cacheOptions = options.cache === false ? undefined : (options.cache ?? {});
  const maxAge = cacheOptions?.maxAge ?? DEFAULT_CACHE_SECONDS;
  const maxEntries = cacheOptions?.maxEntries ?? DEFAULT_CACHE_ENTRIES;
  if (cacheOptions && (!(maxAge > 0) || !(maxEntries >= 1))) throw invalidOptions(DEV && 'cache.maxAge and cache.maxEntries must be positive.');
  requireString(options.provider?.issuer, DEV && 'provider.issuer');
  const cache = new Map<string, { answer: Answer; until: number }>();
  const pending = new Map<string, Promise<Answer>>();

  async function ask(token: string): Promise<Answer> {
    const answer = await introspectToken({ ...options, token });
    return answer.active ? answer : undefined;
  }

  // The cache is keyed by the token's hash; the answer is kept only while valid.
  async function lookup(token: string): Promise<Answer> {
    if (!cacheOptions) return ask(token);
    const key = base64url(await digest('SHA-256', token));
    const hit = cache.get(key);
    if (hit && hit.until > now()) return hit.answer;
    if (hit) cache.delete(key);
    const answer = await ask(token);
    const exp = typeof answer?.exp === 'number' ? answer.exp : Number.POSITIVE_INFINITY;
    const until = Math.min(now() + maxAge, exp);
    if (until > now()) {
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
      cache.set(key, { answer, until });
    }
    return answer;
  }

  // Single flight: checks of one token that overlap share one lookup. Keyed (synchronously, so
  // callers arriving together always meet) by the token itself, held only while in flight.
  async function answerFor(token: string): Promise<Answer> {
    const inFlight = pending.get(token);
    if (inFlight) return inFlight;
    const request = lookup(token);
    pending.set(token, request);
    try {
      return await request;
    } finally {
      pending.delete(token);
    }
  }

  const verify = async (request: ResourceRequest): Promise<VerifiedAccessToken<C>> => {
    const { scheme, token } = readAccessToken(request);
    const answer = await answerFor(token);
    const claims = checkAnswer(answer, { issuer: options.provider.issuer, audience, now: now(), tolerance });
    const binding = checkDpopBinding(request, scheme, token, claims.cnf?.jkt, dpop, primitives);
    if (binding) await binding;
    return { claims: claims as C, scheme, scopes: claims.scope ? claims.scope.split(' ').filter(Boolean) : [] };
  };
  return withDpopSettings(verify, dpop);
}

// The checks of an answer, one line per rule; the answer may come from the cache, so time is checked here.
function checkAnswer(answer: Answer, expected: { issuer: string; audience: string | undefined; now: number; tolerance: number }): AccessTokenClaims {
  if (!answer) throw new AccessTokenError('access_token_invalid', 'invalid_token', DEV && notActive(expected.audience));
  const { exp, nbf, aud, iss, token_type } = answer;
  if (typeof exp !== 'number') throw new AccessTokenError('access_token_invalid', 'invalid_token', DEV && 'The introspection answer has no exp; the token is refused.');
  if (exp <= expected.now) throw new AccessTokenError('access_token_expired', 'invalid_token', DEV && 'The access token has expired; get a new one.');
  if (typeof nbf === 'number' && nbf > expected.now + expected.tolerance) {
    throw new AccessTokenError('access_token_invalid', 'invalid_token', DEV && 'The access token is not valid yet (nbf).');
  }
  if (iss !== undefined && iss !== expected.issuer) throw new AccessTokenError('access_token_invalid', 'invalid_token', DEV && 'The access token was issued by another issuer.');
  if (token_type !== undefined && !/^(bearer|dpop)$/i.test(token_type)) {
    throw new AccessTokenError('access_token_invalid', 'invalid_token', DEV && 'The token is not an access token.');
  }
  if (expected.audience !== undefined && !(Array.isArray(aud) ? aud.includes(expected.audience) : aud === expected.audience)) {
    throw new AccessTokenError('access_token_invalid', 'invalid_token', DEV && otherAudience(aud, expected.audience));
  }
  const sub = answer.sub ?? answer.client_id;
  // RFC 9068 §2.2: a token of the client itself (client credentials) has the client as subject.
  if (typeof sub !== 'string') throw new AccessTokenError('access_token_invalid', 'invalid_token', DEV && 'The introspection answer names neither sub nor client_id.');
  if (!isReadableConfirmation(answer.cnf)) {
    throw new AccessTokenError('access_token_invalid', 'invalid_token', DEV && "The introspection answer's cnf is not an object with a string jkt.");
  }
  const { active: _active, ...claims } = answer;
  return { ...claims, iss: iss ?? expected.issuer, sub, aud: aud ?? [], exp };
}

// A provider answers `active: false` also to a resource server that may not see the token (one
// issued for another API), so the usual cause in development is named with the fix.
function notActive(audience: string | undefined): string {
  return audience === undefined
    ? 'The access token is not active: unknown, expired or revoked.'
    : `The access token is not active for this API (${audience}): unknown, expired, revoked, or issued for another audience (ask for it with resource ${audience}).`;
}

function otherAudience(aud: unknown, audience: string): string {
  const named = (Array.isArray(aud) ? aud : [aud]).filter((a): a is string => typeof a === 'string').slice(0, 3).join(', ');
  return `The access token was issued for ${named || 'no audience'}, not this API (${audience}): ask for it with resource ${audience}.`;
}
