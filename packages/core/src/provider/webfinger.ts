/**
 * OpenID Provider Issuer Discovery (OpenID Connect Discovery 1.0 section 2): from what a user
 * types (an e-mail-like `acct:` identifier, a URL, or a host with a port) to the issuer, by a
 * WebFinger query (RFC 7033) at the identifier's host. The issuer found is then discovered with
 * the usual exact check, so a configuration naming another issuer is `discovery_issuer_mismatch`.
 */

import { DEV } from '../dev';
import { OidcError } from '../errors';
import { discardBody, isJsonObject, readJson, sendRequest } from '../http/transport';
import { invalidOptions } from '../options';
import type { HttpOptions, ProviderMetadata } from '../types';
import { type DiscoveryOptions, assertSecureUrl, discover, isSecure, tryParseUrl } from './discovery';

/** The WebFinger link relation of an OpenID Connect issuer. */
export const ISSUER_REL = 'http://openid.net/specs/connect/1.0/issuer';

/** Options of {@link webFingerIssuer} and {@link discoverByIdentifier}. */
export interface WebFingerOptions extends HttpOptions {
  /**
   * Query a loopback host (`localhost`, `127.0.0.0/8`, `[::1]`) over plain http, for tests and
   * local development; other hosts are always queried over https. Default false.
   */
  loopbackHttp?: boolean;
}

/**
 * The resource and host of a user's identifier, normalised per OpenID Connect Discovery 2.1:
 * `acct:` kept; `user@host` (no scheme, path or port) becomes `acct:user@host`; anything else
 * without a scheme is read as an https URL (`host:port/path`); a URL loses its fragment.
 * Undefined when the identifier has no host. Internal.
 */
export function normaliseIdentifier(identifier: string): { resource: string; host: string } | undefined {
  const input = identifier.trim();
  if (input === '' || /\s/.test(input)) return undefined;
  if (/^acct:/i.test(input)) {
    const at = input.lastIndexOf('@');
    const host = at > 5 ? input.slice(at + 1) : '';
    return host && !/[/?#]/.test(host) ? { resource: `acct:${input.slice(5)}`, host } : undefined;
  }
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(input);
  // Another scheme (mailto:, tel:) names no host to ask; host:port is not a scheme.
  if (!hasScheme && /^[a-z][a-z0-9+.-]*:(?!\d)/i.test(input)) return undefined;
  // user@host without path, query, fragment or port is an account; user@host:port a URL (2.1).
  if (!hasScheme && /^[^@/?#:]+@[^@/?#:]+$/.test(input)) return { resource: `acct:${input}`, host: input.slice(input.indexOf('@') + 1) };
  const url = tryParseUrl(hasScheme ? input : `https://${input}`);
  if (!url?.host || (url.protocol !== 'https:' && url.protocol !== 'http:')) return undefined;
  url.hash = '';
  return { resource: url.href, host: url.host };
}

/**
 * Asks the identifier's host, by WebFinger, which OpenID Provider serves it, and resolves that
 * issuer's URL. `invalid_options` for an identifier with no host; `webfinger_failed` when the
 * host answers an error or no JSON; `webfinger_invalid` when the answer names no https issuer.
 *
 * @example
 * ```ts
 * const issuer = await webFingerIssuer('acct:alice@example.com'); // 'https://id.example.com'
 * ```
 */
export async function webFingerIssuer(identifier: string, options: WebFingerOptions = {}): Promise<string> {
  const normal = typeof identifier === 'string' ? normaliseIdentifier(identifier) : undefined;
  if (!normal) throw invalidOptions(DEV && 'identifier must be acct:user@host, user@host, a URL or host[:port].');
  const endpoint = tryParseUrl(`https://${normal.host}/.well-known/webfinger`);
  if (!endpoint) throw invalidOptions(DEV && 'The identifier\'s host is not a valid host name.');
  if (options.loopbackHttp) {
    endpoint.protocol = 'http:';
    if (!isSecure(endpoint)) endpoint.protocol = 'https:';
  }
  endpoint.searchParams.set('resource', normal.resource);
  endpoint.searchParams.set('rel', ISSUER_REL);
  const jrd = await sendRequest(
    endpoint.href,
    { method: 'GET', headers: { Accept: 'application/jrd+json, application/json' } },
    options,
    DEV && 'The WebFinger endpoint',
    async (response) => {
      if (!response.ok) {
        await discardBody(response);
        throw new OidcError('webfinger_failed', DEV && `WebFinger answered HTTP ${response.status}; check the identifier's host.`);
      }
      const body = await readJson(response);
      if (!body.ok || !isJsonObject(body.value)) throw new OidcError('webfinger_failed', DEV && 'WebFinger answered no JSON object; check the identifier\'s host.');
      return body.value;
    },
  );
  const links = Array.isArray(jrd.links) ? jrd.links : [];
  const link = links.find((item) => isJsonObject(item) && item.rel === ISSUER_REL && typeof item.href === 'string') as { href: string } | undefined;
  const issuer = tryParseUrl(link?.href);
  if (!issuer || !isSecure(issuer) || issuer.search || issuer.hash) {
    throw new OidcError('webfinger_invalid', DEV && 'WebFinger named no https issuer (rel http://openid.net/specs/connect/1.0/issuer); check the identifier.');
  }
  return (link as { href: string }).href;
}

// `index!discover`: the link names the entry, for the API check reads the emitted declarations,
// where `discover` is not imported (only the function body uses it).
/**
 * {@link webFingerIssuer}, then {@link index!discover | discover} of that issuer: the
 * provider's metadata for what the user typed. The configuration must name the issuer
 * WebFinger gave, exactly (`discovery_issuer_mismatch`): nothing of a mismatching provider is
 * used.
 *
 * @example
 * ```ts
 * const provider = await discoverByIdentifier('alice@example.com');
 * ```
 */
export async function discoverByIdentifier(identifier: string, options: WebFingerOptions & DiscoveryOptions = {}): Promise<ProviderMetadata> {
  const issuer = await webFingerIssuer(identifier, options);
  assertSecureUrl(issuer, DEV && 'The issuer WebFinger named');
  return discover(issuer, options);
}
