/**
 * The validated configuration as the server runs it: tenants, clients and users with every
 * default filled in, and the vocabulary (algorithms, grant and response types) both the config
 * file and the endpoints use. Built by schema.ts; never read from a file directly.
 */
import type { Fault } from './fault-names';

/** `"contract"`: the service contract exactly (default). `"standard"`: what standard OAuth client libraries expect. */
export type TenantProfile = 'contract' | 'standard';

/** ID token (and JWT access token) signing algorithm of a tenant. */
export type SigningAlg = 'RS256' | 'ES256';
/** Grant types a client may be registered for. */
export type GrantType = 'authorization_code' | 'refresh_token' | 'client_credentials' | 'implicit';
/** Response types the authorize endpoint serves, in their canonical spelling. */
export type ResponseType = 'code' | 'code id_token' | 'code token' | 'code token id_token' | 'token' | 'id_token token' | 'id_token';

/** Lifetimes in seconds. */
export interface Lifetimes {
  authorization_code: number;
  access_token: number;
  id_token: number;
  refresh_token: number;
}

/** All response types, canonical spelling; the authorize endpoint accepts any word order. */
export const RESPONSE_TYPES: readonly ResponseType[] = [
  'code',
  'code id_token',
  'code token',
  'code token id_token',
  'token',
  'id_token token',
  'id_token',
];

/**
 * The canonical spelling of a response type given in any word order, or undefined.
 *
 * @example
 * canonicalResponseType('id_token code'); // 'code id_token'
 */
export function canonicalResponseType(value: string): ResponseType | undefined {
  const key = value.split(' ').sort().join(' ');
  return RESPONSE_TYPES.find((t) => t.split(' ').sort().join(' ') === key);
}

/**
 * Which `aud` a client assertion may have: `issuer`, the issuer as a string only (RFC 7523bis,
 * FAPI 2.0); `issuer_or_token_endpoint`, also the token endpoint URL (and the PAR endpoint's at
 * PAR), as a string or in an array (RFC 7523 3, RFC 9126 2).
 */
export type ClientAssertionAudience = 'issuer' | 'issuer_or_token_endpoint';

/** How a client authenticates at the token, revocation and PAR endpoints (RFC 7591 `token_endpoint_auth_method`). */
export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'client_secret_jwt' | 'private_key_jwt' | 'none';

/** A public JWK of a client (RFC 7517), as registered in its `jwks`. */
export type ClientJwk = Readonly<Record<string, unknown>> & { kty: string };

/** A client after validation, every default filled in. */
export interface Client {
  client_id: string;
  /** Shown to people on the login, consent and tenant pages; undefined: the client_id is shown. */
  client_name: string | undefined;
  client_secret: string | undefined;
  redirect_uris: readonly string[];
  post_logout_redirect_uris: readonly string[];
  grant_types: readonly GrantType[];
  response_types: readonly ResponseType[];
  scopes: readonly string[];
  skip_consent: boolean;
  /** Token requests must carry a DPoP proof. */
  require_dpop: boolean;
  /** RFC 8707 resources the client may ask tokens for; any other `resource` is `invalid_target`. */
  resources: readonly string[];
  /** Confidential clients: refresh tokens of a DPoP login are left unbound (see `bindsRefreshToken`). */
  dpop_unbound_refresh: boolean;
  /** `aud` of JWT access tokens without a `resource`; undefined: the issuer. */
  access_token_audience: readonly string[] | undefined;
  /** This client's access tokens: its own setting, else the tenant's. */
  access_token_format: 'opaque' | 'jwt';
  /** Audiences of the tokens this client may introspect besides its own (RFC 7662). */
  introspection_audiences: readonly string[];
  /** Where logout tokens are POSTed (Back-Channel Logout 1.0); undefined: none are sent. */
  backchannel_logout_uri: string | undefined;
  /** Logout tokens carry `sid`. */
  backchannel_logout_session_required: boolean;
  /** Front-Channel Logout 1.0: the page the logout page loads in an iframe; undefined: none. */
  frontchannel_logout_uri: string | undefined;
  /** The front-channel logout URI gets `iss` and `sid` query parameters. */
  frontchannel_logout_session_required: boolean;
  /** Empty unless the config asks for faults. */
  faults: ReadonlySet<Fault>;
  /** Public keys for `private_key_jwt` (RFC 7523), given in the config. */
  jwks: readonly ClientJwk[] | undefined;
  /** Where the public keys for `private_key_jwt` are fetched from. */
  jwks_uri: string | undefined;
  /** The one method the client may use; undefined: any the client has credentials for. */
  token_endpoint_auth_method: ClientAuthMethod | undefined;
  /** Authorize requests must come through the PAR endpoint (RFC 9126). */
  require_pushed_authorization_requests: boolean;
  /** Third-party initiated login (OIDC Core 4): where `/oidc/initiate-login` sends the browser; undefined: nowhere. */
  initiate_login_uri: string | undefined;
  /** JARM: every authorization response goes to the client as a JWT signed with this algorithm (the tenant's); undefined: only when it asks (a .jwt response_mode). */
  authorization_signed_response_alg: SigningAlg | undefined;
  /** The one algorithm of this client's request objects (RFC 9101); `none` only when set so. Undefined: any asymmetric one. */
  request_object_signing_alg: string | undefined;
  /** Every authorize and PAR request must carry a signed request object. */
  require_signed_request_object: boolean;
  /** Where this client's request objects may be fetched from (`request_uri`); empty: any URL the fetch rules allow. */
  request_uris: readonly string[];
  /** Userinfo answered as a JWT signed with the tenant's key (OIDC Core 5.3.2); undefined: plain JSON. */
  userinfo_signed_response_alg: SigningAlg | undefined;
}

