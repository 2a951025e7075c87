/**
 * The whole callback of a login, for every response type: parse and check the response,
 * validate a front-channel ID token, redeem the code, validate the back-channel ID token,
 * and return one `TokenSet`. Both the browser and the Node wrapper call this.
 */

import { DEV } from '../dev';
import { invalidOptions } from '../options';
import { type AuthorizationResponse, checkResponseParameters, parseAuthorizationResponse, parseCodeResponse } from './authorization-response';
import { openJarmResponse } from './jarm';
import type { Clock } from '../clock';
import { OidcError } from '../errors';
import { type IdTokenValidationOptions, validateIdToken } from './id-token';
import { exchangeCode, expiryOf } from './token-endpoint';
import type { ClientAuth } from '../provider/client-auth';
import type { DpopHandle } from './dpop-proof-maker';
import type {
  AuthorizationTransaction,
  ClientConfig,
  HttpOptions,
  IdTokenClaims,
  ProviderMetadata,
  TokenSet,
} from '../types';

/** Input of {@link completeAuthorization}. */
export interface CompleteAuthorizationParams {
  provider: ProviderMetadata;
  client: ClientConfig;
  /** How the client authenticates its code exchange: `none()` for a public client (an SPA), else its secret's method. */
  clientAuth: ClientAuth;
  /** The callback URL (query/fragment modes) or the POST body (form_post). */
  input: URL | string | URLSearchParams;
  /** The transaction {@link buildAuthorizationRequest} returned for this login. */
  transaction: AuthorizationTransaction;
  http?: HttpOptions;
  /** Seconds of clock skew accepted for ID token times. Default 60. */
  clockTolerance?: number;
  /** The clock token expiry and ID token times are judged by. Default `systemClock`. */
  now?: Clock;
  /** A DPoP handle for the code exchange (see `TokenCallBase.dpop`): the tokens come back bound to its key. */
  dpop?: DpopHandle;
}

/**
 * Finishes a login. Throws on the first failed check and returns nothing partial:
 * the caller stores tokens only when this resolves.
 *
 * - Code flow: the code is redeemed (with the transaction's PKCE verifier and redirect URI);
 *   the ID token is required when `openid` was requested and checked against the nonce,
 *   `max_age` and `at_hash`.
 * - Hybrid: the front-channel ID token is validated first (nonce, `c_hash`, `at_hash`),
 *   then the code is redeemed, and both ID tokens must name the same `sub`.
 * - Implicit: the tokens come from the fragment.
 * - `id_token` (form_post, sign-in only): no access token is issued; `accessToken` is the
 *   empty string and `claims` holds the user.
 * - JARM (`transaction.jarm`, see `withJarm`): the `response` JWT is verified first (algorithm,
 *   signature, `iss`, `aud`, `exp`; `jarm_*` codes), and its content then passes the same
 *   checks; a plain response to a JARM login is `jarm_response_missing`.
 *
 * @example
 * ```ts
 * const tokens = await completeAuthorization({
 *   provider: serviceProvider('http://127.0.0.1:4000/demo'),
 *   client: { clientId: 'spa' },
 *   clientAuth: none(),
 *   input: location.href,
 *   transaction: JSON.parse(sessionStorage.getItem('oidc:tx')!),
 * });
 * tokens.claims?.sub;
 * ```
 */
export async function completeAuthorization(params: CompleteAuthorizationParams): Promise<TokenSet> {
  // JARM: the response JWT is verified before anything else of the response is read.
  const verified = params.transaction.jarm ? await openJarmResponse(params.input, params.transaction, validationOptions(params)) : undefined;
  const response = verified
    ? checkedResponse(params, (_, transaction, provider) => checkResponseParameters(verified, transaction, provider))
    : checkedResponse(params, parseAuthorizationResponse);

  let frontClaims: IdTokenClaims | undefined;
  if (response.idToken !== undefined) {
    frontClaims = await validateIdToken(response.idToken, {
      ...validationOptions(params),
      code: response.code,
      accessToken: response.accessToken,
      frontChannel: true,
    });
  }

  if (response.code === undefined) return frontChannelTokens(response, frontClaims, params.now);

  const tokens = await redeemCode(params, response.code);
  if (frontClaims !== undefined && tokens.claims !== undefined && frontClaims.sub !== tokens.claims.sub) {
    throw new OidcError('id_token_sub_mismatch', DEV && 'The two ID tokens name different users; start a new login.');
  }
  return tokens;
}

