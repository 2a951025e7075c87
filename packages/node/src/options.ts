/**
 * The options of {@link createNodeClient}, validated once at creation so that a wrong
 * setting fails at start-up with a message saying what to change, not at the first login.
 */

import { RESPONSE_TYPES, assertSecureUrl, checkRedirectUri as checkRedirectUrl, checkSigningAlgorithm, invalidOptions, normaliseScope } from '@oidc-rp/core/internal';
import { checkResources, isJarmResponseMode, jarmDelivery } from '@oidc-rp/core';
import type { ClientAuth, ClientAuthMethod, DpopHandle, GrantType, JarmResponseMode, ProviderMetadata, ResponseMode, ResponseType } from '@oidc-rp/core';
import { checkSecrets } from './secret-strength';
import type { TokenCache } from './token-cache';
import type { NodeRequestObjectOptions } from './request-objects';

/**
 * Retry policy for client-credentials requests (network errors and HTTP 5xx only).
 *
 * @example
 * ```ts
 * createNodeClient({ ...options, retry: { retries: 3, baseDelay: 200, maxDelay: 5_000 } });
 * createNodeClient({ ...options, retry: false }); // one attempt only
 * ```
 */
export interface RetryOptions {
  /** Retries after the first attempt. Default 2 (three attempts in all). */
  retries?: number;
  /** Milliseconds; the cap of the first backoff, doubled on every retry. Default 100. */
  baseDelay?: number;
  /** Milliseconds; no backoff is ever longer. Default 2 000. */
  maxDelay?: number;
}

/**
 * Settings of a confidential client. Give the provider either as `issuer` (found by
 * OpenID Connect Discovery on first use) or as `provider` metadata (for this service:
 * `serviceProvider(baseUrl)`).
 *
 * @example
 * ```ts
 * const options: NodeClientOptions = {
 *   issuer: 'https://id.example.com/acme',
 *   clientId: 'web',
 *   clientSecret: process.env.CLIENT_SECRET!,
 *   redirectUri: 'https://app.example.com/callback',
 *   scope: 'openid profile email offline_access',
 *   responseMode: 'form_post',
 *   cookieSecret: process.env.COOKIE_SECRET!,
 * };
 * ```
 */
