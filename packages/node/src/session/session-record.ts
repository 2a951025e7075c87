/**
 * What a session holds, and the public view of it. The record is what gets sealed (into the
 * cookie or the store); {@link Session} is what application code sees: no refresh token, so
 * the app cannot spend it behind the session layer's back (rotation would then revoke it).
 */

import { createState } from '@oidc-rp/core';
import type { IdTokenClaims, TokenSet } from '@oidc-rp/core';

/** The sealed content of a session. Internal. */
export interface SessionRecord {
  id: string;
  csrf: string;
  claims: IdTokenClaims;
  idToken?: string;
  accessToken: string;
  accessTokenExpiresAt?: number;
  refreshToken?: string;
  scope?: string;
  /** Epoch seconds: the login. */
  createdAt: number;
  /** Epoch seconds: the session ends then, however active. */
  absoluteExpiresAt: number;
  /** Refreshes so far (absent: none): a copy with a lower one is stale (`refresh.ts`). */
  generation?: number;
  /**
   * RFC 8707: an access token per API (resource URI) of the client's `resources`, obtained with
   * the refresh token and `resource` (`getAccessToken(request, { resource })`). Absent: none yet.
   */
  resourceTokens?: Record<string, ResourceToken>;
}

/** An access token for one API, as the session keeps it. Internal. */
export interface ResourceToken {
  accessToken: string;
  /** Epoch seconds: the provider's `expires_in`, or the `unknownAccessTokenLifetime` option. */
  expiresAt: number;
}

/**
 * A signed-in user's session as application code sees it. `Claims` types your custom claims.
 *
 * @example
 * ```ts
 * const { session } = await auth.getSession(request);
 * if (session) console.log(session.user.email, new Date(session.expiresAt * 1000));
 * ```
 */
export interface Session<Claims extends object = Record<string, unknown>> {
  /** Random id of this session (the store key when a store is used; for logs and revocation). */
  id: string;
  /** The validated ID token claims, without the protocol-only ones (nonce, at_hash, c_hash). */
  user: IdTokenClaims & Claims;
  /** The raw ID token, e.g. for an `id_token_hint`. */
  idToken?: string;
  /** The access token, refreshed by `getSession` when it had expired. */
  accessToken: string;
  /** `DPoP` when the client has a DPoP key (the token is bound to it: call APIs with `auth.protectedResourceRequest`), else `Bearer`. */
  tokenType: 'Bearer' | 'DPoP';
  /** Epoch seconds: the provider's `expires_in`, or the `unknownAccessTokenLifetime` option when it did not say. */
  accessTokenExpiresAt?: number;
  /** Whether the session holds a refresh token (ask for `offline_access` to get one). */
  canRefresh: boolean;
  scope?: string;
  /** Epoch seconds: the login. */
  createdAt: number;
  /** Epoch seconds: the session ends then unless used again (rolling), and never after `absoluteExpiresAt`. */
  expiresAt: number;
  absoluteExpiresAt: number;
  /** Send it back with the logout POST (form field `csrf_token` or header `x-csrf-token`). */
  csrfToken: string;
}

// Checked once at login; kept out of the session (they would only fill the cookie).
const PROTOCOL_CLAIMS = ['nonce', 'at_hash', 'c_hash'];

export function recordFromTokens(
  tokens: TokenSet & { claims: IdTokenClaims },
  now: number,
  absoluteDuration: number,
  unknownLifetime: number,
): SessionRecord {
  return {
    id: createState(), // 256 random bits, base64url
    csrf: createState(),
    claims: withoutProtocolClaims(tokens.claims),
    ...(tokens.idToken !== undefined ? { idToken: tokens.idToken } : {}),
    accessToken: tokens.accessToken,
    accessTokenExpiresAt: tokens.expiresAt ?? now + unknownLifetime,
    ...(tokens.refreshToken !== undefined ? { refreshToken: tokens.refreshToken } : {}),
    ...(tokens.scope !== undefined ? { scope: tokens.scope } : {}),
    createdAt: now,
    absoluteExpiresAt: now + absoluteDuration,
  };
}

/** The record after a refresh: new access token, rotated refresh token, newer ID token and claims when given. */
export function refreshedRecord(record: SessionRecord, tokens: TokenSet, now: number, unknownLifetime: number): SessionRecord {
  const next: SessionRecord = {
    ...record,
    accessToken: tokens.accessToken,
    accessTokenExpiresAt: tokens.expiresAt ?? now + unknownLifetime,
    refreshToken: tokens.refreshToken ?? record.refreshToken,
  };
  if (tokens.idToken !== undefined) next.idToken = tokens.idToken;
  if (tokens.claims !== undefined) next.claims = withoutProtocolClaims(tokens.claims);
  if (tokens.scope !== undefined) next.scope = tokens.scope;
  if (next.refreshToken === undefined) delete next.refreshToken;
  return next;
}

