/** The OpenID Provider metadata (OIDC Discovery 1.0) of a tenant. */
import { REQUEST_OBJECT_ALGS } from '../oauth/request-object';
import { RESPONSE_TYPES } from '../config/model';
import { discoveryIssuer } from '../faults/responses';
import { advertisedSigningAlgorithms } from '../faults/id-token';
import { jsonResponse } from '../http/errors';
import { SCOPE_CLAIM_NAMES } from '../oauth/claims';
import { DPOP_ALGORITHMS } from '../oauth/dpop';
import { CLIENT_SECRET_JWT_ALGS, PRIVATE_KEY_JWT_ALGS } from '../oauth/client-assertion';
import { jarmMetadata } from '../oauth/jarm';

const CLIENT_AUTH_METHODS = ['client_secret_post', 'client_secret_basic', 'client_secret_jwt', 'private_key_jwt', 'none'];
const CLIENT_AUTH_SIGNING_ALGS = [...PRIVATE_KEY_JWT_ALGS, ...CLIENT_SECRET_JWT_ALGS];
import type { RequestContext } from '../request/context';

/**
 * The discovery document of the request's tenant, including the oidc-rp extensions
 * `token_endpoint_by_grant` and `pkce_replaces_client_secret` in the contract profile; the
 * standard profile publishes standard fields only.
 *
 * @example
 * const doc = providerMetadata(ctx);
 * doc.token_endpoint_by_grant.refresh_token; // `${issuer}/oauth/token`
 */
export function providerMetadata(ctx: RequestContext) {
  const base = ctx.issuer;
  const scopes = new Set(['openid']);
  for (const client of ctx.tenant.clients.values()) for (const s of client.scopes) scopes.add(s);
  const customClaims = [...ctx.tenant.scope_claims.values()].flat();
  const contractExtensions = ctx.tenant.profile === 'standard'
    ? {}
    : {
        token_endpoint_by_grant: {
          authorization_code: `${base}/oidc/token`,
          refresh_token: `${base}/oauth/token`,
          client_credentials: `${base}/oauth/token`,
        },
        pkce_replaces_client_secret: true,
      };
  return {
    issuer: ctx.tenant.hasFaults ? discoveryIssuer(ctx) : ctx.issuer,
    authorization_endpoint: `${base}/oidc/authorize`,
    token_endpoint: `${base}/oidc/token`,
    ...contractExtensions,
    jwks_uri: `${base}/oidc/jwks`,
    userinfo_endpoint: `${base}/oidc/userinfo`,
    revocation_endpoint: `${base}/oauth/revoke`,
    introspection_endpoint: `${base}/oauth/introspect`,
    end_session_endpoint: `${base}/oidc/logout`,
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    frontchannel_logout_supported: true,
    frontchannel_logout_session_supported: true,
    check_session_iframe: `${base}/oidc/check-session`,
    response_types_supported: [...RESPONSE_TYPES],
    ...jarmMetadata(ctx),
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', 'implicit'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    token_endpoint_auth_signing_alg_values_supported: CLIENT_AUTH_SIGNING_ALGS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_signing_alg_values_supported: CLIENT_AUTH_SIGNING_ALGS,
    introspection_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS.filter((method) => method !== 'none'),
    introspection_endpoint_auth_signing_alg_values_supported: CLIENT_AUTH_SIGNING_ALGS,
    id_token_signing_alg_values_supported: ctx.tenant.hasFaults ? advertisedSigningAlgorithms(ctx) : [ctx.tenant.signing_alg],
    subject_types_supported: ['public'],
    scopes_supported: [...scopes],
    claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'sid', 'at_hash', 'c_hash', ...new Set([...SCOPE_CLAIM_NAMES, ...customClaims])],
    prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
    authorization_response_iss_parameter_supported: true,
    request_parameter_supported: true,
    request_uri_parameter_supported: true,
    require_request_uri_registration: false,
    request_object_signing_alg_values_supported: [...REQUEST_OBJECT_ALGS],
    userinfo_signing_alg_values_supported: [ctx.tenant.signing_alg],
    claims_parameter_supported: false,
    dpop_signing_alg_values_supported: [...DPOP_ALGORITHMS],
    pushed_authorization_request_endpoint: `${base}/oauth/par`,
    require_pushed_authorization_requests: ctx.tenant.require_pushed_authorization_requests,
    ...(ctx.tenant.registration ? { registration_endpoint: `${base}/oauth/register` } : {}),
  };
}

/** The well-known suffixes also served with the tenant inserted after them (RFC 8414 3.1). */
export const WELL_KNOWN_INSERTED = ['oauth-authorization-server', 'openid-configuration'] as const;

/**
 * Handles `GET {base}/.well-known/oauth-authorization-server` (RFC 8414), also served at
 * `{origin}/.well-known/oauth-authorization-server/{tenant}`: the same document as OIDC discovery,
 * whose fields RFC 8414 shares.
 *
 * @example
 * { path: '/.well-known/oauth-authorization-server', kind: 'json', cors: true, methods: { GET: authorizationServerMetadata } }
 */
export async function authorizationServerMetadata(ctx: RequestContext): Promise<Response> {
  return discovery(ctx);
}

/**
 * Handles `GET {base}/.well-known/openid-configuration`.
 *
 * @example
 * // an entry of the endpoint table in app.ts, which builds the RequestContext
 * { path: '/.well-known/openid-configuration', kind: 'json', cors: true, methods: { GET: discovery } }
 */
export async function discovery(ctx: RequestContext): Promise<Response> {
  return jsonResponse(providerMetadata(ctx), 200, { ...ctx.corsHeaders, 'Cache-Control': 'no-cache' });
}