export interface NodeClientOptions {
  /** Issuer URL for discovery. https, or http on loopback (localhost, 127.0.0.0/8, [::1]). */
  issuer?: string;
  /** Provider metadata given directly, e.g. `serviceProvider('https://id.example.com/acme')`. */
  provider?: ProviderMetadata;
  clientId: string;
  /**
   * The client secret. Required unless `clientAuth` is given: this package is for clients that
   * can keep a secret or a private key (backends).
   */
  clientSecret?: string;
  /**
   * How the client authenticates, as a core value, in place of `clientSecret` and `authMethod`:
   * `privateKeyJwt(key)` (RFC 7523: a JWT signed with the client's private key, no shared
   * secret) or `clientSecretJwt(secret)`. Used at the token, revocation and PAR endpoints.
   */
  clientAuth?: ClientAuth;
  /**
   * Pushed authorization requests (RFC 9126) for logins: the authorize parameters go to the
   * provider's PAR endpoint, authenticated, and the browser is sent with `client_id` and
   * `request_uri` only. Default: only where the provider requires it
   * (`require_pushed_authorization_requests`). `true`: always (`invalid_options` at the first
   * login when the provider has no PAR endpoint); `false`: never (`invalid_options` where required).
   */
  par?: boolean;
  /**
   * Set only to force a method. Default: the provider's `token_endpoint_auth_methods_supported`
   * (`client_secret_post` preferred; `client_secret_basic` when it is the only one, or where the
   * provider takes the secret or the PKCE verifier in the body, never both).
   */
  authMethod?: Exclude<ClientAuthMethod, 'none'>;
  /** Where the provider sends the user back. Required for logins. */
  redirectUri?: string;
  /** Grants this client uses; calling a method for another grant fails. Default: all three. */
  grants?: GrantType[];
  /** Default scope of logins. Default `openid`. */
  scope?: string | string[];
  /**
   * RFC 8707: the APIs logins ask tokens for, as their resource URIs (e.g.
   * `['https://api.example.com/']`); the provider must have them registered for the client.
   * `refresh(token, { resource })` then gets a token for one of them without a new login; any
   * other resource is `resource_not_configured`, with nothing sent. Default none.
   */
  resources?: string[];
  /** Default response type of logins. Default `code`. */
  responseType?: ResponseType;
  /**
   * Default response mode of logins: `query` or `form_post`; or JARM (a signed response JWT,
   * verified before anything else of the response is read): `jwt` (`query.jwt` for `code`),
   * `query.jwt` (code only) or `form_post.jwt`. Default `query` for `code`, `form_post` otherwise.
   */
  responseMode?: NodeResponseMode;
  /**
   * PKCE on logins with a code. Default true, beside the client's authentication; false where the
   * provider takes the secret or the verifier in the body, never both, and the client uses
   * `client_secret_post` (this service's preset). `false` gives the classic secret-only code exchange.
   */
  pkce?: boolean;
  /**
   * Secret from which the transaction cookie key is derived: at least 32 characters of random
   * data (`openssl rand -base64 32`); guessable ones are refused. An array rotates secrets: the
   * first seals, all of them unseal.
   */
  cookieSecret?: string | string[];
  /** Seconds a sealed login transaction stays valid. Default 600. */
  transactionMaxAge?: number;
  /** Base name of the transaction cookies. Default `oidc-rp.tx`. */
  cookieName?: string;
  /** Custom fetch (proxies, instrumentation, tests). Default the global fetch. */
  fetch?: typeof fetch;
  /** Per-request timeout in milliseconds. Default 10 000. */
  timeout?: number;
  /** Seconds of clock skew accepted when validating ID tokens. Default 60. */
  clockTolerance?: number;
  /**
   * The JWS algorithm the client is registered for (its `id_token_signed_response_alg`, e.g.
   * `'RS256'`): ID tokens and the session layer's logout tokens signed with any other are
   * refused (`id_token_alg_not_allowed`, `logout_token_alg_not_allowed`), even by a key the
   * provider publishes. Default: unset, any asymmetric algorithm the provider lists.
   */
  signingAlgorithm?: string;
  /** Where client-credentials tokens are kept. Default an in-memory cache of `tokenCacheMaxEntries`. */
  tokenCache?: TokenCache;
  /** Size bound of the default in-memory cache. Default 100. */
  tokenCacheMaxEntries?: number;
  /** Seconds before expiry at which a cached token is renewed. Default 60 (at most half the lifetime). */
  renewBeforeExpiry?: number;
  /** Seconds to cache a token whose lifetime the provider did not state. Default 300. */
  unknownLifetimeTtl?: number;
  /** Retries of client-credentials requests; `false` disables them. */
  retry?: RetryOptions | false;
  /**
   * DPoP (RFC 9449), from core's `dpop()`: every token request, userinfo and login (`dpop_jkt`)
   * uses this key, and the tokens come back bound to it (`tokenType: 'DPoP'`; a Bearer answer is
   * refused with `dpop_token_type_mismatch`). Client-credentials tokens are cached per key. A
   * fleet sharing a token cache gives every instance the same configured key
   * (`dpop({ keyPair })` from an imported private JWK); else each process makes its own key and
   * keeps its own cache entries.
   */
  dpop?: DpopHandle;
  /**
   * Request objects (RFC 9101): every login's parameters signed as one JWT by
   * `requestObject.signer` (core's `requestObjectSigner`), sent by value, inside the pushed
   * request with `par`, or by `request_uri` from `requestObject.store` (`createRequestObjectStore`).
   * Default: none, the parameters go in the URL (or the PAR body).
   */
  requestObject?: NodeRequestObjectOptions;
  /**
   * The client's registered `userinfo_signed_response_alg` (e.g. `'RS256'`): `getUserInfo` then
   * expects a JWT signed with it by the provider (`iss`, `aud` and `sub` checked); plain JSON, an
   * encrypted answer or another algorithm is refused. Default: unset, plain JSON userinfo.
   */
  userinfoSigningAlgorithm?: string;
}

