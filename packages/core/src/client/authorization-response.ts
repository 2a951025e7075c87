/**
 * Parsing the authorization response (the provider's redirect back, or its form_post) and
 * checking it against the transaction: duplicates, `state`, RFC 9207 `iss`, `error`, then
 * the parameters the response type must carry. Nothing here touches the network.
 */

import { DEV } from '../dev';
import { invalidOptions } from '../options';
import { tryParseUrl } from '../provider/discovery';
import { AuthorizationResponseError, OidcError } from '../errors';
import type { AuthorizationTransaction, ProviderMetadata, ResponseType } from '../types';

/** The checked parameters of an authorization response; only those the response type asked for. */
export interface AuthorizationResponse {
  code?: string;
  state: string;
  iss?: string;
  idToken?: string;
  accessToken?: string;
  /** Present with `accessToken`; always a case variant of `Bearer`. */
  tokenType?: string;
  /** Seconds, present when the provider sent a valid `expires_in` with the access token. */
  expiresIn?: number;
  scope?: string;
}

const FRONT_CHANNEL_SECRETS = ['code', 'access_token', 'id_token', 'refresh_token'];

/**
 * Reads an authorization response and checks it against the transaction that started the login.
 *
 * `input` is the callback URL (an `URL` or an absolute URL string) for the `query` and
 * `fragment` modes, or the POST body (`URLSearchParams` or the raw
 * `application/x-www-form-urlencoded` string) for `form_post`.
 *
 * Throws, in this order: `authorization_response_invalid` (tokens or a code in the query of
 * a fragment-mode response; duplicate parameters), `state_missing`, `state_mismatch`,
 * `iss_mismatch`, `iss_missing` (when the provider advertises RFC 9207, unless the response
 * carries an ID token: then `iss` is undefined and the caller must validate that token, whose
 * `iss` names the issuer, before using anything else; {@link completeAuthorization} does),
 * {@link AuthorizationResponseError} (the provider sent `error`), then
 * `authorization_response_invalid` for a parameter the response type requires that is
 * missing. `invalid_options` when the input does not fit the transaction's response mode.
 *
 * @example
 * ```ts
 * const response = parseAuthorizationResponse(location.href, transaction, provider);
 * // { code: '...', state: '...', iss: 'http://127.0.0.1:4000/demo' }
 * ```
 */
export function parseAuthorizationResponse(
  input: URL | string | URLSearchParams,
  transaction: AuthorizationTransaction,
  provider: ProviderMetadata,
): AuthorizationResponse {
  // Reading the plain parameters of a JARM login would accept the downgrade JARM exists to stop.
  if (transaction.jarm) throw invalidOptions(DEV && 'This login uses JARM: finish it with completeAuthorization, which verifies the response JWT first.');
  return checkResponseParameters(responseParameters(input, transaction), transaction, provider);
}

/**
 * {@link parseAuthorizationResponse}'s checks on parameters already taken out of the response:
 * the verified content of a JARM response. Internal.
 */
export function checkResponseParameters(
  params: URLSearchParams,
  transaction: AuthorizationTransaction,
  provider: ProviderMetadata,
): AuthorizationResponse {
  const { state, iss } = checkResponse(params, transaction, provider);
  return requiredParameters(params, transaction.responseType, state, iss);
}

/**
 * {@link parseAuthorizationResponse} for the code flow with the response in the query, the
 * same checks in the same order, without the other modes and response types (so a bundle of
 * the code flow does not carry them); only the code comes back, the one thing the exchange
 * needs. Internal: {@link completeCodeAuthorization} calls it.
 */
export function parseCodeResponse(
  input: URL | string | URLSearchParams,
  transaction: AuthorizationTransaction,
  provider: ProviderMetadata,
): { code: string } {
  const url = input instanceof URL ? input : tryParseUrl(input);
  if (!url) throw wrongInput('query');
  const code = checkResponse(url.searchParams, transaction, provider).params.get('code');
  if (!code) throw malformed(DEV && '"code" is missing');
  return { code };
}

/**
 * The checks every response passes, in this order: the transaction's provider, duplicate
 * parameters, `state`, RFC 9207 `iss`, then the provider's `error`.
 */
