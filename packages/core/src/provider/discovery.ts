/**
 * Provider metadata: fetched by OpenID Connect Discovery 1.0 with an exact issuer check,
 * or built from the service's documented paths ({@link serviceProvider}).
 */

import { DEV } from '../dev';
import { invalidOptions } from '../options';
import { OidcError } from '../errors';
import { discardBody, followSameOrigin, isJsonObject, readJson, sendRequest } from '../http/transport';
import type { GrantType, HttpOptions, ProviderMetadata } from '../types';

/** Options of {@link discover}. */
export interface DiscoveryOptions extends HttpOptions {
  /** Accept plain-http issuers and endpoints off loopback. Development only. Default false. */
  allowInsecure?: boolean;
  /**
   * Accept endpoints (e.g. `jwks_uri`) on another host class than the issuer: loopback,
   * private network or public. Default false (`host_class_mismatch`).
   */
  allowHostClassMismatch?: boolean;
}

const ENDPOINTS = [
  'authorization_endpoint',
  'token_endpoint',
  'jwks_uri',
  'userinfo_endpoint',
  'revocation_endpoint',
  'end_session_endpoint',
  'check_session_iframe',
] as const;
const STRING_LISTS = [
  'id_token_signing_alg_values_supported',
  'token_endpoint_auth_methods_supported',
  'code_challenge_methods_supported',
  'response_types_supported',
  'response_modes_supported',
  'scopes_supported',
] as const;
const FLAGS = ['authorization_response_iss_parameter_supported', 'pkce_replaces_client_secret'] as const;
const GRANTS: readonly GrantType[] = ['authorization_code', 'refresh_token', 'client_credentials'];

/**
 * Fetches `{issuer}/.well-known/openid-configuration` and checks it. The document's
 * `issuer` must equal `issuer` exactly (`discovery_issuer_mismatch`), including any
 * trailing slash; the issuer and every endpoint must be https (or http on loopback)
 * unless `allowInsecure`; every endpoint must be in the issuer's host class (loopback,
 * private or public: `host_class_mismatch`) unless `allowHostClassMismatch`. Redirects are
 * followed within the issuer's origin only (`redirect_refused`).
 *
 * @example
 * ```ts
 * const provider = await discover('http://127.0.0.1:4000/demo');
 * provider.authorization_endpoint; // 'http://127.0.0.1:4000/demo/oidc/authorize'
 * ```
 */
export async function discover(issuer: string, options: DiscoveryOptions = {}): Promise<ProviderMetadata> {
  const issuerUrl = parseUrl(issuer, DEV && 'The issuer');
  if (issuerUrl.search || issuerUrl.hash) {
    throw invalidOptions(DEV && 'The issuer must have no query or fragment.');
  }
  if (!options.allowInsecure) assertSecureUrl(issuer, DEV && 'The issuer');
  const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;

  const document = await sendRequest(
    url,
    { method: 'GET', headers: { Accept: 'application/json' } },
    options,
    DEV && 'The discovery endpoint',
    async (response) => {
      if (!response.ok) {
        await discardBody(response);
        throw new OidcError('discovery_failed', DEV && `Discovery answered HTTP ${response.status}; check the issuer URL.`);
      }
      const body = await readJson(response);
      if (!body.ok) {
        throw new OidcError('discovery_failed', DEV && `Discovery answered no JSON (${body.problem_}); check the issuer URL.`);
      }
      return body.value;
    },
    followSameOrigin,
  );
  return checkMetadata(document, issuer, options);
}

/**
 * A provider found by OpenID Connect Discovery on first use: the one value a client's `provider`
 * option takes for it (in place of ready metadata such as `serviceProvider(base)`).
 *
 * @example
 * ```ts
 * const provider: DiscoveredProvider = discovery('https://id.example.com');
 * ```
 */
export interface DiscoveredProvider {
  readonly issuer: string;
  /**
   * The metadata, discovered once with the first caller's network settings: concurrent calls
   * share one request, and a failed discovery is tried again on the next call.
   */
  metadata(http?: HttpOptions): Promise<ProviderMetadata>;
}

/**
 * `issuer`'s metadata by {@link discover}, fetched when first needed and then kept.
 *
 * @example
 * ```ts
 * import { createBrowserClient, discovery } from '@oidc-rp/browser';
 *
 * const client = createBrowserClient({ provider: discovery('https://id.example.com'), clientId: 'spa', redirectUri });
 * ```
 */