/** Options after validation, with every default applied. Internal. */
export interface ResolvedOptions {
  issuer: string | undefined;
  provider: ProviderMetadata | undefined;
  clientId: string;
  clientSecret: string | undefined;
  clientAuth: ClientAuth | undefined;
  par: boolean | undefined;
  authMethod: Exclude<ClientAuthMethod, 'none'> | undefined;
  redirectUri: string | undefined;
  grants: ReadonlySet<GrantType>;
  scope: string | string[];
  resources: readonly string[];
  responseType: ResponseType;
  responseMode: NodeResponseMode | undefined;
  pkce: boolean | undefined;
  cookieSecrets: string[];
  transactionMaxAge: number;
  cookieName: string;
  fetch: typeof fetch | undefined;
  timeout: number | undefined;
  signingAlgorithm: string | undefined;
  clockTolerance: number | undefined;
  tokenCache: TokenCache | undefined;
  tokenCacheMaxEntries: number;
  renewBeforeExpiry: number;
  unknownLifetimeTtl: number;
  retry: Required<RetryOptions>;
  dpop: DpopHandle | undefined;
}

export const GRANTS: readonly GrantType[] = ['authorization_code', 'refresh_token', 'client_credentials'];
const AUTH_METHODS = ['client_secret_post', 'client_secret_basic'];

/** Validates the options of `createNodeClient`; throws OidcError('invalid_options'). */
export function resolveOptions(options: NodeClientOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) fail('createNodeClient needs an options object.');

  const { issuer, provider } = options;
  if ((issuer === undefined) === (provider === undefined)) {
    fail('Pass exactly one of `issuer` (discovery) or `provider` (metadata, e.g. serviceProvider(baseUrl)).');
  }
  if (issuer !== undefined) {
    if (typeof issuer !== 'string' || issuer === '') fail('`issuer` must be the provider URL, e.g. https://id.example.com.');
    assertSecureUrl(issuer, 'the issuer');
  }
  if (provider !== undefined) checkProvider(provider);

  nonEmptyString(options.clientId, '`clientId` is required: the client ID from the client registration.');
  if (options.clientAuth !== undefined) {
    if (typeof options.clientAuth !== 'function') fail('`clientAuth` must be a client authentication from core, e.g. privateKeyJwt(key).');
    if (options.clientSecret !== undefined || options.authMethod !== undefined) {
      fail('Pass `clientAuth` or `clientSecret` (with `authMethod`), not both: clientSecretJwt(secret) is the secret as a JWT.');
    }
  } else {
    nonEmptyString(
      options.clientSecret,
      '`clientSecret` (or `clientAuth`, e.g. privateKeyJwt(key)) is required: @oidc-rp/node is for confidential clients. ' +
        'An app that cannot keep a secret (single-page, mobile) uses @oidc-rp/browser with PKCE instead.',
    );
  }
  if (options.par !== undefined && typeof options.par !== 'boolean') fail('`par` must be true or false.');
  if (options.signingAlgorithm !== undefined) checkSigningAlgorithm(options.signingAlgorithm);
  if (options.authMethod !== undefined && !AUTH_METHODS.includes(options.authMethod)) {
    fail(`\`authMethod\` must be one of ${AUTH_METHODS.join(', ')}.`);
  }

  const grants = resolveGrants(options.grants);
  const redirectUri = options.redirectUri;
  if (redirectUri !== undefined) checkRedirectUri(redirectUri);
  else if (options.grants?.includes('authorization_code')) {
    fail('`redirectUri` is required for the authorization_code grant: the registered URL of your callback route.');
  }

  const scope = options.scope ?? 'openid';
  normaliseScope(scope);
  const responseType = options.responseType ?? 'code';
  const responseMode = options.responseMode;
  checkResponse(responseType, responseMode);

  const cookieSecrets = options.cookieSecret === undefined ? [] : checkSecrets(options.cookieSecret, 'cookieSecret');
  const cookieName = options.cookieName ?? 'oidc-rp.tx';
  if (typeof cookieName !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(cookieName)) {
    fail('`cookieName` must be 1-64 characters of letters, digits, ".", "_" and "-".');
  }
  if (options.fetch !== undefined && typeof options.fetch !== 'function') fail('`fetch` must be a function.');
  if (options.pkce !== undefined && typeof options.pkce !== 'boolean') fail('`pkce` must be true or false.');
  if (options.tokenCache !== undefined) checkTokenCache(options.tokenCache);
  if (options.dpop !== undefined) checkDpop(options.dpop);

  return {
    issuer,
    provider,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    clientAuth: options.clientAuth,
    par: options.par,
    authMethod: options.authMethod,
    redirectUri,
    grants,
    scope,
    resources: checkResources(options.resources),
    responseType,
    responseMode,
    pkce: options.pkce,
    cookieSecrets,
    transactionMaxAge: positive(options.transactionMaxAge, 600, '`transactionMaxAge` (seconds)'),
    cookieName,
    fetch: options.fetch,
    timeout: options.timeout === undefined ? undefined : positive(options.timeout, 0, '`timeout` (milliseconds)'),
    signingAlgorithm: options.signingAlgorithm,
    clockTolerance:
      options.clockTolerance === undefined
        ? undefined
        : nonNegative(options.clockTolerance, 0, '`clockTolerance` (seconds)'),
    tokenCache: options.tokenCache,
    tokenCacheMaxEntries: integerAtLeast(options.tokenCacheMaxEntries, 100, 1, '`tokenCacheMaxEntries`'),
    renewBeforeExpiry: nonNegative(options.renewBeforeExpiry, 60, '`renewBeforeExpiry` (seconds)'),
    unknownLifetimeTtl: positive(options.unknownLifetimeTtl, 300, '`unknownLifetimeTtl` (seconds)'),
    retry: resolveRetry(options.retry),
    dpop: options.dpop,
  };
}

