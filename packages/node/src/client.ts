/**
 * `createNodeClient`: a confidential client for backends. It keeps only what a backend
 * needs beyond core's protocol functions: the provider (resolved once), the client's
 * credentials, the sealed-transaction key, and the client-credentials token cache.
 */

import {
  OidcError,
  buildAuthorizationRequest,
  buildEndSessionUrl,
  clientCredentials,
  clientSecret,
  clientSecretBasic,
  clientSecretPost,
  completeAuthorization,
  discovery,
  fetchUserInfo,
  readInitiateLogin,
  resolveClaimSources,
  providerMetadata,
  pushAuthorizationRequest,
  refreshTokens,
  resourceNotConfigured,
  revokeToken,
  withResources,
  secretAuthMethodFor,
  usesPushedAuthorization,
  isJarmResponseMode,
  jarmDelivery,
  withJarm,
} from '@oidc-rp/core';
import { fetchSignedUserInfo } from '@oidc-rp/core/signed';
import { checkSigningAlgorithm, normaliseScope } from '@oidc-rp/core/internal';
import type { AuthorizationTransaction, ClientAuth, GrantType, HttpOptions, ProviderMetadata, TokenSet } from '@oidc-rp/core';
import { assertCallbackMode, readCallbackRequest } from './callback-input';
import { assertRelayedFromOwnOrigin, relayedFragmentUrl } from './fragment-relay';
import { createClientCredentialsSource } from './client-credentials';
import { checkFapi2Algorithm, fapi2Provider, isFapi2, isFapi2MessageSigning } from './fapi2';
import { type NodeClientOptions, checkResponse, resolveOptions } from './options';
import { withRetry } from './retry';
import { sealTransaction, unsealTransaction } from './sealed-transaction';
import { MemoryTokenCache } from './token-cache';
import type { NodeClient } from './client-types';
import { createWebHandlers } from './web-handlers';
import { checkRequestObjectOptions, toRequestObject } from './request-objects';

/**
 * Creates a confidential client. Options are checked at once: a missing secret, an
 * http issuer off loopback, an unknown grant or a response type a backend cannot receive
 * throw OidcError `invalid_options` with what to change.
 *
 * @example
 * ```ts
 * import { createNodeClient, serviceProvider } from '@oidc-rp/node';
 *
 * const client = createNodeClient({
 *   provider: serviceProvider('http://127.0.0.1:4000/demo'), // or: issuer: 'https://id.example.com'
 *   clientId: 'web',
 *   clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
 *   redirectUri: 'http://127.0.0.1:3000/callback',
 *   scope: 'openid profile email',
 *   cookieSecret: process.env.COOKIE_SECRET, // >= 32 random characters
 * });
 *
 * const { url, transaction } = await client.startLogin({ appState: { returnTo: '/' } });
 * // ...redirect to url; at the callback:
 * const tokens = await client.finishLogin(callbackRequest, transaction);
 * console.log(tokens.claims?.sub);
 * ```
 */
