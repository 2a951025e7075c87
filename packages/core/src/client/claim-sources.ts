/**
 * Aggregated and distributed claims (OIDC Core 5.6.2): userinfo (or an ID token) may name
 * claims held by other sources in `_claim_names` / `_claim_sources`: a signed JWT carried
 * inline (aggregated) or an endpoint to fetch one from, with its own access token
 * (distributed). No claim is used unless its JWT verifies with the keys of a claims provider
 * the client trusts: the provider itself, or one configured in `claimsProviders`. Endpoints
 * are called only over https (http on loopback) on a trusted provider's origin, so a userinfo
 * answer cannot aim the client's requests (and the source's token) anywhere else.
 */

import { DEV } from '../dev';
import { OidcError, type OidcErrorCode } from '../errors';
import { discardBody, isJsonObject, readBoundedBody, sendRequest } from '../http/transport';
import { findJwksKey, selectVerificationKey, ASYMMETRIC_ALGORITHMS } from '../jose/jwks';
import { verifyCompactJws } from '../jose/jws';
import { decodeUnverifiedJwt } from '../jose/jwt';
import { invalidOptions } from '../options';
import { isSecure, tryParseUrl } from '../provider/discovery';
import type { HttpOptions, ProviderMetadata } from '../types';

/** A claims provider besides the OpenID provider: its issuer (the `iss` of its JWTs) and its keys. */
export interface ClaimsProvider {
  issuer: string;
  jwksUri: string;
}

/** Options of {@link resolveClaimSources}. */
export interface ResolveClaimSourcesOptions {
  /** The OpenID provider: a trusted claims provider (its issuer, origin and `jwks_uri`). */
  provider: ProviderMetadata;
  /** Other claims providers to trust; their endpoints may be called and their JWTs are verified with their keys. Default none. */
  claimsProviders?: readonly ClaimsProvider[] | undefined;
  /** Fetch, timeout and signal of each request (JWKS and distributed endpoints). */
  http?: HttpOptions | undefined;
}

/** A claim that was named but not used, and why. */
export interface UnresolvedClaim {
  /** The claim's name. */
  claim: string;
  /** The name of its source in `_claim_sources`. */
  source: string;
  /** Why: `claims_source_invalid`, `_insecure`, `_not_trusted`, `_error`, `_unsigned` or `claims_signature_invalid`. */
  error: OidcError;
}

/** What `resolveClaimSources` resolves. */
export interface ResolvedClaims {
  /** The claims with each verified source's claims added, without `_claim_names` and `_claim_sources`. */
  claims: Record<string, unknown>;
  /** The named claims that were not added. */
  unresolved: UnresolvedClaim[];
}

/** At most this many sources are looked at: one answer cannot make the client send many requests. */
const MAX_SOURCES = 8;
/** Largest distributed-claims answer read. */
const MAX_CLAIMS_BYTES = 64 * 1024;
/** Claims a source may never set: they say whose claims these are. */
const RESERVED = new Set(['sub', 'iss', 'aud', '_claim_names', '_claim_sources']);

/**
 * Resolves the aggregated and distributed claims of `claims` (a userinfo answer or ID token
 * claims): verifies each aggregated JWT, fetches each distributed one (with its
 * `access_token`) from an allowed endpoint and verifies it, and adds the claims `_claim_names`
 * maps to that source. A source that cannot be used leaves its claims out and is listed in
 * `unresolved` with a typed error; the other claims are returned as they came.
 *
 * @example
 * ```ts
 * import { resolveClaimSources } from '@oidc-rp/core';
 *
 * const { claims, unresolved } = await resolveClaimSources(userinfo, { provider });
 * console.log(claims.credit_score, unresolved.map((u) => u.error.code));
 * ```
 */
export async function resolveClaimSources(claims: Record<string, unknown>, options: ResolveClaimSourcesOptions): Promise<ResolvedClaims> {
  const trusted = trustedProviders(options);
  const { _claim_names: names, _claim_sources: sources, ...rest } = claims;
  const out: Record<string, unknown> = rest;
  const unresolved: UnresolvedClaim[] = [];
  if (names === undefined && sources === undefined) return { claims: out, unresolved };

  // Claim names per source, in the order `_claim_names` lists them.
  const bySource = new Map<string, string[]>();
  for (const [claim, source] of Object.entries(isJsonObject(names) ? names : {})) {
    if (typeof source !== 'string' || RESERVED.has(claim)) continue;
    bySource.set(source, [...(bySource.get(source) ?? []), claim]);
  }
  let looked = 0;
  for (const [source, claimNames] of bySource) {
    const description = isJsonObject(sources) ? sources[source] : undefined;
    try {
      if (++looked > MAX_SOURCES) refuse('claims_source_invalid', DEV && `more than ${MAX_SOURCES} claim sources`);
      const verified = await sourceClaims(description, trusted, options.http);
      for (const claim of claimNames) {
        if (verified[claim] !== undefined) out[claim] = verified[claim];
        else unresolved.push({ claim, source, error: new OidcError('claims_source_invalid', DEV && message(`source "${source}" does not assert it`)) });
      }
    } catch (error) {
      const reported = error instanceof OidcError ? error : new OidcError('claims_source_error', DEV && message(`source "${source}" failed`), { cause: error });
      for (const claim of claimNames) unresolved.push({ claim, source, error: reported });
    }
  }
  return { claims: out, unresolved };
}