export function discovery(issuer: string, options: Omit<DiscoveryOptions, keyof HttpOptions> = {}): DiscoveredProvider {
  let found: Promise<ProviderMetadata> | undefined;
  return {
    issuer,
    metadata: (http) =>
      (found ??= discover(issuer, { ...http, ...options }).catch((error: unknown) => {
        found = undefined; // the next call tries again
        throw error;
      })),
  };
}

/** The metadata of a `provider` option: as given, or discovered (see {@link DiscoveredProvider}). */
export function providerMetadata(provider: ProviderMetadata | DiscoveredProvider, http?: HttpOptions): Promise<ProviderMetadata> {
  return isDiscovered(provider) ? provider.metadata(http) : Promise.resolve(provider);
}

/** Whether a `provider` option is discovered (it has no endpoints yet). */
export function isDiscovered(provider: ProviderMetadata | DiscoveredProvider): provider is DiscoveredProvider {
  return typeof provider?.metadata === 'function';
}

/**
 * Metadata of the service from its documented paths, without a network round trip:
 * authorize `/oidc/authorize`; code exchange `/oidc/token`; refresh and client credentials
 * `/oauth/token`; JWKS `/oidc/jwks`; userinfo `/oidc/userinfo`; revocation `/oauth/revoke`;
 * logout `/oidc/logout`. The issuer is `baseUrl` without a trailing slash.
 *
 * @example
 * ```ts
 * const provider = serviceProvider('http://127.0.0.1:4000/demo');
 * tokenEndpointFor(provider, 'refresh_token'); // 'http://127.0.0.1:4000/demo/oauth/token'
 * ```
 */
export function serviceProvider(baseUrl: string, overrides: Partial<ProviderMetadata> = {}): ProviderMetadata {
  assertSecureUrl(baseUrl, DEV && 'The service base URL');
  const base = baseUrl.replace(/\/+$/, '');
  return {
    issuer: base,
    authorization_endpoint: `${base}/oidc/authorize`,
    token_endpoint: `${base}/oidc/token`,
    token_endpoint_by_grant: {
      authorization_code: `${base}/oidc/token`,
      refresh_token: `${base}/oauth/token`,
      client_credentials: `${base}/oauth/token`,
    },
    jwks_uri: `${base}/oidc/jwks`,
    userinfo_endpoint: `${base}/oidc/userinfo`,
    revocation_endpoint: `${base}/oauth/revoke`,
    end_session_endpoint: `${base}/oidc/logout`,
    authorization_response_iss_parameter_supported: true,
    pkce_replaces_client_secret: true,
    id_token_signing_alg_values_supported: ['RS256', 'ES256'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_post', 'none'],
    ...overrides,
  };
}

/**
 * The token endpoint that serves `grant`: `token_endpoint_by_grant[grant]`, else `token_endpoint`.
 *
 * @example
 * ```ts
 * const provider = serviceProvider('https://login.example.com/acme');
 * tokenEndpointFor(provider, 'authorization_code'); // '.../oidc/token'
 * tokenEndpointFor(provider, 'client_credentials'); // '.../oauth/token'
 * ```
 */
export function tokenEndpointFor(provider: ProviderMetadata, grant: GrantType): string {
  return provider.token_endpoint_by_grant?.[grant] ?? provider.token_endpoint;
}

/**
 * Throws `invalid_options` unless `url` is https, or http on a loopback host
 * (`localhost`, `127.0.0.0/8`, `[::1]`). `what` names the URL in the message of a
 * development build.
 *
 * @example
 * ```ts
 * assertSecureUrl('https://login.example.com/acme', 'The issuer'); // ok
 * assertSecureUrl('http://127.0.0.1:4000/demo', 'The issuer');     // ok (loopback)
 * assertSecureUrl('http://login.example.com', 'The issuer');       // throws invalid_options
 * ```
 */
export function assertSecureUrl(url: string, what?: string): void {
  const parsed = tryParseUrl(url);
  if (parsed && isSecure(parsed)) return;
  throw invalidOptions(DEV && (parsed ? `${what} must use https (http only on loopback).` : `${what} must be an absolute URL.`));
}

/** https, or http on a loopback host. Internal. */
export function isSecure(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname));
}

function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

