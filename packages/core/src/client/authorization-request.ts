/**
 * Building the authorization request (the redirect to the provider) for every response
 * type the service supports, enforcing each flow's rules before anything leaves the app.
 */

import { DEV } from '../dev';
import { type Clock, systemClock } from '../clock';
import { assertSecureUrl, tryParseUrl } from '../provider/discovery';
import { invalidOptions, requireString } from '../options';
import { setDefined } from '../http/search-params';
import { codeChallengeS256, createCodeVerifier, createNonce, createState } from './pkce';
import type { AuthorizationTransaction, ProviderMetadata, ResponseMode, ResponseType } from '../types';

/** Input of {@link buildAuthorizationRequest}. */
export interface AuthorizationRequestParams {
  provider: ProviderMetadata;
  clientId: string;
  /** Must be registered with the provider exactly as given. */
  redirectUri: string;
  /** Space-separated string or list; include `openid` for an ID token. */
  scope: string | string[];
  /** Default `'code'`. */
  responseType?: ResponseType;
  /**
   * Default: `query` for `code`, `form_post` for `id_token` (`fragment` is allowed too, OIDC Core's default for it),
   * `fragment` otherwise. Never `query` when tokens come back.
   */
  responseMode?: ResponseMode;
  /** PKCE S256. Default: on whenever the response type includes `code`; not allowed otherwise. */
  pkce?: boolean;
  /** Maximum authentication age in seconds (`max_age`); the ID token's `auth_time` is then checked. */
  maxAge?: number;
  /**
   * `prompt` as sent. Default: `consent` when the scope has `offline_access` (and a code comes
   * back), as OpenID Connect Core 11 requires for a refresh token, except for the service
   * (metadata with its `pkce_replaces_client_secret` profile), which asks for consent only when
   * not yet given; else none. A prompt
   * given here is sent as is: a provider may then ignore `offline_access`.
   */
  prompt?: string;
  loginHint?: string;
  /** Caller data carried in the transaction (e.g. the page to return to). Never sent. */
  appState?: unknown;
  /** Additional query parameters. They may not set any parameter this function controls. */
  extra?: Record<string, string>;
  /** The clock the transaction's `createdAt` comes from. Default {@link systemClock}. */
  now?: Clock;
}

/** Output of {@link buildAuthorizationRequest}. */
export interface AuthorizationRequest {
  /** Where to send the user agent. */
  url: URL;
  /** Persist it until the callback; it holds the state, nonce and code verifier. */
  transaction: AuthorizationTransaction;
}

/**
 * A scope as sent: a space-separated string or a list, each value once, in order. Throws
 * `invalid_options` for an empty scope or a value outside RFC 6749 3.3's grammar (spaces,
 * quotes, backslashes, control characters).
 *
 * @example
 * ```ts
 * normaliseScope(['openid', 'profile', 'openid']); // 'openid profile'
 * ```
 */
export function normaliseScope(scope: string | readonly string[]): string {
  const list = typeof scope === 'string' ? scope.split(/\s+/) : Array.isArray(scope) ? scope : undefined;
  if (!list?.every((item) => typeof item === 'string')) {
    throw invalidOptions(DEV && 'scope must be a string or a list of strings.');
  }
  const unique = [...new Set(list.map((item) => item.trim()).filter((item) => item !== ''))];
  if (unique.length === 0) throw invalidOptions(DEV && 'scope is required, e.g. "openid profile".');
  if (unique.some((item) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(item))) {
    throw invalidOptions(DEV && 'scope values are printable ASCII without spaces, quotes or backslashes (RFC 6749 3.3).');
  }
  return unique.join(' ');
}

/**
 * `redirectUri` parsed, when it can be one: an absolute URL without a fragment (OAuth 2.0
 * compares it to the registered one exactly). Throws `invalid_options` otherwise.
 *
 * @example
 * ```ts
 * checkRedirectUri('http://127.0.0.1:5173/callback').origin; // 'http://127.0.0.1:5173'
 * ```
 */
