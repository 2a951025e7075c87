/**
 * Reading compact JWTs (RFC 7519) WITHOUT verifying them. Internal: nothing decoded here
 * may be trusted. The ID-token validator reads the header to pick a key and the payload's
 * shape to reject malformed tokens early, then takes its claims from the verified bytes;
 * the token client reads an access token's `exp` only to schedule a refresh.
 */

import { fromBase64url, fromUtf8 } from '../http/encoding';
import { isJsonObject } from '../http/transport';

/** A compact JWS split in three and its header and payload parsed, signature unchecked. */
export interface UnverifiedJwt {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

// Three segments of unpadded base64url. The signature may be empty (`alg: none`), so that the
// validator, not the parser, is the one that refuses unsigned tokens, with its own error.
export const COMPACT_JWS = /^[\w-]*\.[\w-]*\.[\w-]*$/;

/**
 * Splits a compact JWS and parses its header and payload as JSON objects.
 * Returns undefined when the token is not three base64url segments of JSON objects.
 * The result is NOT verified: use it to choose a key, never as claims.
 */
export function decodeUnverifiedJwt(token: string): UnverifiedJwt | undefined {
  if (!COMPACT_JWS.test(token)) return undefined;
  const [header, payload] = token.split('.', 2).map(decodeJsonSegment);
  return header && payload ? { header, payload } : undefined;
}

/**
 * The numeric `exp` of a JWT, read without verification: only fit for scheduling (when to
 * refresh an access token), never for trusting it. Undefined for opaque tokens.
 */
export function readUnverifiedJwtExpiry(token: string): number | undefined {
  const exp = decodeUnverifiedJwt(token)?.payload.exp;
  return typeof exp === 'number' && Number.isFinite(exp) ? exp : undefined;
}

// A JSON object, or undefined for a length no base64 string can have, invalid UTF-8, invalid JSON or a non-object.
export function decodeJsonSegment(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(fromUtf8(fromBase64url(segment)));
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
