/**
 * From an API's URL to the authorization server that issues its tokens (RFC 9728, client side):
 * the API's 401 names its protected-resource metadata (`resource_metadata` in `WWW-Authenticate`),
 * the metadata's `resource` must be the API the client called (RFC 9728 §3.3: a document that
 * names another resource is refused, so a hostile API cannot send the client's login elsewhere),
 * its `authorization_servers` list the issuers the API trusts, and the chosen issuer's metadata is
 * fetched (RFC 8414, then OpenID Connect Discovery) with the usual exact issuer check. What comes
 * out is what a login needs: the provider and the `resource` to ask a token for (RFC 8707).
 */

import { DEV } from '../dev';
import { checkMetadata, type DiscoveryOptions, discover, isSecure, tryParseUrl } from '../provider/discovery';
import { OidcError, isOidcError } from '../errors';
import { discardBody, isJsonObject, readJson, sendRequest } from '../http/transport';
import { invalidOptions } from '../options';
import type { HttpOptions, ProviderMetadata } from '../types';

/** The RFC 9728 protected resource metadata fields this SDK reads. */
export interface ProtectedResourceMetadataDocument {
  resource: string;
  authorization_servers: string[];
  scopes_supported?: string[];
  bearer_methods_supported?: string[];
  dpop_signing_alg_values_supported?: string[];
  dpop_bound_access_tokens_required?: boolean;
  [extension: string]: unknown;
}

/** What {@link discoverApiAuthorization} found: everything a login for the API needs. */
export interface ApiAuthorization {
  /** The API's resource identifier: the RFC 8707 `resource` to ask tokens for. */
  resource: string;
  /** The API's RFC 9728 metadata, checked. */
  resourceMetadata: ProtectedResourceMetadataDocument;
  /** Where it was read. */
  resourceMetadataUrl: string;
  /** The authorization server's metadata, checked (exact issuer, https endpoints). */
  provider: ProviderMetadata;
  /** The scopes the API says it uses, when it says (`scopes_supported`). */
  scopes: string[] | undefined;
}

/** Options of {@link discoverApiAuthorization}. */
export interface ApiDiscoveryOptions extends HttpOptions {
  /** The authorization server to use; it must be one the API lists. Default: the first it lists. */
  issuer?: string;
  /** Accept plain-http URLs off loopback (API, metadata, issuer). Development only. Default false. */
  allowInsecure?: boolean;
  /**
   * Accept a `resource_metadata` URL on another origin than the API. Default false: the API's
   * own origin only, so a response that passed through another party cannot point elsewhere.
   */
  allowCrossOriginMetadata?: boolean;
  /** Passed to the authorization server's discovery (see `discover`). */
  allowHostClassMismatch?: boolean;
}

const WELL_KNOWN_RESOURCE = '/.well-known/oauth-protected-resource';
const WELL_KNOWN_SERVER = '/.well-known/oauth-authorization-server';

/**
 * The `resource_metadata` URL of a `WWW-Authenticate` header (RFC 9728 §5.1), from a `Bearer` or
 * `DPoP` challenge; undefined when there is none.
 *
 * @example
 * ```ts
 * resourceMetadataUrl('Bearer resource_metadata="https://api.example.com/.well-known/oauth-protected-resource"');
 * // 'https://api.example.com/.well-known/oauth-protected-resource'
 * ```
 */
export function resourceMetadataUrl(wwwAuthenticate: string | null): string | undefined {
  if (!wwwAuthenticate) return undefined;
  const match = /(?:^|[\s,])resource_metadata\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))/i.exec(wwwAuthenticate);
  const value = match?.[1]?.replace(/\\(.)/g, '$1') ?? match?.[2];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The RFC 9728 well-known URL of a resource identifier: the suffix inserted between the origin
 * and the path (`https://api.example.com/v1` → `https://api.example.com/.well-known/oauth-protected-resource/v1`).
 *
 * @example
 * ```ts
 * wellKnownResourceMetadataUrl('https://api.example.com/v1'); // 'https://api.example.com/.well-known/oauth-protected-resource/v1'
 * ```
 */
