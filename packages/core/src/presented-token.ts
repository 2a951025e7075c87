/**
 * Reads the access token a request presents (RFC 6750 §2.1 `Bearer`, RFC 9449 §7.1 `DPoP`): the
 * first step of every verifier, with the same refusals everywhere.
 */

import { AccessTokenError } from './access-token-error';
import { DEV } from './dev';
import type { ResourceRequest } from './access-token-error';

/** Longest access token accepted (characters); longer is refused before any work. */
export const MAX_ACCESS_TOKEN_LENGTH = 8192;

/** The token of a request and the scheme it came with. */
export interface PresentedToken {
  scheme: 'Bearer' | 'DPoP';
  token: string;
}

// RFC 6750 §2.1 b64token; the scheme name is case-insensitive.
const AUTHORIZATION = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The token in `Authorization`, or an {@link AccessTokenError}: `access_token_missing` without the
 * header, `access_token_invalid` for another scheme, a malformed value or one over
 * {@link MAX_ACCESS_TOKEN_LENGTH}.
 *
 * @example
 * ```ts
 * const { scheme, token } = presentedToken({ method: 'GET', url, authorization: 'Bearer abc', dpop: null });
 * ```
 */
export function presentedToken(request: Pick<ResourceRequest, 'authorization'>): PresentedToken {
  const header = request.authorization;
  if (header === null || header === '') {
    throw new AccessTokenError('access_token_missing', 'invalid_token', DEV && 'An access token is required: send Authorization: Bearer <token>.');
  }
  if (header.length > MAX_ACCESS_TOKEN_LENGTH + 16) {
    throw new AccessTokenError('access_token_invalid', 'invalid_token', DEV && `The access token is longer than ${MAX_ACCESS_TOKEN_LENGTH} characters.`);
  }
  const match = AUTHORIZATION.exec(header);
  if (!match?.[1] || !match[2]) {
    throw new AccessTokenError('access_token_invalid', 'invalid_request', DEV && 'The Authorization header must be "Bearer <token>" or "DPoP <token>".');
  }
  return { scheme: match[1].toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', token: match[2] };
}
