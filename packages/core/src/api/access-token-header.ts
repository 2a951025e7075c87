/**
 * The access token of a request to a protected resource: `Authorization: Bearer <token>`
 * (RFC 6750 section 2.1) or `Authorization: DPoP <token>` (RFC 9449 section 7.1), read with its
 * length bounded before anything else looks at it. Shared by every access-token verifier.
 */

import { DEV } from '../dev';
import { AccessTokenError, type ResourceRequest } from './access-token-error';

/** The scheme and token of a request's `Authorization` header. */
export interface PresentedAccessToken {
  scheme: 'Bearer' | 'DPoP';
  token: string;
}

/** Default bound of an access token's length, in characters (a JWT with many claims stays far below). */
export const DEFAULT_MAX_TOKEN_LENGTH = 8192;

// RFC 7235 section 2.1: a scheme, then one token (the whole rest). The token's alphabet is left
// to the verifier (a JWT's is stricter than token68), so the hot path scans the token once.
const SCHEME = /^([A-Za-z][\w!#$%&'*+.^`|~-]*) +/;
// What SCHEME matches in "Bearer <token>", without running it (never mutated).
const BEARER_MATCH: readonly string[] = ['Bearer ', 'Bearer'];

/**
 * Reads the access token a request carries. Throws {@link AccessTokenError}:
 * `access_token_missing` (no `Authorization`, or another scheme such as Basic: RFC 6750 section
 * 3.1 answers that without an error code), `authorization_header_invalid` with `invalid_request`
 * (not one scheme and one token, e.g. two schemes), `access_token_malformed` with `invalid_token`
 * (longer than `maxLength`, checked before any parsing).
 *
 * @example
 * ```ts
 * const { scheme, token } = readAccessToken({ method: 'GET', url, authorization: 'Bearer abc', dpop: null });
 * ```
 */
export function readAccessToken(request: ResourceRequest, maxLength = DEFAULT_MAX_TOKEN_LENGTH): PresentedAccessToken {
  const header = request.authorization;
  // Trimmed once: what is left is both the emptiness check's subject and what is read below.
  const value = header === null || header === undefined ? '' : header.trim();
  if (value === '') {
    throw new AccessTokenError('access_token_missing', 'invalid_token', DEV && 'The request has no access token: send it in the Authorization header as Bearer <token> (or DPoP <token>).');
  }
  // Bounded before the regular expression or anything else reads it.
  if (typeof header !== 'string' || header.length > maxLength + 16) {
    throw new AccessTokenError('access_token_malformed', 'invalid_token', DEV && `The Authorization header is over ${maxLength} characters: no access token is that long.`);
  }
  // The common case without the regular expression: "Bearer " exactly.
  const match = value.startsWith('Bearer ') ? BEARER_MATCH : SCHEME.exec(value);
  const scheme = match === BEARER_MATCH ? 'bearer' : match?.[1]?.toLowerCase();
  const token = match ? value.slice((match[0] as string).length).trimStart() : '';
  if (!match || (scheme !== 'bearer' && scheme !== 'dpop') || token === '' || token.includes(' ') || token.includes(',') || token.includes('\t')) {
    // A known scheme with something other than one token after it is a malformed request.
    if (/^(bearer|dpop)(\s|$)/i.test(value) || value.includes(',')) {
      throw new AccessTokenError(
        'authorization_header_invalid',
        'invalid_request',
        DEV && 'The Authorization header must be one scheme and one token (Bearer <token> or DPoP <token>), nothing more.',
      );
    }
    throw new AccessTokenError('access_token_missing', 'invalid_token', DEV && 'The Authorization header uses a scheme this API does not take: send Bearer <token> (or DPoP <token>).');
  }
  return { scheme: scheme === 'dpop' ? 'DPoP' : 'Bearer', token };
}