/**
 * Whether the client has credentials to authenticate with: a secret, or registered keys.
 *
 * @example
 * if (!isConfidential(client)) throw new OAuthError('unauthorized_client', 'client_credentials needs a confidential client');
 */
export function isConfidential(client: Client): boolean {
  return client.client_secret !== undefined || client.jwks !== undefined || client.jwks_uri !== undefined;
}

/**
 * Whether a refresh token issued to `client` with a DPoP proof is bound to the proof's key: always
 * for a public client (RFC 9449 5), and for a confidential one unless it sets
 * `dpop_unbound_refresh` (else a stolen refresh token plus the client's credentials would get
 * Bearer tokens, undoing the binding the login asked for).
 *
 * @example
 * const jkt = bindsRefreshToken(client) ? proof?.jkt : undefined;
 */
export function bindsRefreshToken(client: Client): boolean {
  return !isConfidential(client) || !client.dpop_unbound_refresh;
}

/** A user after validation. */
export interface User {
  username: string;
  password: string;
  claims: Readonly<Record<string, unknown>> & { sub: string };
}

/** Who may register clients at the registration endpoint (RFC 7591), and what they get. */
export interface RegistrationPolicy {
  /** `open`: anyone; `initial_access_token`: a caller presenting the tenant's token (RFC 7591 3). */
  access: 'open' | 'initial_access_token';
  initialAccessToken: string | undefined;
  /** Scopes a registered client may hold. */
  scopes: readonly string[];
  /** RFC 8707 resources registered clients may ask tokens for. */
  resources: readonly string[];
  /** Most clients registered at once on one instance. */
  maxClients: number;
}

/** A tenant after validation. */
export interface Tenant {
  id: string;
  /** Shown to people on the tenant's pages; the id when the config names none. */
  name: string;
  development: boolean;
  /** Development tenants only: `login_hint` signs that user in without a password, and the login page offers every user as a one-click button. */
  demo_login: boolean;
  profile: TenantProfile;
  signing_alg: SigningAlg;
  access_token_format: 'opaque' | 'jwt';
  /** Token requests of every client must carry a DPoP proof. */
  require_dpop: boolean;
  /** DPoP proofs must carry a server nonce. */
  dpop_nonce: boolean;
  /** Authorize requests of every client must come through the PAR endpoint (RFC 9126). */
  require_pushed_authorization_requests: boolean;
  /** The `aud` rule of client assertions. */
  client_assertion_audience: ClientAssertionAudience;
  lifetimes: Readonly<Lifetimes>;
  /** Custom claims released per scope, beside the standard ones. */
  scope_claims: ReadonlyMap<string, readonly string[]>;
  users: ReadonlyMap<string, User>;
  clients: ReadonlyMap<string, Client>;
  /** Dynamic client registration (RFC 7591/7592); undefined: no registration endpoint. */
  registration: RegistrationPolicy | undefined;
  /** Origins of the registered http(s) redirect URIs: the only CORS origins. */
  corsOrigins: ReadonlySet<string>;
  /** Whether any client has conformance faults: only then do endpoints consult faults/. */
  hasFaults: boolean;
}

/**
 * The faults of a client of `tenant`, or undefined when it has none (or is unknown): the one
 * check that keeps requests of healthy clients out of faults/.
 *
 * @example
 * const faults = clientFaults(ctx.tenant, clientId);
 * if (faults) return faultyIdToken(ctx, faults, payload);
 */
export function clientFaults(tenant: Tenant, clientId: string | undefined): ReadonlySet<Fault> | undefined {
  const faults = clientId === undefined ? undefined : tenant.clients.get(clientId)?.faults;
  return faults !== undefined && faults.size > 0 ? faults : undefined;
}