function parseUrl(url: string, what?: string): URL {
  const parsed = tryParseUrl(url);
  if (!parsed) throw invalidOptions(DEV && `${what} must be an absolute URL.`);
  return parsed;
}

/**
 * `url` parsed when it is an absolute URL string, else undefined: `new URL` without the throw.
 * Shared by the packages that decide whether a string is a usable URL.
 *
 * @example
 * ```ts
 * tryParseUrl('https://app.example.com/callback')?.pathname; // '/callback'
 * tryParseUrl('/callback'); // undefined
 * ```
 */
export function tryParseUrl(url: unknown): URL | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/**
 * Where a host is, judged from its name alone (no DNS lookup): loopback, a private network
 * (RFC 1918, link-local, unique-local, single-label and `.local`/`.internal` names) or public.
 */
function hostClass(hostname: string): 'loopback' | 'private' | 'public' {
  if (isLoopback(hostname)) return 'loopback';
  let host = hostname;
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(hostname); // IPv4-mapped IPv6
  if (mapped) {
    const [high, low] = [Number.parseInt(mapped[1] as string, 16), Number.parseInt(mapped[2] as string, 16)];
    host = `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
    if (isLoopback(host)) return 'loopback';
  }
  if (
    /^(10|0)\.|^192\.168\.|^169\.254\.|^172\.(1[6-9]|2\d|3[01])\.|^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\./.test(host) ||
    /^\[(f[cd]|fe[89ab])/.test(host) ||
    (!host.startsWith('[') && !host.includes('.')) ||
    /\.(local|internal)$/.test(host)
  ) {
    return 'private';
  }
  return 'public';
}

/**
 * Checks a provider metadata document (OIDC Discovery or RFC 8414) as {@link discover} does:
 * the exact issuer, the required endpoints, their schemes and host classes. Internal.
 */
export function checkMetadata(document: unknown, issuer: string, options: DiscoveryOptions): ProviderMetadata {
  const allowInsecure = options.allowInsecure === true;
  const invalid = (what?: string) =>
    new OidcError('invalid_provider_metadata', DEV && `Invalid discovery document: ${what}; check the issuer or pass provider.`);
  if (!isJsonObject(document)) throw invalid(DEV && 'it is not a JSON object');
  if (typeof document.issuer !== 'string') throw invalid(DEV && '"issuer" is missing');
  if (document.issuer !== issuer) {
    throw new OidcError(
      'discovery_issuer_mismatch',
      DEV && `Discovery names the issuer "${document.issuer}", not "${issuer}"; use the issuer exactly as published.`,
    );
  }
  // The first three endpoints are required.
  for (const field of ENDPOINTS.slice(0, 3)) {
    if (document[field] === undefined) throw invalid(DEV && `"${field}" is missing`);
  }
  const issuerClass = hostClass(new URL(issuer).hostname);
  const checkEndpoint = (value: unknown, field: string) => {
    const url = tryParseUrl(value);
    if (!url || !(allowInsecure || isSecure(url))) throw invalid(DEV && `"${field}" is not an ${allowInsecure ? 'absolute' : 'https'} URL`);
    const endpointClass = hostClass(url.hostname);
    if (endpointClass !== issuerClass && options.allowHostClassMismatch !== true) {
      throw new OidcError(
        'host_class_mismatch',
        DEV && `"${field}" is on a ${endpointClass} host, the issuer on a ${issuerClass} one; pass allowHostClassMismatch if intended.`,
      );
    }
  };
  for (const field of ENDPOINTS) {
    if (document[field] !== undefined) checkEndpoint(document[field], field);
  }
  for (const field of STRING_LISTS) {
    const value = document[field];
    if (value !== undefined && !(Array.isArray(value) && value.every((item) => typeof item === 'string'))) {
      throw invalid(DEV && `"${field}" is not a list of strings`);
    }
  }
  for (const field of FLAGS) {
    if (document[field] !== undefined && typeof document[field] !== 'boolean') throw invalid(DEV && `"${field}" is not a boolean`);
  }
  const byGrant = document.token_endpoint_by_grant;
  if (byGrant !== undefined) {
    if (!isJsonObject(byGrant)) throw invalid(DEV && '"token_endpoint_by_grant" is not an object');
    for (const grant of GRANTS) {
      if (byGrant[grant] !== undefined) checkEndpoint(byGrant[grant], `token_endpoint_by_grant.${grant}`);
    }
  }
  return document as ProviderMetadata;
}