export function checkRedirectUri(redirectUri: string): URL {
  const url = tryParseUrl(redirectUri);
  if (!url || redirectUri.includes('#')) {
    throw invalidOptions(DEV && 'redirectUri must be an absolute URL without #fragment, exactly as registered for the client.');
  }
  return url;
}

/** Every response type the service supports, in the contract's order. */
export const RESPONSE_TYPES: readonly ResponseType[] = [
  'code',
  'code id_token',
  'code token',
  'code token id_token',
  'token',
  'id_token token',
  'id_token',
];
const RESPONSE_MODES: readonly ResponseMode[] = ['query', 'fragment', 'form_post'];

// Parameters this module sets or checks: `extra` may not touch them.
const PROTECTED = new Set([
  'response_type',
  'response_mode',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'max_age',
  'prompt',
  'login_hint',
  'request',
  'request_uri',
]);

/**
 * Builds the authorization URL and the transaction to persist until the callback.
 * Generates `state`, a `nonce` whenever `openid` is requested, and a PKCE verifier for
 * code flows. Throws `invalid_options` for a request the flow does not allow.
 *
 * @example
 * ```ts
 * const provider = serviceProvider('http://127.0.0.1:4000/demo');
 * const { url, transaction } = await buildAuthorizationRequest({
 *   provider,
 *   clientId: 'spa',
 *   redirectUri: 'http://127.0.0.1:5173/callback',
 *   scope: ['openid', 'profile', 'offline_access'],
 * });
 * sessionStorage.setItem(`oidc:${transaction.state}`, JSON.stringify(transaction));
 * location.assign(url);
 * ```
 */
export async function buildAuthorizationRequest(params: AuthorizationRequestParams): Promise<AuthorizationRequest> {
  const responseType = params.responseType ?? 'code';
  if (!RESPONSE_TYPES.includes(responseType)) {
    throw invalidOptions(DEV && `responseType must be one of: ${RESPONSE_TYPES.join(', ')}.`);
  }
  const responseMode = params.responseMode ?? defaultResponseMode(responseType);
  if (!RESPONSE_MODES.includes(responseMode)) {
    throw invalidOptions(DEV && `responseMode must be one of: ${RESPONSE_MODES.join(', ')}.`);
  }
  const hasCode = responseType.split(' ').includes('code');
  if (responseType !== 'code' && responseMode === 'query') {
    throw invalidOptions(DEV && `responseType "${responseType}" returns tokens: use responseMode "fragment" or "form_post".`);
  }
  if (params.pkce === true && !hasCode) {
    throw invalidOptions(DEV && `PKCE needs a code, which responseType "${responseType}" lacks: remove pkce: true.`);
  }
  return createRequest(params, responseType, responseMode, hasCode && params.pkce !== false);
}

/**
 * {@link buildAuthorizationRequest} for the authorization code flow with PKCE alone
 * (`response_type=code`, response in the query): the same checks of what it is given, without
 * the rules of the other response types, so a bundle that only needs the code flow does not
 * carry them.
 *
 * @example
 * ```ts
 * const { url, transaction } = await buildCodeAuthorizationRequest({
 *   provider: serviceProvider('http://127.0.0.1:4000/demo'),
 *   clientId: 'spa',
 *   redirectUri: 'http://127.0.0.1:5173/callback',
 *   scope: 'openid profile offline_access',
 * });
 * ```
 */
export function buildCodeAuthorizationRequest(
  params: Omit<AuthorizationRequestParams, 'responseType' | 'responseMode' | 'pkce'>,
): Promise<AuthorizationRequest> {
  return createRequest(params, 'code', 'query', true);
}

