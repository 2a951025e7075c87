/**
 * The token endpoint client (RFC 6749 section 3.2): code exchange, refresh and client
 * credentials. Request building (endpoint per grant, client authentication, the service's
 * "secret XOR verifier" rule) is kept apart from response processing
 * ({@link processTokenResponse}), which turns any answer into a `TokenSet` or a typed error.
 */

import { DEV } from '../dev';
import { type Clock, systemClock } from '../clock';
import { assertSecureUrl, tokenEndpointFor } from '../provider/discovery';
import { OidcError, TokenEndpointError } from '../errors';
import { invalidOptions, requireString } from '../options';
import { setDefined } from '../http/search-params';
import { type JsonBody, formHeaders, isJsonObject, readJson, sendRequest } from '../http/transport';
import { validateIdToken } from './id-token';
import { readUnverifiedJwtExpiry } from '../jose/jwt';
import type { ClientConfig, GrantType, HttpOptions, ProviderMetadata, TokenSet } from '../types';
import { type ClientAuth, authenticate } from '../provider/client-auth';
import type { DpopHandle, DpopInternals } from './dpop-proof-maker';

/** What every call to the token endpoint needs. */
export interface TokenCallBase {
  provider: ProviderMetadata;
  client: ClientConfig;
  /** How the client authenticates: `none()` (public client), `clientSecretPost(secret)`, `clientSecretBasic(secret)`, `clientSecret(secret)`, `privateKeyJwt(key)`, `clientSecretJwt(secret)`. */
  clientAuth: ClientAuth;
  http?: HttpOptions;
  /** The clock `expiresAt` (and a returned ID token's times) are computed with. Default {@link systemClock}. */
  now?: Clock;
  /**
   * A DPoP handle (`await dpop()`): the request carries a proof, the provider's nonce is kept
   * and one `use_dpop_nonce` answer retried, and the token must come back as `DPoP`
   * (`dpop_token_type_mismatch` otherwise). Pass the same handle for every call of a session.
   */
  dpop?: DpopHandle;
}

/** Input of {@link exchangeCode}. */
export interface ExchangeCodeParams extends TokenCallBase {
  code: string;
  /** The redirect URI of the authorization request, exactly. */
  redirectUri: string;
  /** The PKCE verifier of the transaction, when the login used PKCE. */
  codeVerifier?: string;
  /** RFC 8707: the one resource (of those the login asked for) the access token is for. */
  resource?: string;
}

/** Input of {@link refreshTokens}. */
export interface RefreshTokensParams extends TokenCallBase {
  refreshToken: string;
  /** Narrower scope than the original grant, if wanted. */
  scope?: string;
  /** RFC 8707 §2.2: a token for this one resource of the grant, without a new login. */
  resource?: string;
  /** The `sub` of the current session: a refreshed ID token must name the same user. */
  expectedSubject?: string;
  /** Seconds of clock skew accepted when validating a refreshed ID token. Default 60. */
  clockTolerance?: number;
}

/** Input of {@link clientCredentials}. */
export interface ClientCredentialsParams extends TokenCallBase {
  scope?: string;
  /**
   * Additional body parameters (e.g. `audience`, `resource`); protocol parameters are refused.
   * An array value sends the parameter once per item (RFC 8707 allows several `resource`s).
   */
  extra?: Record<string, string | string[]>;
}

const PROTECTED_BODY = new Set([
  'grant_type',
  'client_id',
  'client_secret',
  'client_assertion',
  'client_assertion_type',
  'scope',
  'code',
  'code_verifier',
  'redirect_uri',
  'refresh_token',
]);

/**
 * Redeems an authorization code, authenticated by `clientAuth`. A confidential client always
 * authenticates (a stolen code plus an attacker's own PKCE challenge must not be enough). On a
 * provider whose profile says `pkce_replaces_client_secret` (the service: `client_secret` or
 * `code_verifier` in the body, never both), a PKCE code goes with `clientSecretBasic` beside the
 * verifier; with `clientSecretPost` it fails with `pkce_with_client_secret` before any request
 * (log in without PKCE instead). Other providers get both.
 * Does not validate the ID token: {@link completeAuthorization} does the whole callback.
 *
 * @example
 * ```ts
 * const tokens = await exchangeCode({
 *   provider: serviceProvider('http://127.0.0.1:4000/demo'),
 *   client: { clientId: 'web' },
 *   clientAuth: clientSecretBasic('web-secret-of-the-demo-Zq7Xk2Lm9Vb4'),
 *   code,
 *   redirectUri: 'http://127.0.0.1:3000/callback',
 * });
 * ```
 */