/**
 * Checks a response type and mode for a backend: tokens never come in the query, so anything but
 * `code` needs `form_post` or `fragment` (which reaches the server through the relay page).
 */
export function checkResponse(responseType: ResponseType, requested: NodeResponseMode | undefined): void {
  if (!RESPONSE_TYPES.includes(responseType)) {
    fail(`Unsupported response type "${String(responseType)}"; use one of: ${RESPONSE_TYPES.join(', ')}.`);
  }
  if (requested === undefined) return;
  if (requested === 'jwt' && responseType !== 'code') fail(`For response type "${responseType}", JARM's "jwt" means fragment.jwt, which a backend does not take: use "form_post.jwt".`);
  if (requested === 'query.jwt' && responseType !== 'code') fail(`Response type "${responseType}" returns tokens, which JARM never puts in the query: use "form_post.jwt".`);
  if ((requested as string) === 'fragment.jwt') fail('JARM in the fragment is not offered to a backend: use "form_post.jwt" (or "query.jwt" for the code flow).');
  const responseMode = isJarmResponseMode(requested) ? jarmDelivery(requested, responseType) : requested;
  if (responseMode !== 'query' && responseMode !== 'form_post' && responseMode !== 'fragment') {
    fail(`Unsupported response mode "${String(requested)}"; use "query" (code only), "form_post" or "fragment" (relayed by the callback page), or JARM's "jwt", "query.jwt", "form_post.jwt".`);
  }
  if (responseMode === 'query' && responseType !== 'code') {
    fail(`Response type "${responseType}" returns tokens from the authorize endpoint: use response mode "form_post" or "fragment".`);
  }
}

/** A response mode a backend can receive: plain, or JARM's (`jwt` is `query.jwt` for `code`). */
export type NodeResponseMode = ResponseMode | Exclude<JarmResponseMode, 'fragment.jwt'>;

/** Throws OidcError('invalid_options') with `message` (core's one caller-mistake error). */
export function fail(message: string): never {
  throw invalidOptions(message);
}