/**
 * The record after a refresh for one API (RFC 8707 §2.2): its token kept beside the others, the
 * rotated refresh token in place of the spent one; the session's own access token unchanged.
 */
export function withResourceToken(record: SessionRecord, resource: string, tokens: TokenSet, now: number, unknownLifetime: number): SessionRecord {
  return {
    ...record,
    refreshToken: tokens.refreshToken ?? record.refreshToken,
    resourceTokens: { ...record.resourceTokens, [resource]: { accessToken: tokens.accessToken, expiresAt: tokens.expiresAt ?? now + unknownLifetime } },
  };
}

/** The record's token for `resource`, when it is one and stays valid for `minValidity` seconds (a tampered store could hold anything). */
export function resourceTokenOf(record: SessionRecord, resource: string, minValidity: number, now: number): ResourceToken | undefined {
  const token = Object.hasOwn(record.resourceTokens ?? {}, resource) ? record.resourceTokens?.[resource] : undefined;
  return typeof token?.accessToken === 'string' && typeof token.expiresAt === 'number' && now < token.expiresAt - minValidity ? token : undefined;
}

export function publicSession<Claims extends object>(record: SessionRecord, expiresAt: number, tokenType: 'Bearer' | 'DPoP' = 'Bearer'): Session<Claims> {
  return {
    id: record.id,
    user: record.claims as IdTokenClaims & Claims,
    ...(record.idToken !== undefined ? { idToken: record.idToken } : {}),
    accessToken: record.accessToken,
    tokenType,
    ...(record.accessTokenExpiresAt !== undefined ? { accessTokenExpiresAt: record.accessTokenExpiresAt } : {}),
    canRefresh: record.refreshToken !== undefined,
    ...(record.scope !== undefined ? { scope: record.scope } : {}),
    createdAt: record.createdAt,
    expiresAt,
    absoluteExpiresAt: record.absoluteExpiresAt,
    csrfToken: record.csrf,
  };
}

/** Whether a sealed payload's content is a session record (a tampered-with store could hold anything). */
export function isSessionRecord(value: unknown): value is SessionRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r.id === 'string' &&
    typeof r.csrf === 'string' &&
    typeof r.accessToken === 'string' &&
    typeof r.createdAt === 'number' &&
    typeof r.absoluteExpiresAt === 'number' &&
    typeof r.claims === 'object' &&
    r.claims !== null &&
    typeof (r.claims as Record<string, unknown>).sub === 'string'
  );
}

/**
 * The record as sealed: without `claims` when they are exactly the raw ID token's payload
 * (less the protocol claims), which is kept anyway for `id_token_hint` at logout. The claims
 * would otherwise travel twice, once as JSON and once base64url-encoded inside the token.
 * Both were validated at login and the seal protects them since: decoding is enough on read.
 */
export function toSealed(record: SessionRecord): Record<string, unknown> {
  if (record.idToken === undefined) return { ...record };
  const fromToken = claimsOf(record.idToken);
  if (fromToken === undefined || JSON.stringify(fromToken) !== JSON.stringify(record.claims)) return { ...record };
  const { claims: _derived, ...rest } = record;
  return rest;
}

/** A sealed record as `toSealed` wrote it (or an older one with both): `claims` restored from the ID token. */
export function fromSealed(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || 'claims' in value) return value;
  const idToken = (value as { idToken?: unknown }).idToken;
  const claims = typeof idToken === 'string' ? claimsOf(idToken) : undefined;
  return claims ? { ...value, claims } : value;
}

/** The payload of a compact JWS as claims (less the protocol ones), or undefined for anything else (e.g. an encrypted ID token). */
function claimsOf(idToken: string): IdTokenClaims | undefined {
  const payload = idToken.split('.')[1];
  if (payload === undefined || idToken.split('.').length !== 3) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return typeof claims === 'object' && claims !== null && !Array.isArray(claims) ? withoutProtocolClaims(claims as IdTokenClaims) : undefined;
  } catch {
    return undefined;
  }
}

function withoutProtocolClaims(claims: IdTokenClaims): IdTokenClaims {
  const copy: Record<string, unknown> = { ...claims };
  for (const name of PROTOCOL_CLAIMS) delete copy[name];
  return copy as IdTokenClaims;
}
