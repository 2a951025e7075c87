/**
 * The whole callback of a login, for every response type: parse and check the response,
 * validate a front-channel ID token, redeem the code, validate the back-channel ID token,
 * and return one `TokenSet`. Both the browser and the Node wrapper call this.
 */

import { parseAuthorizationResponse } from './authorization-response';
import { OidcError } from './errors';
import { type IdTokenValidationOptions, validateIdToken } from './id-token';
import { exchangeCode, expiryOf } from './token-endpoint';
import type {
  AuthorizationTransaction,
  ClientConfig,
  HttpOptions,
  IdTokenClaims,
  ProviderMetadata,
  TokenSet,
} from './types';

/** Input of {@link completeAuthorization}. */
export interface CompleteAuthorizationParams {
  provider: ProviderMetadata;
  client: ClientConfig;
  /** The callback URL (query/fragment modes) or the POST body (form_post). */
  input: URL | string | URLSearchParams;
  /** The transaction {@link buildAuthorizationRequest} returned for this login. */
  transaction: AuthorizationTransaction;
  http?: HttpOptions;
  /** Seconds of clock skew accepted for ID token times. Default 60. */
  clockTolerance?: number;
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
 *
 * @example
 * ```ts
 * const tokens = await completeAuthorization({
 *   provider: serviceProvider('http://127.0.0.1:4000/demo'),
 *   client: { clientId: 'spa' },
 *   input: location.href,
 *   transaction: JSON.parse(sessionStorage.getItem('oidc:tx')!),
 * });
 * tokens.claims?.sub;
 * ```
 */
export async function completeAuthorization(params: CompleteAuthorizationParams): Promise<TokenSet> {
  const { provider, client, transaction } = params;
  if (transaction.clientId !== client.clientId) {
    throw new OidcError('invalid_options', 'The transaction is for another client: pass the one the login began with.');
  }
  const response = parseAuthorizationResponse(params.input, transaction, provider);
  const openid = transaction.scope.split(' ').includes('openid');
  if ((openid || response.idToken !== undefined) && !transaction.nonce) {
    throw new OidcError('transaction_invalid', 'The transaction has no nonce for the ID token; start a new login.');
  }
  const validation: IdTokenValidationOptions = {
    provider,
    clientId: client.clientId,
    nonce: transaction.nonce,
    maxAge: transaction.maxAge,
    clockTolerance: params.clockTolerance,
    http: params.http,
  };

  let frontClaims: IdTokenClaims | undefined;
  if (response.idToken !== undefined) {
    frontClaims = await validateIdToken(response.idToken, {
      ...validation,
      code: response.code,
      accessToken: response.accessToken,
      frontChannel: true,
    });
  }

  if (response.code === undefined) return frontChannelTokens(response, frontClaims);

  const tokens = await exchangeCode({
    provider,
    client,
    code: response.code,
    redirectUri: transaction.redirectUri,
    codeVerifier: transaction.codeVerifier,
    http: params.http,
  });
  if (tokens.idToken === undefined) {
    if (openid) {
      throw new OidcError('id_token_missing', 'No ID token came for the "openid" scope; check the client may use it.');
    }
    return tokens;
  }
  const claims = await validateIdToken(tokens.idToken, { ...validation, accessToken: tokens.accessToken });
  if (frontClaims !== undefined && frontClaims.sub !== claims.sub) {
    throw new OidcError('id_token_sub_mismatch', 'The two ID tokens name different users; start a new login.');
  }
  return { ...tokens, claims };
}

// Implicit and id_token-only responses: every token came with the redirect.
function frontChannelTokens(
  response: ReturnType<typeof parseAuthorizationResponse>,
  claims: IdTokenClaims | undefined,
): TokenSet {
  const tokens: TokenSet = { accessToken: response.accessToken ?? '', tokenType: 'Bearer' };
  if (response.accessToken !== undefined) {
    const expiresAt = expiryOf(response.expiresIn, response.accessToken);
    if (expiresAt !== undefined) tokens.expiresAt = expiresAt;
  }
  if (response.scope !== undefined) tokens.scope = response.scope;
  if (response.idToken !== undefined) tokens.idToken = response.idToken;
  if (claims !== undefined) tokens.claims = claims;
  return tokens;
}