function checkResponse(
  params: URLSearchParams,
  transaction: AuthorizationTransaction,
  provider: ProviderMetadata,
): { state: string; iss: string | undefined; params: URLSearchParams } {
  if (transaction.issuer !== provider.issuer) {
    throw new OidcError('transaction_invalid', DEV && 'The transaction is for another provider: pass the one the login began with.');
  }

  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (seen.has(name)) throw malformed(DEV && `"${safeName(name)}" appears twice`);
    seen.add(name);
  }

  const state = params.get('state');
  if (!state) {
    throw new OidcError('state_missing', DEV && 'The login response has no state; start a new login.');
  }
  if (state !== transaction.state) {
    throw new OidcError('state_mismatch', DEV && 'The login response answers another login (state differs); start a new login.');
  }

  const iss = params.get('iss') ?? undefined;
  if (iss !== undefined && iss !== provider.issuer) {
    throw new OidcError(
      'iss_mismatch',
      DEV && `The login response is from "${iss.slice(0, 200)}", not "${provider.issuer}" (mix-up?); start a new login.`,
    );
  }
  // RFC 9207 section 2.4: a response carrying an ID token may leave `iss` out; that token's
  // `iss`, checked by its validation (completeAuthorization does it first), names the issuer.
  const idTokenNamesIssuer =
    transaction.responseType.split(' ').includes('id_token') && params.has('id_token') && !params.has('error');
  if (iss === undefined && provider.authorization_response_iss_parameter_supported === true && !idTokenNamesIssuer) {
    throw new OidcError('iss_missing', DEV && 'The login response lacks the "iss" this provider sends; start a new login.');
  }

  const error = params.get('error');
  if (error !== null) {
    throw new AuthorizationResponseError({
      error,
      error_description: params.get('error_description') ?? undefined,
      state,
    });
  }

  return { state, iss, params };
}

/** Picks the parameter set the transaction's response mode says the response travels in. Internal (JARM reads its `response` there). */
export function responseParameters(input: URL | string | URLSearchParams, transaction: AuthorizationTransaction): URLSearchParams {
  const mode = transaction.responseMode;
  if (input instanceof URLSearchParams) {
    if (mode !== 'form_post') throw wrongInput(mode);
    return input;
  }
  const url = input instanceof URL ? input : tryParseUrl(input);
  if (mode === 'form_post') {
    if (url || typeof input !== 'string') {
      throw invalidOptions(DEV && 'This login uses form_post: pass the POST body, not a URL.');
    }
    return new URLSearchParams(input);
  }
  if (!url) throw wrongInput(mode);
  if (mode === 'query') return url.searchParams;

  // Tokens in the query leak into logs and Referer headers; a genuine response never puts them there.
  if (FRONT_CHANNEL_SECRETS.some((name) => url.searchParams.has(name))) {
    throw malformed(DEV && 'tokens in the query, not the fragment');
  }
  const fragment = new URLSearchParams(url.hash.slice(1));
  // A provider that cannot honour the fragment mode may report the error in the query.
  if ([...fragment.keys()].length === 0 && url.searchParams.has('error')) return url.searchParams;
  return fragment;
}

function requiredParameters(
  params: URLSearchParams,
  responseType: ResponseType,
  state: string,
  iss: string | undefined,
): AuthorizationResponse {
  const parts = responseType.split(' ');
  const result: AuthorizationResponse = { state };
  if (iss !== undefined) result.iss = iss;
  const take = (name: string) => {
    const value = params.get(name);
    if (!value) throw malformed(DEV && `"${name}" is missing`);
    return value;
  };
  if (parts.includes('code')) result.code = take('code');
  if (parts.includes('id_token')) result.idToken = take('id_token');
  if (parts.includes('token')) {
    result.accessToken = take('access_token');
    const tokenType = take('token_type');
    if (tokenType.toLowerCase() !== 'bearer') {
      throw malformed(DEV && `token_type "${safeName(tokenType)}" is not Bearer`);
    }
    result.tokenType = tokenType;
    const expiresIn = params.get('expires_in');
    if (expiresIn !== null) {
      if (!/^\d{1,10}$/.test(expiresIn)) throw malformed(DEV && '"expires_in" is not whole seconds');
      result.expiresIn = Number(expiresIn);
    }
    const scope = params.get('scope');
    if (scope) result.scope = scope;
  }
  return result;
}

function wrongInput(mode: string): OidcError {
  return invalidOptions(DEV && `This login uses ${mode} mode: pass the full callback URL.`);
}

function malformed(what?: string): OidcError {
  return new OidcError('authorization_response_invalid', DEV && `Malformed login response: ${what}; start a new login.`);
}

// Parameter names and token types are echoed only when they look like identifiers.
function safeName(value: string): string {
  return /^[A-Za-z0-9_.-]{1,40}$/.test(value) ? value : '(unprintable)';
}