export function createNodeClient(options: NodeClientOptions): NodeClient {
  const opts = resolveOptions(options);
  const fapi = isFapi2(options);
  const messageSigning = fapi && isFapi2MessageSigning(options);
  if (fapi && opts.signingAlgorithm !== undefined) checkFapi2Algorithm(opts.signingAlgorithm);
  const http: HttpOptions = {
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.timeout !== undefined ? { timeout: opts.timeout } : {}),
  };
  const clientConfig = { clientId: opts.clientId, signingAlgorithm: opts.signingAlgorithm };
  // The value given (e.g. privateKeyJwt), else the secret by the method set, else the provider's way.
  const secret = opts.clientSecret as string;
  const clientAuth: ClientAuth =
    opts.clientAuth ??
    (opts.authMethod === 'client_secret_basic'
      ? clientSecretBasic(secret)
      : opts.authMethod === 'client_secret_post'
        ? clientSecretPost(secret)
        : clientSecret(secret));
  const issuer = opts.provider?.issuer ?? (opts.issuer as string);
  // Discovered once (core's memo: a failed discovery is tried again on the next call).
  const provider = opts.provider ?? discovery(issuer);
  // FAPI 2.0: the metadata is checked against the profile, and narrowed to its ID token algorithms.
  const getProvider = async (): Promise<ProviderMetadata> => {
    const metadata = await providerMetadata(provider, http);
    return fapi ? fapi2Provider(metadata, messageSigning) : metadata;
  };
  const requestObject = checkRequestObjectOptions(options.requestObject);
  const userinfoAlgorithm = options.userinfoSigningAlgorithm;
  if (userinfoAlgorithm !== undefined) checkSigningAlgorithm(userinfoAlgorithm);
  // One switch: with a DPoP handle every token call, userinfo and login use its key.
  const dpop = opts.dpop;
  const withDpop = dpop ? { dpop } : {};

  function requireGrant(grant: GrantType, method: string): void {
    if (!opts.grants.has(grant)) {
      throw new OidcError(
        'invalid_options',
        `${method} uses the ${grant} grant, which this client was created without; add "${grant}" to the grants option.`,
      );
    }
  }

  function cookieSecrets(): string[] {
    if (opts.cookieSecrets.length === 0) {
      throw new OidcError(
        'invalid_options',
        'Sealing login transactions needs the cookieSecret option: at least 32 random characters, the same on every instance.',
      );
    }
    return opts.cookieSecrets;
  }

  const cc = createClientCredentialsSource({
    cache: opts.tokenCache ?? new MemoryTokenCache({ maxEntries: opts.tokenCacheMaxEntries }),
    // A token is bound to the key it was issued for: each key has its own entries, and a process
    // without the key never finds (nor could use) a token bound to it. Bearer keys are unchanged.
    keyPrefix: `oidc-rp:cc:${issuer}:${opts.clientId}:${dpop ? `dpop:${dpop.jkt}:` : ''}`,
    tokenType: dpop ? 'DPoP' : 'Bearer',
    renewBeforeExpiry: opts.renewBeforeExpiry,
    unknownLifetimeTtl: opts.unknownLifetimeTtl,
    request: ({ scope, extra }) =>
      withRetry(async () => {
        const provider = await getProvider();
        return clientCredentials({ provider, client: clientConfig, clientAuth, http, ...(scope ? { scope } : {}), extra, ...withDpop });
      }, opts.retry),
  });

  async function finish(
    params: URL | string | URLSearchParams,
    transaction: AuthorizationTransaction,
  ): Promise<TokenSet> {
    const provider = await getProvider();
    // A fragment response reaches a server as the fields its relay page posted (or as given).
    const input =
      transaction.responseMode === 'fragment' && params instanceof URLSearchParams ? relayedFragmentUrl(params, transaction.redirectUri) : params;
    return completeAuthorization({
      provider,
      client: clientConfig,
      clientAuth,
      input,
      transaction,
      http,
      ...(opts.clockTolerance !== undefined ? { clockTolerance: opts.clockTolerance } : {}),
      ...withDpop,
    });
  }

  const client: NodeClient = {
    getProvider,
    resources: opts.resources,
    ...withDpop,
    ...(opts.signingAlgorithm !== undefined ? { signingAlgorithm: opts.signingAlgorithm } : {}),

    async startLogin(login = {}) {
      requireGrant('authorization_code', 'startLogin()');
      const redirectUri = opts.redirectUri;
      if (!redirectUri) {
        throw new OidcError('invalid_options', 'Logins need the redirectUri option: the registered URL of your callback route.');
      }
      const scope = login.scope ?? opts.scope;
      normaliseScope(scope);
      const responseType = login.responseType ?? opts.responseType;
      const requestedMode = login.responseMode ?? opts.responseMode ?? (responseType === 'code' ? 'query' : 'form_post');
      checkResponse(responseType, requestedMode);
      // JARM: the response comes back signed, where its plain mode would bring it.
      const jarm = isJarmResponseMode(requestedMode);
      const responseMode = jarm ? jarmDelivery(requestedMode, responseType) : requestedMode;
      const withCode = responseType.includes('code');
      const provider = await getProvider();
      if (jarm) checkJarmOffered(provider, responseMode);
      // The client always authenticates its code exchange. Where the provider takes the secret
      // or the verifier in the body, never both, and Basic is not an option, PKCE is left out.
      const secretReplacesPkce =
        withCode &&
        opts.clientAuth === undefined &&
        provider.pkce_replaces_client_secret === true &&
        (opts.authMethod ?? secretAuthMethodFor(provider)) === 'client_secret_post';
      const pkce = login.pkce ?? (withCode ? (opts.pkce ?? !secretReplacesPkce) : undefined);
      if (pkce && secretReplacesPkce) {
        throw new OidcError(
          'pkce_with_client_secret',
          'This provider takes the client secret or a PKCE verifier in the body, never both, and this client authenticates ' +
            'with client_secret_post: use authMethod "client_secret_basic" if the provider accepts it, or leave pkce unset.',
        );
      }
      const request = withResources(await buildAuthorizationRequest({
        provider,
        clientId: opts.clientId,
        redirectUri,
        scope,
        responseType,
        responseMode,
        ...(pkce !== undefined ? { pkce } : {}),
        ...(login.maxAge !== undefined ? { maxAge: login.maxAge } : {}),
        ...(login.prompt !== undefined ? { prompt: login.prompt } : {}),
        ...(login.loginHint !== undefined ? { loginHint: login.loginHint } : {}),
        ...(login.appState !== undefined ? { appState: login.appState } : {}),
        // RFC 9449 10: dpop_jkt binds the code to the key, so only this client's proof redeems it.
        ...(login.extra !== undefined || dpop ? { extra: { ...login.extra, ...(dpop ? { dpop_jkt: dpop.jkt } : {}) } } : {}),
      }), login.resources ?? opts.resources);
      if (jarm) withJarm(request);
      // RFC 9126: pushed, the browser carries client_id and request_uri only.
      const pushed = usesPushedAuthorization(provider, opts.par);
      // RFC 9101: the parameters signed as one request object (in the PAR body when pushed).
      const sent = requestObject ? await toRequestObject(requestObject, provider, request, pushed) : request;
      if (!pushed) return sent;
      return pushAuthorizationRequest({ provider, client: clientConfig, clientAuth, request: sent, http });
    },

    async finishLogin(input, transaction) {
      requireGrant('authorization_code', 'finishLogin()');
      checkTransaction(transaction, opts.clientId, issuer);
      if (input instanceof Request) {
        const { params, mode } = await readCallbackRequest(input);
        assertCallbackMode(mode, transaction.responseMode);
        if (mode === 'form_post' && transaction.responseMode === 'fragment') assertRelayedFromOwnOrigin(input, transaction.redirectUri);
        return finish(params, transaction);
      }
      return finish(input, transaction);
    },

    async refresh(refreshToken, refreshOptions = {}) {
      requireGrant('refresh_token', 'refresh()');
      if (typeof refreshToken !== 'string' || refreshToken === '') {
        throw new OidcError(
          'refresh_token_missing',
          'refresh() needs the refresh token of an earlier token response; ask for the offline_access scope to get one.',
        );
      }
      // A token only for a resource this client logs in for: anything else is refused before any request.
      if (refreshOptions.resource !== undefined && !opts.resources.includes(refreshOptions.resource)) {
        throw resourceNotConfigured(refreshOptions.resource, opts.resources);
      }
      const provider = await getProvider();
      const tokens = await refreshTokens({
        provider,
        client: clientConfig,
        clientAuth,
        http,
        refreshToken,
        ...(refreshOptions.scope !== undefined ? { scope: refreshOptions.scope } : {}),
        ...(refreshOptions.resource !== undefined ? { resource: refreshOptions.resource } : {}),
        ...(refreshOptions.expectedSubject !== undefined ? { expectedSubject: refreshOptions.expectedSubject } : {}),
        ...(opts.clockTolerance !== undefined ? { clockTolerance: opts.clockTolerance } : {}),
        ...withDpop,
      });
      // A provider that does not rotate keeps the old refresh token valid.
      return tokens.refreshToken ? tokens : { ...tokens, refreshToken };
    },

    async getClientCredentialsToken(ccOptions = {}) {
      requireGrant('client_credentials', 'getClientCredentialsToken()');
      if (ccOptions.scope !== undefined) normaliseScope(ccOptions.scope);
      return cc.get(ccOptions);
    },

    async getUserInfo(accessToken, userInfoOptions) {
      const provider = await getProvider();
      // Core refuses a missing subject with invalid_options before any request.
      const tokenIn = userInfoOptions?.tokenIn;
      const params = { provider, accessToken, expectedSubject: userInfoOptions?.expectedSubject as string, http, ...withDpop, ...(tokenIn ? { tokenIn } : {}) };
      // OIDC Core 5.3.2: a client registered for signed userinfo takes nothing else.
      if (userinfoAlgorithm !== undefined) return fetchSignedUserInfo({ ...params, clientId: opts.clientId, signingAlgorithm: userinfoAlgorithm });
      return fetchUserInfo(params);
    },

    async resolveClaimSources(claims, claimsOptions = {}) {
      const provider = await getProvider();
      return resolveClaimSources(claims, { provider, http, ...(claimsOptions.claimsProviders ? { claimsProviders: claimsOptions.claimsProviders } : {}) });
    },

    readInitiateLogin: (params, initiateOptions) => readInitiateLogin(params, { issuer, targetOrigins: initiateOptions.targetOrigins }),

    invalidate: (invalidateOptions) => cc.invalidate(invalidateOptions),

    async sealTransaction(transaction) {
      return sealTransaction(transaction, { secret: cookieSecrets(), maxAge: opts.transactionMaxAge });
    },

    async unsealTransaction(sealed) {
      return unsealTransaction(sealed, { secret: cookieSecrets() });
    },

    async endSessionUrl(endOptions = {}) {
      const provider = await getProvider();
      return buildEndSessionUrl({ provider, clientId: opts.clientId, ...endOptions });
    },

    async revokeToken(token, revokeOptions = {}) {
      const provider = await getProvider();
      return revokeToken({ provider, client: clientConfig, clientAuth, http, token, ...revokeOptions, ...withDpop });
    },

    handleLogin: (request, loginOptions) => web.handleLogin(request, loginOptions),
    handleCallback: (request) => web.handleCallback(request),
  };

  const web = createWebHandlers({
    client,
    finish: async (callback, transaction, request) => {
      checkTransaction(transaction, opts.clientId, issuer);
      assertCallbackMode(callback.mode, transaction.responseMode);
      if (callback.mode === 'form_post' && transaction.responseMode === 'fragment') assertRelayedFromOwnOrigin(request, transaction.redirectUri);
      return finish(callback.params, transaction);
    },
    redirectUri: () => opts.redirectUri,
    cookieName: opts.cookieName,
    transactionMaxAge: opts.transactionMaxAge,
  });

  return client;
}

/** A provider that lists its response modes must list the JARM one asked for (or `jwt`, JARM 4). */
function checkJarmOffered(provider: ProviderMetadata, mode: string): void {
  const modes = provider.response_modes_supported;
  if (!Array.isArray(modes) || modes.includes(`${mode}.jwt`) || modes.includes('jwt')) return;
  throw new OidcError(
    'invalid_provider_metadata',
    `The provider does not offer JARM response mode "${mode}.jwt" (its response_modes_supported): ask for another responseMode, or have the provider enable JARM.`,
  );
}

/** The transaction must be one this client started (same client and provider). */
function checkTransaction(transaction: AuthorizationTransaction, clientId: string, issuer: string): void {
  if (typeof transaction !== 'object' || transaction === null || typeof transaction.state !== 'string') {
    throw new OidcError('transaction_invalid', 'finishLogin() needs the transaction returned by startLogin() for this login.');
  }
  if (transaction.clientId !== clientId || transaction.issuer.replace(/\/+$/, '') !== issuer.replace(/\/+$/, '')) {
    throw new OidcError(
      'transaction_invalid',
      'The login transaction was started by another client or for another provider; start a new login with this client.',
    );
  }
}