export async function exchangeCode(params: ExchangeCodeParams): Promise<TokenSet> {
  const { code, redirectUri, codeVerifier } = params;
  requireString(code, DEV && 'code');
  requireString(redirectUri, DEV && 'redirectUri');
  if (codeVerifier !== undefined) requireString(codeVerifier, DEV && 'codeVerifier');
  const body = setDefined({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: codeVerifier,
    resource: params.resource,
  });
  return postToTokenEndpoint(params, 'authorization_code', body);
}

/**
 * Uses a refresh token. When the response carries an ID token it is validated (no nonce)
 * and, with `expectedSubject`, must name the same user (`id_token_sub_mismatch`).
 * When the provider returns no new refresh token the result has none: the caller keeps
 * or drops the old one.
 *
 * @example
 * ```ts
 * const fresh = await refreshTokens({
 *   provider: serviceProvider('http://127.0.0.1:4000/demo'),
 *   client: { clientId: 'spa' },
 *   clientAuth: none(),
 *   refreshToken: tokens.refreshToken!,
 *   expectedSubject: tokens.claims?.sub,
 * });
 * ```
 */
export async function refreshTokens(params: RefreshTokensParams): Promise<TokenSet> {
  const { provider, client, refreshToken } = params;
  requireString(refreshToken, DEV && 'refreshToken');
  const body = setDefined({ grant_type: 'refresh_token', refresh_token: refreshToken, scope: params.scope, resource: params.resource });
  const tokens = await postToTokenEndpoint(params, 'refresh_token', body);
  if (tokens.idToken === undefined) return tokens;

  const claims = await validateIdToken(tokens.idToken, {
    provider,
    ...client, // clientId and the pinned signingAlgorithm
    accessToken: tokens.accessToken,
    clockTolerance: params.clockTolerance,
    http: params.http,
    now: params.now,
  });
  if (params.expectedSubject !== undefined && claims.sub !== params.expectedSubject) {
    throw new OidcError('id_token_sub_mismatch', DEV && 'The refreshed ID token names another user; log in again.');
  }
  return { ...tokens, claims };
}

/**
 * Client credentials grant (RFC 6749 4.4): a token for the client itself, which authenticates
 * (a confidential client's `clientAuth`).
 *
 * @example
 * ```ts
 * const { accessToken, expiresAt } = await clientCredentials({
 *   provider: serviceProvider('http://127.0.0.1:4000/demo'),
 *   client: { clientId: 'service' },
 *   clientAuth: clientSecret(process.env.CLIENT_SECRET!),
 *   scope: 'api.read',
 * });
 * ```
 */
export async function clientCredentials(params: ClientCredentialsParams): Promise<TokenSet> {
  const body = setDefined({ grant_type: 'client_credentials', scope: params.scope });
  for (const [name, value] of Object.entries(params.extra ?? {})) {
    if (PROTECTED_BODY.has(name)) {
      throw invalidOptions(DEV && `extra may not set "${name}": use the matching option.`);
    }
    const values = Array.isArray(value) ? value : [value];
    if (values.length === 0 || values.some((v) => typeof v !== 'string')) {
      throw invalidOptions(DEV && `extra.${name} must be a string or a non-empty array of strings.`);
    }
    body.delete(name);
    for (const v of values) body.append(name, v);
  }
  return postToTokenEndpoint(params, 'client_credentials', body);
}