/**
 * {@link completeAuthorization} for the authorization code flow alone (`responseType: 'code'`):
 * the same checks, without the hybrid and implicit paths, so a bundle that only needs the
 * code flow does not carry them. Throws `invalid_options` for a transaction of another flow or
 * with the response elsewhere than in the query. Never give it a JARM transaction (`withJarm`):
 * it reads the plain query (the browser's default path, which makes none, keeps its bytes).
 *
 * @example
 * ```ts
 * const tokens = await completeCodeAuthorization({
 *   provider: serviceProvider('http://127.0.0.1:4000/demo'),
 *   client: { clientId: 'spa' },
 *   clientAuth: none(),
 *   input: new URL(location.href),
 *   transaction,
 * });
 * ```
 */
export async function completeCodeAuthorization(params: CompleteAuthorizationParams): Promise<TokenSet> {
  if (params.transaction.responseType !== 'code' || params.transaction.responseMode !== 'query') {
    throw invalidOptions(DEV && 'This login is not a code flow answered in the query: use completeAuthorization.');
  }
  const response = checkedResponse(params, parseCodeResponse);
  return redeemCode(params, response.code);
}

// The response checked against the transaction, which must belong to this client and carry a nonce for an ID token.
function checkedResponse<Parsed extends Partial<AuthorizationResponse>>(
  params: CompleteAuthorizationParams,
  parse: (input: CompleteAuthorizationParams['input'], transaction: AuthorizationTransaction, provider: ProviderMetadata) => Parsed,
): Parsed {
  const { provider, client, transaction } = params;
  if (transaction.clientId !== client.clientId) {
    throw new OidcError('transaction_invalid', DEV && 'The transaction is for another client: pass the one the login began with.');
  }
  const response = parse(params.input, transaction, provider);
  if ((isOpenId(transaction) || response.idToken !== undefined) && !transaction.nonce) {
    throw new OidcError('transaction_invalid', DEV && 'The transaction has no nonce for the ID token; start a new login.');
  }
  return response;
}

function validationOptions(params: CompleteAuthorizationParams): IdTokenValidationOptions {
  return {
    provider: params.provider,
    // clientId and the pinned signingAlgorithm.
    ...params.client,
    nonce: params.transaction.nonce,
    maxAge: params.transaction.maxAge,
    clockTolerance: params.clockTolerance,
    http: params.http,
    now: params.now,
  };
}

const isOpenId = (transaction: AuthorizationTransaction) => transaction.scope.split(' ').includes('openid');

// Redeems the code; the back-channel ID token is required for `openid` and validated.
async function redeemCode(params: CompleteAuthorizationParams, code: string): Promise<TokenSet> {
  const { transaction } = params;
  // The exchange reads provider, client, http and now from params; the rest of params it ignores.
  const tokens = await exchangeCode({ ...params, code, redirectUri: transaction.redirectUri, codeVerifier: transaction.codeVerifier });
  if (tokens.idToken === undefined) {
    if (isOpenId(transaction)) {
      throw new OidcError('id_token_missing', DEV && 'No ID token came for the "openid" scope; check the client may use it.');
    }
    return tokens;
  }
  const claims = await validateIdToken(tokens.idToken, { ...validationOptions(params), accessToken: tokens.accessToken });
  return { ...tokens, claims };
}

// Implicit and id_token-only responses: every token came with the redirect.
function frontChannelTokens(
  response: AuthorizationResponse,
  claims: IdTokenClaims | undefined,
  now: Clock | undefined,
): TokenSet {
  const tokens: TokenSet = { accessToken: response.accessToken ?? '', tokenType: 'Bearer' };
  if (response.accessToken !== undefined) {
    const expiresAt = expiryOf(response.expiresIn, response.accessToken, now);
    if (expiresAt !== undefined) tokens.expiresAt = expiresAt;
  }
  if (response.scope !== undefined) tokens.scope = response.scope;
  if (response.idToken !== undefined) tokens.idToken = response.idToken;
  if (claims !== undefined) tokens.claims = claims;
  return tokens;
}