export function wellKnownResourceMetadataUrl(resource: string): string {
  const url = parse(resource, 'The resource');
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${url.origin}${WELL_KNOWN_RESOURCE}${path}`;
}

/**
 * Finds how to get a token for the API at `apiUrl`: asks the API without a token, reads the
 * 401's `resource_metadata` (else tries the RFC 9728 well-known URL of the API's path, then of
 * its origin), checks that the metadata's `resource` is the API that was called (same origin, a
 * path that contains the URL's; `resource_metadata_mismatch` otherwise), picks the authorization
 * server (`options.issuer` if the API lists it, else `authorization_server_not_listed`; else the
 * first listed), refuses a plain-http issuer off loopback (`authorization_server_insecure`), and
 * fetches its metadata (RFC 8414 at the path-inserted URI, then OpenID Connect Discovery).
 *
 * @example
 * ```ts
 * const api = await discoverApiAuthorization('https://api.example.com/orders');
 * api.provider.issuer; // 'https://id.example.com'
 * api.resource; // 'https://api.example.com/' — log in with it as `resource`
 * ```
 */
export async function discoverApiAuthorization(apiUrl: string, options: ApiDiscoveryOptions = {}): Promise<ApiAuthorization> {
  const api = parse(apiUrl, 'The API URL');
  if (!options.allowInsecure && !isSecure(api)) throw invalidOptions(DEV && 'The API URL must use https (http only on loopback).');

  const challenged = await probe(api.href, options);
  const candidates = challenged !== undefined ? [challenged] : wellKnownCandidates(api);
  let found: { url: string; document: ProtectedResourceMetadataDocument } | undefined;
  let lastError: unknown;
  for (const url of candidates) {
    const metadataUrl = parse(url, 'The resource_metadata URL');
    if (!options.allowInsecure && !isSecure(metadataUrl)) {
      throw new OidcError('resource_metadata_invalid', DEV && `The API's resource_metadata URL ${describe(metadataUrl)} is not https; the API must publish its metadata over https.`);
    }
    if (metadataUrl.origin !== api.origin && !options.allowCrossOriginMetadata) {
      throw new OidcError(
        'resource_metadata_mismatch',
        DEV && `The API at ${api.origin} points to resource metadata on ${metadataUrl.origin}; only metadata on the API's own origin is trusted (pass allowCrossOriginMetadata if the API documents it).`,
      );
    }
    try {
      found = { url, document: await fetchResourceMetadata(url, options) };
      break;
    } catch (error) {
      // Without a challenge, the well-known candidates are guesses: try the next one.
      if (challenged !== undefined || !isOidcError(error) || error.code !== 'resource_metadata_invalid') throw error;
      lastError = error;
    }
  }
  if (!found) {
    throw new OidcError(
      'resource_challenge_missing',
      DEV && `The API at ${describe(api)} answered without a WWW-Authenticate resource_metadata and publishes no RFC 9728 metadata at ${candidates.join(' or ')}; ask its owner for its authorization server.`,
      { cause: lastError },
    );
  }
  const { document } = found;
  checkResourceMatches(document.resource, api);

  const issuer = options.issuer ?? document.authorization_servers[0];
  if (issuer === undefined || !document.authorization_servers.includes(issuer)) {
    throw new OidcError(
      'authorization_server_not_listed',
      DEV && `The API ${document.resource} does not list the authorization server ${String(options.issuer)} (it lists ${document.authorization_servers.join(', ')}); its tokens would not be accepted there.`,
    );
  }
  const issuerUrl = tryParseUrl(issuer);
  if (!issuerUrl || (!options.allowInsecure && !isSecure(issuerUrl))) {
    throw new OidcError('authorization_server_insecure', DEV && `The API ${document.resource} names the authorization server ${issuer}, which is not an https URL (http only on loopback); refusing to log in there.`);
  }
  const provider = await discoverAuthorizationServer(issuer, options);
  return { resource: document.resource, resourceMetadata: document, resourceMetadataUrl: found.url, provider, scopes: document.scopes_supported };
}

/**
 * An authorization server's metadata by RFC 8414 (`{origin}/.well-known/oauth-authorization-server{path}`),
 * else by OpenID Connect Discovery (`{issuer}/.well-known/openid-configuration`); either way the
 * document's `issuer` must be `issuer` exactly and its endpoints are checked as `discover` checks them.
 *
 * @example
 * ```ts
 * const provider = await discoverAuthorizationServer('https://id.example.com/tenant');
 * ```
 */