/**
 * Turns a token endpoint response into a `TokenSet`. Exported for custom grants.
 * Non-2xx → {@link TokenEndpointError} (`error`/`error_description` from an RFC 6749
 * error body; otherwise `server_error` for 5xx and `invalid_response` for the rest, the
 * body never echoed). 2xx with an unusable body → `token_response_invalid`.
 *
 * @example
 * ```ts
 * const response = await fetch(tokenEndpoint, { method: 'POST', body: customGrantBody });
 * const tokens = await processTokenResponse(response);
 * ```
 */
export async function processTokenResponse(response: Response, now: Clock = systemClock, dpop?: DpopHandle): Promise<TokenSet> {
  const body = await readJson(response);
  if (!response.ok) throw tokenEndpointError(response.status, body);
  if (!body.ok) throw invalidResponse(body.problem_);
  const value = body.value;
  if (!isJsonObject(value)) throw invalidResponse(DEV && 'not a JSON object');

  const accessToken = value.access_token;
  if (typeof accessToken !== 'string' || accessToken === '') throw invalidResponse(DEV && 'no "access_token"');
  if (typeof value.token_type !== 'string' || value.token_type.toLowerCase() !== (dpop ? 'dpop' : 'bearer')) {
    // RFC 9449 5: a Bearer token answered to a DPoP request is not bound to the key (a downgrade).
    throw dpop ? (dpop as DpopInternals).downgrade_() : invalidResponse(DEV && '"token_type" is not Bearer');
  }
  const tokens: TokenSet = { accessToken, tokenType: dpop ? 'DPoP' : 'Bearer' };
  for (const [field, key] of [
    ['refresh_token', 'refreshToken'],
    ['id_token', 'idToken'],
    ['scope', 'scope'],
  ] as const) {
    const item = value[field];
    if (item === undefined || item === null) continue;
    if (typeof item !== 'string') throw invalidResponse(DEV && `"${field}" is not a string`);
    if (item !== '') tokens[key] = item;
  }
  const expiresAt = expiryOf(value.expires_in, accessToken, now);
  if (expiresAt !== undefined) tokens.expiresAt = expiresAt;
  return tokens;
}

/**
 * The error for a non-2xx answer of the token or revocation endpoint: the RFC 6749 5.2 body's
 * `error` and `error_description` when there is one; else `server_error` (5xx) or
 * `invalid_response`, never echoing the body.
 */
export function tokenEndpointError(status: number, body: JsonBody): TokenEndpointError {
  const value = body.ok && isJsonObject(body.value) ? body.value : undefined;
  if (value && typeof value.error === 'string' && value.error !== '') {
    return new TokenEndpointError({
      status,
      error: value.error,
      error_description: typeof value.error_description === 'string' ? value.error_description : undefined,
    });
  }
  return new TokenEndpointError({ status, error: status >= 500 ? 'server_error' : 'invalid_response' });
}

/** `expires_in` seconds from now; else the `exp` of a JWT access token; else unknown. */
export function expiryOf(expiresIn: unknown, accessToken: string, now: Clock = systemClock): number | undefined {
  if (Number.isFinite(expiresIn) && (expiresIn as number) >= 0) {
    return now() + Math.floor(expiresIn as number);
  }
  return readUnverifiedJwtExpiry(accessToken);
}

async function postToTokenEndpoint(
  { provider, client, clientAuth, http, now, dpop }: TokenCallBase,
  grant: GrantType,
  body: URLSearchParams,
): Promise<TokenSet> {
  // Client first: a caller mistake there is reported before the endpoint's.
  const headers = formHeaders();
  await authenticate(clientAuth, { clientId: client?.clientId, provider, body, headers });
  const url = tokenEndpointFor(provider, grant);
  if (typeof url !== 'string') throw invalidOptions(DEV && 'The provider has no token_endpoint.');
  assertSecureUrl(url, DEV && `The token endpoint for ${grant}`);
  return (dpop ? (dpop as DpopInternals).sender_() : sendRequest)(
    url,
    { method: 'POST', headers, body, redirect: 'manual' },
    http,
    DEV && 'The token endpoint',
    (response) => processTokenResponse(response, now, dpop),
  );
}

function invalidResponse(what?: string): OidcError {
  return new OidcError('token_response_invalid', DEV && `Bad token response (${what}); check the token endpoint URL.`);
}