interface Trusted {
  issuer: string;
  origin: string | undefined;
  jwksUri: string | undefined;
}

function trustedProviders({ provider, claimsProviders = [] }: ResolveClaimSourcesOptions): Trusted[] {
  if (!Array.isArray(claimsProviders)) throw invalidOptions(DEV && 'claimsProviders must be a list of { issuer, jwksUri }.');
  const own = { issuer: provider.issuer, jwksUri: typeof provider.jwks_uri === 'string' ? provider.jwks_uri : undefined };
  return [own, ...claimsProviders].map(({ issuer, jwksUri }) => {
    const issuerUrl = typeof issuer === 'string' ? tryParseUrl(issuer) : undefined;
    if (!issuerUrl || (jwksUri !== undefined && !tryParseUrl(jwksUri))) {
      throw invalidOptions(DEV && 'Each claims provider needs an absolute issuer URL and jwksUri.');
    }
    return { issuer, origin: isSecure(issuerUrl) ? issuerUrl.origin : undefined, jwksUri };
  });
}

/** The verified claims of one source: its inline JWT, or the one its endpoint answers. */
async function sourceClaims(description: unknown, trusted: Trusted[], http: HttpOptions | undefined): Promise<Record<string, unknown>> {
  if (!isJsonObject(description)) refuse('claims_source_invalid', DEV && 'a named source is missing from _claim_sources');
  if (typeof description.JWT === 'string') return verifyClaimsJwt(description.JWT, trusted, undefined, http);
  if (typeof description.endpoint !== 'string') refuse('claims_source_invalid', DEV && 'a source has neither "JWT" nor "endpoint"');
  const endpoint = tryParseUrl(description.endpoint);
  if (!endpoint || !isSecure(endpoint)) refuse('claims_source_insecure', DEV && 'a claims endpoint is not https (http only on loopback); it was not called');
  const provider = trusted.find((t) => t.origin === endpoint.origin);
  if (!provider) refuse('claims_source_not_trusted', DEV && 'a claims endpoint is on an origin of no trusted claims provider; it was not called');
  const token = description.access_token;
  const headers = new Headers({ Accept: 'application/jwt' });
  if (typeof token === 'string' && token) headers.set('Authorization', `Bearer ${token}`);
  const jwt = await sendRequest(endpoint.href, { method: 'GET', headers }, http, DEV && 'The claims endpoint', readJwt);
  return verifyClaimsJwt(jwt, trusted, provider, http);
}

async function readJwt(response: Response): Promise<string> {
  if (!response.ok) {
    await discardBody(response);
    refuse('claims_source_error', DEV && `the claims endpoint answered HTTP ${response.status}`);
  }
  const body = await readBoundedBody(response, MAX_CLAIMS_BYTES);
  const text = body && new TextDecoder().decode(body).trim();
  if (!text) refuse('claims_source_error', DEV && `the claims endpoint answered no JWT (or over ${MAX_CLAIMS_BYTES} bytes)`);
  return text;
}

/**
 * The claims of a source's JWT once its signature verifies with the keys of the trusted
 * provider its `iss` names (or, without `iss`, of the provider whose endpoint answered).
 */
async function verifyClaimsJwt(jwt: string, trusted: Trusted[], answeredBy: Trusted | undefined, http: HttpOptions | undefined): Promise<Record<string, unknown>> {
  const token = decodeUnverifiedJwt(jwt);
  if (!token) refuse('claims_source_invalid', DEV && 'a claim source is not a JWS of three base64url JSON parts');
  const { alg, kid } = token.header;
  if (typeof alg !== 'string' || !ASYMMETRIC_ALGORITHMS.includes(alg)) refuse('claims_source_unsigned', DEV && 'a claim source JWT is unsigned or HMAC-signed, so it cannot be verified');
  if (kid !== undefined && typeof kid !== 'string') refuse('claims_source_invalid', DEV && 'a claim source JWT has a "kid" that is not a string');
  const iss = token.payload.iss;
  const signer = iss === undefined ? answeredBy : trusted.find((t) => t.issuer === iss);
  if (!signer?.jwksUri) refuse('claims_source_not_trusted', DEV && 'a claim source JWT is signed by no trusted claims provider');
  const key = await findJwksKey(signer.jwksUri, (keys) => selectVerificationKey(keys, alg, kid), { http, refetchCooldown_: 30 });
  const valid = key !== undefined && (await verifyCompactJws(jwt, key, alg).catch(() => false));
  if (!valid) refuse('claims_signature_invalid', DEV && 'a claim source JWT does not verify with its provider\'s keys');
  return token.payload;
}

function message(problem: string): string {
  return `Claim not used: ${problem}; the other claims are unaffected.`;
}

function refuse(code: OidcErrorCode, problem: string | false): never {
  throw new OidcError(code, DEV && message(problem as string));
}