export async function discoverAuthorizationServer(issuer: string, options: DiscoveryOptions = {}): Promise<ProviderMetadata> {
  const issuerUrl = parse(issuer, 'The issuer');
  if (issuerUrl.search || issuerUrl.hash) throw invalidOptions(DEV && 'The issuer must have no query or fragment.');
  if (!options.allowInsecure && !isSecure(issuerUrl)) throw invalidOptions(DEV && 'The issuer must use https (http only on loopback).');
  const path = issuerUrl.pathname === '/' ? '' : issuerUrl.pathname.replace(/\/$/, '');
  const url = `${issuerUrl.origin}${WELL_KNOWN_SERVER}${path}`;
  const document = await sendRequest(url, { method: 'GET', headers: { Accept: 'application/json' } }, options, DEV && 'The authorization server metadata', async (response) => {
    if (!response.ok) {
      await discardBody(response);
      return undefined;
    }
    const body = await readJson(response);
    return body.ok ? body.value : undefined;
  });
  // No RFC 8414 document: an OpenID Provider publishes OIDC discovery instead.
  if (document === undefined) return discover(issuer, options);
  return checkMetadata(document, issuer, options);
}

// The API's answer without a token: the resource_metadata of its challenge, if any.
async function probe(url: string, http: HttpOptions): Promise<string | undefined> {
  return sendRequest(url, { method: 'GET', redirect: 'manual', headers: { Accept: 'application/json' } }, http, DEV && 'The API', async (response) => {
    await discardBody(response);
    if (response.status !== 401) return undefined;
    const found = resourceMetadataUrl(response.headers.get('www-authenticate'));
    return found === undefined ? undefined : new URL(found, url).href;
  });
}

function wellKnownCandidates(api: URL): string[] {
  const byPath = wellKnownResourceMetadataUrl(api.href);
  const byOrigin = `${api.origin}${WELL_KNOWN_RESOURCE}`;
  return byPath === byOrigin ? [byOrigin] : [byPath, byOrigin];
}

/**
 * Reads and checks an RFC 9728 document: a JSON object whose `resource` is an absolute URL
 * without a fragment and whose `authorization_servers` is a non-empty list of strings.
 */
async function fetchResourceMetadata(url: string, http: HttpOptions): Promise<ProtectedResourceMetadataDocument> {
  const invalid = (what?: string) => new OidcError('resource_metadata_invalid', DEV && `The API's resource metadata at ${describe(new URL(url))} ${what}.`);
  const value = await sendRequest(url, { method: 'GET', headers: { Accept: 'application/json' } }, http, DEV && 'The resource metadata', async (response) => {
    if (!response.ok) {
      await discardBody(response);
      throw invalid(DEV && `answered HTTP ${response.status}`);
    }
    const body = await readJson(response);
    if (!body.ok) throw invalid(DEV && `is not JSON (${body.problem_})`);
    return body.value;
  });
  if (!isJsonObject(value)) throw invalid(DEV && 'is not a JSON object');
  const resource = tryParseUrl(value.resource);
  if (!resource || resource.hash || String(value.resource).includes('#')) throw invalid(DEV && 'has no "resource" URL (RFC 9728 §2)');
  const servers = value.authorization_servers;
  if (!Array.isArray(servers) || servers.length === 0 || !servers.every((s) => typeof s === 'string')) {
    throw invalid(DEV && 'lists no "authorization_servers"; the API does not say who issues its tokens');
  }
  const scopes = value.scopes_supported;
  if (scopes !== undefined && !(Array.isArray(scopes) && scopes.every((s) => typeof s === 'string'))) throw invalid(DEV && 'has a "scopes_supported" that is not a list of strings');
  return value as ProtectedResourceMetadataDocument;
}

// RFC 9728 §3.3 / §7.3: the metadata must be about the API that was called.
function checkResourceMatches(resource: string, api: URL): void {
  const named = new URL(resource);
  const base = named.pathname.replace(/\/$/, '');
  const within = named.origin === api.origin && !named.search && (api.pathname === base || api.pathname.startsWith(`${base}/`) || base === '');
  if (!within) {
    throw new OidcError(
      'resource_metadata_mismatch',
      DEV && `The API at ${describe(api)} published metadata for the resource ${describe(named)}, which is not the API that was called (RFC 9728 §3.3); refusing to log in for it.`,
    );
  }
}

function parse(value: string, what: string): URL {
  const url = tryParseUrl(value);
  if (!url) throw invalidOptions(DEV && `${what} must be an absolute URL.`);
  return url;
}

// Origin and path only: a query may carry something secret.
function describe(url: URL): string {
  return `${url.origin}${url.pathname}`;
}
