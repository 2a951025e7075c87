/**
 * The answer a protected resource gives when a request's access token is refused: the status
 * and the RFC 6750 §3 / RFC 9449 §7.1 `WWW-Authenticate` challenge of an {@link AccessTokenError},
 * as plain data, so that any HTTP layer (Web `Response`, Express, Fastify) writes it the same way.
 */

import type { AccessTokenChallenge, AccessTokenError, AccessTokenVerifierDpop } from './access-token-error';

/** What the challenge says besides the error: the resource's settings and the refused request's scheme. */
export interface AccessTokenChallengeOptions {
  /** The scheme the request used (`Authorization: DPoP …` or `Bearer …`), `undefined` when it sent none. */
  requestScheme?: 'Bearer' | 'DPoP' | undefined;
  /** The verifier's DPoP settings (`verifier.dpop`); absent: the resource takes Bearer tokens only. */
  dpop?: AccessTokenVerifierDpop | undefined;
  /** `realm` of the challenge. */
  realm?: string | undefined;
  /** The scopes the resource requires: the challenge's `scope` on `insufficient_scope` (RFC 6750 §3). */
  scope?: readonly string[] | undefined;
  /** The URL of the RFC 9728 protected resource metadata: `resource_metadata` of every challenge. */
  resourceMetadata?: string | undefined;
}

/** A refusal as plain data: write `status`, `headers` and `body` (JSON) as they are. */
export interface AccessTokenRefusal {
  status: 400 | 401 | 403;
  headers: Record<string, string>;
  /** `error` and `error_description`; empty when the request carried no token (RFC 6750 §3.1). */
  body: { error?: AccessTokenChallenge; error_description?: string };
}

const STATUS: Record<AccessTokenChallenge, 400 | 401 | 403> = {
  invalid_request: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  use_dpop_nonce: 401,
  invalid_dpop_proof: 401,
};

const MAX_DESCRIPTION = 200;

/**
 * The status, headers and body of a refused request: 400 `invalid_request`, 401 `invalid_token`,
 * `invalid_dpop_proof` or `use_dpop_nonce` (with `DPoP-Nonce`), 403 `insufficient_scope` (with
 * the required `scope`). The challenge uses the `DPoP` scheme when the request did or the
 * verifier requires it (with `algs`), `Bearer` otherwise, and names the other accepted scheme
 * after it. A request without any token gets a challenge without `error` (RFC 6750 §3.1).
 * Always `Cache-Control: no-store`. `error_description` is the error's message, which never
 * holds a token, reduced to the characters a quoted header value allows.
 *
 * @example
 * ```ts
 * const { status, headers, body } = accessTokenChallenge(error, { requestScheme: 'Bearer', scope: ['orders.read'] });
 * return Response.json(body, { status, headers });
 * ```
 */
export function accessTokenChallenge(error: AccessTokenError, options: AccessTokenChallengeOptions = {}): AccessTokenRefusal {
  const { dpop, requestScheme } = options;
  const noToken = error.code === 'access_token_missing';
  const description = quotable(error.message).slice(0, MAX_DESCRIPTION);
  const fields: [string, string][] = [];
  if (options.realm !== undefined) fields.push(['realm', options.realm]);
  if (!noToken) fields.push(['error', error.challenge], ['error_description', description]);
  if (error.challenge === 'insufficient_scope' && options.scope?.length) fields.push(['scope', options.scope.join(' ')]);
  if (options.resourceMetadata !== undefined) fields.push(['resource_metadata', options.resourceMetadata]);

  const dpopFirst = requestScheme === 'DPoP' || dpop?.required === true || error.challenge === 'use_dpop_nonce' || error.challenge === 'invalid_dpop_proof';
  const algs: [string, string][] = dpop ? [['algs', dpop.algorithms.join(' ')]] : [];
  const bare: [string, string][] = fields.filter(([name]) => name === 'realm' || name === 'resource_metadata');
  const challenges = dpopFirst
    ? [challenge('DPoP', [...fields, ...algs]), ...(dpop?.required ? [] : [challenge('Bearer', bare)])]
    : [challenge('Bearer', fields), ...(dpop ? [challenge('DPoP', [...bare, ...algs])] : [])];

  const headers: Record<string, string> = {
    'WWW-Authenticate': challenges.join(', '),
    'Cache-Control': 'no-store',
    'Content-Type': 'application/json',
  };
  if (error.dpopNonce !== undefined) headers['DPoP-Nonce'] = error.dpopNonce;
  return {
    status: noToken ? 401 : STATUS[error.challenge],
    headers,
    body: noToken ? {} : { error: error.challenge, error_description: description },
  };
}

function challenge(scheme: 'Bearer' | 'DPoP', fields: readonly [string, string][]): string {
  return fields.length ? `${scheme} ${fields.map(([name, value]) => `${name}="${quotable(value)}"`).join(', ')}` : scheme;
}

// RFC 6750 §3: printable ASCII without `"` and `\`. The SDK's messages need no quotes; any
// other text keeps its quotes readable as `'` (and `\` as `/`).
function quotable(value: string): string {
  return value.replace(/"/g, "'").replace(/\\/g, '/').replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?');
}