function checkProvider(provider: ProviderMetadata): void {
  if (typeof provider !== 'object' || provider === null) fail('`provider` must be provider metadata.');
  for (const field of ['issuer', 'authorization_endpoint', 'token_endpoint'] as const) {
    if (typeof provider[field] !== 'string' || provider[field] === '') {
      fail(`\`provider.${field}\` is missing; build the metadata with serviceProvider(baseUrl) or use \`issuer\`.`);
    }
  }
  assertSecureUrl(provider.issuer, 'the issuer');
  assertSecureUrl(provider.token_endpoint, 'the token endpoint');
  for (const endpoint of Object.values(provider.token_endpoint_by_grant ?? {})) {
    if (endpoint !== undefined) assertSecureUrl(endpoint, 'the token endpoint');
  }
}

// Core's check (absolute, no fragment), and a backend's callback is a web URL.
function checkRedirectUri(redirectUri: string): void {
  const { protocol } = checkRedirectUrl(redirectUri);
  if (protocol !== 'https:' && protocol !== 'http:') {
    fail('`redirectUri` must be an absolute http(s) URL without a fragment, exactly as registered for the client.');
  }
}

function resolveGrants(grants: GrantType[] | undefined): ReadonlySet<GrantType> {
  if (grants === undefined) return new Set(GRANTS);
  if (!Array.isArray(grants) || grants.length === 0) fail('`grants` must be a non-empty array.');
  for (const grant of grants) {
    if (!GRANTS.includes(grant)) {
      fail(`Unknown grant "${String(grant)}" in \`grants\`; this client supports ${GRANTS.join(', ')}.`);
    }
  }
  return new Set(grants);
}

function checkTokenCache(cache: TokenCache): void {
  if (
    typeof cache !== 'object' ||
    cache === null ||
    typeof cache.get !== 'function' ||
    typeof cache.set !== 'function' ||
    typeof cache.delete !== 'function'
  ) {
    fail('`tokenCache` must implement get(key), set(key, value, ttlSeconds) and delete(key).');
  }
  const lock: unknown = cache.lock;
  if (lock === undefined) return;
  if (
    typeof lock !== 'object' ||
    lock === null ||
    typeof (lock as { acquire?: unknown }).acquire !== 'function' ||
    !isNonNegativeNumber((lock as { maxWait?: unknown }).maxWait)
  ) {
    fail('`tokenCache.lock` must have acquire(key) and maxWait (milliseconds, a number >= 0).');
  }
}

// The handle's own checks ran in dpop(); this catches a key pair or a promise passed by mistake.
function checkDpop(handle: DpopHandle): void {
  if (typeof handle !== 'object' || handle === null || typeof handle.jkt !== 'string' || typeof handle.nonceFor !== 'function') {
    fail('`dpop` must be the handle of `await dpop()` from @oidc-rp/core (or `await dpop({ keyPair })` for a configured key).');
  }
}

function isNonNegativeNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function resolveRetry(retry: RetryOptions | false | undefined): Required<RetryOptions> {
  if (retry === false) return { retries: 0, baseDelay: 0, maxDelay: 0 };
  if (retry !== undefined && (typeof retry !== 'object' || retry === null)) fail('`retry` must be an object or false.');
  return {
    retries: integerAtLeast(retry?.retries, 2, 0, '`retry.retries`', 10),
    baseDelay: nonNegative(retry?.baseDelay, 100, '`retry.baseDelay` (milliseconds)'),
    maxDelay: nonNegative(retry?.maxDelay, 2_000, '`retry.maxDelay` (milliseconds)'),
  };
}

function nonEmptyString(value: unknown, message: string): void {
  if (typeof value !== 'string' || value === '') fail(message);
}

function positive(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) fail(`${what} must be a positive number.`);
  return value;
}

function nonNegative(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) fail(`${what} must be a number >= 0.`);
  return value;
}

function integerAtLeast(value: number | undefined, fallback: number, min: number, what: string, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    fail(`${what} must be an integer from ${min}${max === Number.MAX_SAFE_INTEGER ? '' : ` to ${max}`}.`);
  }
  return value;
}
