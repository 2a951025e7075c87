/**
 * RFC 9728 OAuth 2.0 Protected Resource Metadata: the document a client (an MCP client, say)
 * reads to learn which authorization servers issue tokens for this API and how to present them.
 */

import type { AccessTokenVerifier } from '@oidc-rp/core/api';
import { invalidOptions } from '@oidc-rp/core/internal';

/** The metadata document (RFC 9728 §2). */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported?: string[];
  bearer_methods_supported: string[];
  dpop_signing_alg_values_supported?: string[];
  dpop_bound_access_tokens_required?: boolean;
  resource_name?: string;
  resource_documentation?: string;
}

/** Settings of {@link protectedResourceMetadata}. */
export interface ProtectedResourceOptions {
  /** This API's resource identifier (an https URL; `http:` on loopback only), as tokens name it in `aud`. */
  resource: string;
  /** Issuers whose tokens the API accepts. */
  authorizationServers: readonly string[];
  scopesSupported?: readonly string[];
  /** The API's verifier: its DPoP settings fill the `dpop_*` fields. */
  verifier?: Pick<AccessTokenVerifier, 'dpop'>;
  resourceName?: string;
  resourceDocumentation?: string;
}

/** The metadata, where it is served, and the handler that serves it. */
export interface ProtectedResource {
  metadata: ProtectedResourceMetadata;
  /** The metadata's URL (RFC 9728 §3.1): the `resource_metadata` of challenges. */
  url: string;
  /** Its path on the API's origin: route GET requests for it to `handle`. */
  path: string;
  /** Answers a request for the metadata (any origin may read it). */
  handle(request?: Request): Response;
}

/**
 * Builds the RFC 9728 metadata of an API and the handler for its well-known URL, which is
 * `/.well-known/oauth-protected-resource` followed by the resource identifier's path (§3.1).
 * Only `Authorization` header presentation is offered (`bearer_methods_supported: ["header"]`).
 *
 * @example
 * ```ts
 * const resource = protectedResourceMetadata({ resource: 'https://api.example.com', authorizationServers: ['https://id.example.com'], verifier });
 * app.get(resource.path, () => resource.handle());
 * const guard = requireAccessToken({ verifier, origin: 'https://api.example.com', resourceMetadata: resource.url });
 * ```
 */
export function protectedResourceMetadata(options: ProtectedResourceOptions): ProtectedResource {
  const { resource, verifier } = options;
  const url = URL.canParse(resource) ? new URL(resource) : undefined;
  const loopback = url && /^(127\.0\.0\.1|localhost|\[::1\])$/.test(url.hostname);
  if (!url || url.hash || url.search || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback))) {
    throw invalidOptions('resource must be an https URL without query or fragment (http: on loopback only).');
  }
  if (!Array.isArray(options.authorizationServers) || options.authorizationServers.length === 0) {
    throw invalidOptions('authorizationServers must name at least one issuer.');
  }
  const metadata: ProtectedResourceMetadata = {
    resource,
    authorization_servers: [...options.authorizationServers],
    bearer_methods_supported: ['header'],
    ...(options.scopesSupported ? { scopes_supported: [...options.scopesSupported] } : {}),
    ...(verifier?.dpop
      ? { dpop_signing_alg_values_supported: [...verifier.dpop.algorithms], dpop_bound_access_tokens_required: verifier.dpop.required }
      : {}),
    ...(options.resourceName !== undefined ? { resource_name: options.resourceName } : {}),
    ...(options.resourceDocumentation !== undefined ? { resource_documentation: options.resourceDocumentation } : {}),
  };
  const path = `/.well-known/oauth-protected-resource${url.pathname === '/' ? '' : url.pathname}`;
  const body = JSON.stringify(metadata);
  return {
    metadata,
    url: `${url.origin}${path}`,
    path,
    handle: () =>
      new Response(body, {
        headers: { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=3600', 'Access-Control-Allow-Origin': '*' },
      }),
  };
}