async function createRequest(
  params: AuthorizationRequestParams,
  responseType: ResponseType,
  responseMode: ResponseMode,
  usePkce: boolean,
): Promise<AuthorizationRequest> {
  const { provider, clientId, redirectUri } = params;
  requireString(clientId, DEV && 'clientId');
  checkRedirectUri(redirectUri);
  if (typeof provider?.authorization_endpoint !== 'string') {
    throw invalidOptions(DEV && 'The provider has no authorization_endpoint.');
  }
  assertSecureUrl(provider.authorization_endpoint, DEV && "The provider's authorization_endpoint");

  const scope = normaliseScope(params.scope);
  const scopes = scope.split(' ');
  if (responseType.split(' ').includes('id_token') && !scopes.includes('openid')) {
    throw invalidOptions(DEV && `responseType "${responseType}" returns an ID token: add "openid" to the scope.`);
  }
  if (params.maxAge !== undefined && !(Number.isInteger(params.maxAge) && params.maxAge >= 0)) {
    throw invalidOptions(DEV && 'maxAge must be whole seconds >= 0.');
  }
  checkOptionalString(params.prompt, DEV && 'prompt');
  checkOptionalString(params.loginHint, DEV && 'loginHint');
  const extra = checkExtra(params.extra);

  const state = createState();
  const nonce = scopes.includes('openid') ? createNonce() : undefined;
  const codeVerifier = usePkce ? createCodeVerifier() : undefined;

  const url = new URL(provider.authorization_endpoint);
  setDefined(
    {
      response_type: responseType,
      client_id: clientId,
      redirect_uri: redirectUri,
      scope,
      state,
      nonce,
      code_challenge: codeVerifier && (await codeChallengeS256(codeVerifier)),
      code_challenge_method: codeVerifier && 'S256',
      // Sent only when it differs from the response type's default (OAuth 2.0 Multiple Response Types).
      response_mode: responseMode !== (responseType === 'code' ? 'query' : 'fragment') ? responseMode : undefined,
      max_age: params.maxAge?.toString(),
      // OpenID Connect Core 11: a provider grants offline_access (a refresh token) only on a
      // request with prompt=consent, unless it has other rules. The service has: a refresh token
      // for offline_access, consent asked only when not yet given. Its metadata (serviceProvider(),
      // its discovery) is known by its contract extension pkce_replaces_client_secret; a prompt
      // there would show the consent page at every login. A prompt the caller chose is sent as given.
      prompt:
        params.prompt ??
        (scopes.includes('offline_access') && responseType.includes('code') && !provider.pkce_replaces_client_secret ? 'consent' : undefined),
      login_hint: params.loginHint,
      ...extra,
    },
    url.searchParams,
  );

  const transaction: AuthorizationTransaction = {
    state,
    redirectUri,
    responseType,
    responseMode,
    scope,
    clientId,
    issuer: provider.issuer,
    createdAt: (params.now ?? systemClock)(),
    // Absent ones stay out of the stored JSON.
    nonce,
    codeVerifier,
    maxAge: params.maxAge,
    appState: params.appState,
  };
  return { url, transaction };
}

function defaultResponseMode(responseType: ResponseType): ResponseMode {
  if (responseType === 'code') return 'query';
  return responseType === 'id_token' ? 'form_post' : 'fragment';
}

function checkOptionalString(value: unknown, name: string): void {
  if (value !== undefined && typeof value !== 'string') throw invalidOptions(DEV && `${name} must be a string.`);
}

function checkExtra(extra: Record<string, string> | undefined): Record<string, string> | undefined {
  if (extra === undefined) return undefined;
  if (typeof extra !== 'object' || extra === null) throw invalidOptions(DEV && 'extra must be an object of strings.');
  for (const [name, value] of Object.entries(extra)) {
    if (PROTECTED.has(name)) {
      throw invalidOptions(DEV && `extra may not set "${name}": use the matching option.`);
    }
    if (typeof value !== 'string') throw invalidOptions(DEV && `extra.${name} must be a string.`);
  }
  return extra;
}
