/**
 * The config file: its types, their defaults and their validation into the model (model.ts).
 * The file's shape is checked by the zod schema of shape.ts; the rules across fields are here.
 * A config with an error is refused as a whole with a message naming the field, so nobody runs
 * a half-understood setup.
 */
import type { Fault } from './fault-names';
import {
  canonicalResponseType,
  type Client,
  type ClientAssertionAudience,
  type ClientAuthMethod,
  isConfidential,
  type GrantType,
  type Lifetimes,
  type RegistrationPolicy,
  RESPONSE_TYPES,
  type ResponseType,
  type SigningAlg,
  type Tenant,
  type TenantProfile,
  type User,
} from './model';
import { GENERATE_SECRET, hmacSecretProblem, weakSecretProblem } from '../crypto/secret-strength';
import { privateAddressProblem } from './private-address';
import { STANDARD_CLAIM_TYPES, shapeProblem } from './shape';

/** A registered client as written in the config file. */
export interface ClientConfig {
  client_id: string;
  /** The name people see on the login, consent and tenant pages. Default: the client_id. */
  client_name?: string;
  /** Absent: a public client (PKCE, no secret). */
  client_secret?: string;
  redirect_uris?: string[];
  post_logout_redirect_uris?: string[];
  /** Default `["authorization_code"]`. */
  grant_types?: GrantType[];
  /** Default `["code"]` with the authorization_code grant, else none. */
  response_types?: ResponseType[];
  /** Scopes the client may request. Default `["openid"]`. */
  scopes?: string[];
  /** Never show the consent page for this client. Default false. */
  skip_consent?: boolean;
  /** Token requests of this client must carry a DPoP proof (RFC 9449). Default false. */
  require_dpop?: boolean;
  /**
   * RFC 8707: the resources (APIs, as absolute URIs) this client may ask access tokens for with
   * `resource`; any other is refused with `invalid_target`. Default none.
   */
  resources?: string[];
  /**
   * Confidential clients only: refresh tokens from a DPoP login are not bound to the key, so a
   * refresh without a proof gets a Bearer token (RFC 9449 5 allows it). Default false: bound.
   */
  dpop_unbound_refresh?: boolean;
  /** `aud` of the client's JWT access tokens when the request names no RFC 8707 `resource`. Default: the issuer. */
  access_token_audience?: string | string[];
  /** This client's access tokens: opaque, or RFC 9068 JWTs. Default: the tenant's `access_token_format`. */
  access_token_format?: 'opaque' | 'jwt';
  /**
   * RFC 7662: audiences (RFC 8707 resources) of the tokens this confidential client may
   * introspect as a resource server, besides its own tokens. Default none.
   */
  introspection_audiences?: string[];
  /**
   * Third-party initiated login (OIDC Core 4): the client's login-initiation URI, where
   * `{base}/oidc/initiate-login?client_id=...` sends the browser with `iss`, `login_hint` and
   * `target_link_uri`. https, or http on a loopback host in a development tenant.
   */
  initiate_login_uri?: string;
  /** Back-Channel Logout 1.0: where logout tokens are POSTed when a user's session ends (https, or http on loopback in a development tenant). */
  backchannel_logout_uri?: string;
  /**
   * Lets `backchannel_logout_uri` be an IP address of a private network (10/8, 172.16/12,
   * 192.168/16, 100.64/10, link-local 169.254/16, fc00::/7, fe80::/10). Default false: refused.
   */
  backchannel_logout_private_network?: boolean;
  /** Logout tokens (and ID tokens) carry `sid` for this client. Default false. */
  backchannel_logout_session_required?: boolean;
  /** Front-Channel Logout 1.0: the client page the logout page loads in an iframe (https, or http on loopback in a development tenant). */
  frontchannel_logout_uri?: string;
  /** The front-channel logout URI gets `iss` and `sid` query parameters. Default false. */
  frontchannel_logout_session_required?: boolean;
  /** Conformance testing only: make the server misbehave for this client (see the README's fault table). */
  fault?: Fault | Fault[];
  /** Public keys for `private_key_jwt` (RFC 7523): a JWK Set. */
  jwks?: { keys: Record<string, unknown>[] };
  /** Where the public keys for `private_key_jwt` are fetched (https, or http on loopback or in a development tenant). */
  jwks_uri?: string;
  /** The one authentication method the client may use. Default: any it has credentials for. */
  token_endpoint_auth_method?: ClientAuthMethod;
  /** Authorize requests must come through the PAR endpoint (RFC 9126). Default false. */
  require_pushed_authorization_requests?: boolean;
  /**
   * JARM: every authorization response goes to this client as a signed JWT, whatever
   * `response_mode` it asks for. Must be the tenant's `signing_alg`. Default: JARM only when
   * the client asks for it (response_mode jwt, query.jwt, fragment.jwt, form_post.jwt).
   */
  authorization_signed_response_alg?: SigningAlg;
  /** RFC 9101: the one algorithm of the client's request objects (`none` accepts unsigned ones). Default: any asymmetric algorithm. */
  request_object_signing_alg?: string;
  /** RFC 9101: every authorize and PAR request must carry a signed request object. Default false. */
  require_signed_request_object?: boolean;
  /** RFC 9101 / OIDC Registration: the URLs request objects may be fetched from (`request_uri`). Default: any https URL. */
  request_uris?: string[];
  /** OIDC Core 5.3.2: userinfo as a JWT signed with the tenant's key; must be the tenant's signing_alg. Default: plain JSON. */
  userinfo_signed_response_alg?: SigningAlg;
}

/** An end user who can sign in at the login page. */
export interface UserConfig {
  username: string;
  password: string;
  /**
   * Any JSON claims; `sub` defaults to the username. Standard OIDC claims must have their
   * standard type; protocol claims (`iss`, `aud`, `exp`, `nonce`, ...) are refused.
   */
  claims?: Record<string, unknown>;
}

/** Dynamic client registration (RFC 7591, with RFC 7592 management) for a tenant. */
export interface RegistrationConfig {
  /** `"open"`: anyone may register a client; `"initial_access_token"`: only a caller sending the tenant's initial access token as a Bearer token. */
  access: 'open' | 'initial_access_token';
  /** With `"initial_access_token"`: the token, at least 32 random characters. */
  initial_access_token?: string;
  /** Scopes a registered client may hold (its `scope` metadata is checked against them). Default `["openid"]`. */
  scopes?: string[];
  /** RFC 8707 resources registered clients may ask access tokens for. Default none. */
  resources?: string[];
  /** Most clients registered at once (per instance; they live in its memory). Default 1000. */
  max_clients?: number;
}

/** One tenant: its own issuer `{origin}/{id}`, keys, users and clients. */
export interface TenantConfig {
  id: string;
  /** The name people see on the tenant's pages. Default: the id. */
  name?: string;
  /** Allows http redirect URIs on any host. Default false. */
  development?: boolean;
  /**
   * Development tenants only (refused elsewhere): `login_hint` signs that user in without a
   * password, the login page lists the users as one-click buttons, and the tenant page shows
   * their passwords. For demos and browser tests. Default false.
   */
  demo_login?: boolean;
  /**
   * `"contract"` (default): the service contract exactly. `"standard"`: every grant at the
   * discovery `token_endpoint`, client secret and PKCE verifier together, `expires_in` on every
   * token response, standard discovery fields only — for standard OAuth client libraries.
   */
  profile?: TenantProfile;
  /** Default `"RS256"`. */
  signing_alg?: SigningAlg;
  /** `"opaque"` (default) or RFC 9068 `"jwt"`. */
  access_token_format?: 'opaque' | 'jwt';
  /** Token requests of every client must carry a DPoP proof (RFC 9449). Default false. */
  require_dpop?: boolean;
  /** The token endpoints and userinfo demand a DPoP server nonce (`use_dpop_nonce`). Default false. */
  dpop_nonce?: boolean;
  /** Authorize requests of every client must come through the PAR endpoint (RFC 9126). Default false. */
  require_pushed_authorization_requests?: boolean;
  /**
   * The `aud` a client assertion may have: `"issuer"` (the issuer as a string: RFC 7523bis, FAPI
   * 2.0) or `"issuer_or_token_endpoint"` (also the token endpoint URL, and the PAR endpoint's at
   * PAR, as a string or in an array: RFC 7523 3). Default `"issuer"`; with the standard profile
   * `"issuer_or_token_endpoint"`.
   */
  client_assertion_audience?: ClientAssertionAudience;
  lifetimes?: Partial<Lifetimes>;
  /** Custom claims per scope (custom scopes allowed), beside the standard OIDC mapping: `{ "roles": ["roles"] }`. */
  scope_claims?: Record<string, string[]>;
  users?: UserConfig[];
  clients?: ClientConfig[];
  /** Dynamic client registration (RFC 7591/7592) at `{base}/oauth/register`. Default: none. */
  registration?: RegistrationConfig;
}

/** Where state lives: process memory (default) or a Redis shared by several instances. */
export type StoreConfig =
  | { type: 'memory' }
  | {
      type: 'redis';
      url: string;
      prefix?: string;
      /**
       * Encrypts (AES-256-GCM) the signing keys and authenticates (HMAC) the records kept in Redis;
       * at least 32 random characters (guessable ones are refused). Required
       * unless every tenant is a development tenant. The CLI also reads `OIDC_RP_KEY_ENCRYPTION_SECRET`.
       */
      key_encryption_secret?: string;
    };

/** The whole configuration file. */
export interface ServerConfig {
  /** Ignored; lets editors find `config.schema.json`. */
  $schema?: string;
  tenants: TenantConfig[];
  /** Default `{ "type": "memory" }`. */
  store?: StoreConfig;
  /** The origin users reach the server at (`https://login.example.com`); wins over the Host header. */
  public_origin?: string;
  /** Hosts (`name` or `name:port`) the server answers for besides loopback, when there is no public_origin. */
  trusted_hosts?: string[];
  /** A proxy in front sets X-Forwarded-Proto/-Host/-For; default false. */
  trust_proxy?: boolean;
}

/**
 * Defaults: code 60 s, access token 1 h, ID token 1 h, refresh token 30 days.
 *
 * @example
 * const tenant = { id: 'acme', lifetimes: { ...DEFAULT_LIFETIMES, access_token: 300 } };
 */
export const DEFAULT_LIFETIMES: Readonly<Lifetimes> = {
  authorization_code: 60,
  access_token: 3600,
  id_token: 3600,
  refresh_token: 2_592_000,
};

const BLOCKED_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'ws:', 'wss:', 'ftp:']);

/**
 * A config that cannot be used; `field` is the path of the offending value.
 *
 * @example
 * try { validateConfig(json) } catch (e) { if (e instanceof ConfigError) console.error(e.message) }
 */
export class ConfigError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`invalid config at ${field}: ${problem}`);
    this.name = 'ConfigError';
  }
}

/**
 * Why a redirect URI is not acceptable, or undefined when it is: https, a custom scheme, or http
 * on localhost / 127.0.0.1 (any host in a development tenant); no fragment.
 *
 * @example
 * redirectUriProblem('http://app.example/cb', false); // 'http is only allowed ...'
 */
export function redirectUriProblem(uri: string, development: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URI';
  }
  if (uri.includes('#')) return 'must not contain a fragment';
  if (BLOCKED_SCHEMES.has(url.protocol)) return `the ${url.protocol} scheme cannot be a redirect target`;
  if (url.protocol === 'http:') {
    const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
    if (!loopback && !development) {
      return 'http is only allowed for localhost or 127.0.0.1 unless the tenant sets "development": true; use https';
    }
  }
  return undefined;
}

function unique(values: readonly string[], field: string, what: string): void {
  const seen = new Set<string>();
  values.forEach((v, i) => {
    if (seen.has(v)) throw new ConfigError(`${field}[${i}]`, `duplicate ${what} ${JSON.stringify(v)}`);
    seen.add(v);
  });
}

function readUser(o: UserConfig): User {
  const claims = o.claims ?? {};
  const sub = typeof claims.sub === 'string' ? claims.sub : o.username;
  return { username: o.username, password: o.password, claims: { ...claims, sub } };
}

function readUris(uris: readonly string[] | undefined, field: string, development: boolean): string[] {
  if (uris === undefined) return [];
  uris.forEach((uri, i) => {
    const problem = redirectUriProblem(uri, development);
    if (problem) throw new ConfigError(`${field}[${i}]`, problem);
  });
  unique(uris, field, 'URI');
  return [...uris];
}

/** `resources`: absolute URIs without a fragment (RFC 8707 2), no repeats. */
function readResources(uris: readonly string[] | undefined, field: string): string[] {
  if (uris === undefined) return [];
  uris.forEach((uri, i) => {
    if (!URL.canParse(uri) || uri.includes('#') || /\s/.test(uri)) throw new ConfigError(`${field}[${i}]`, 'must be an absolute URI without a fragment (RFC 8707 2)');
  });
  unique(uris, field, 'resource');
  return [...uris];
}

/** `"fault"`: one name or a list of names, each a known fault, no repeats. */
function readFaults(v: Fault | Fault[] | undefined, field: string): Set<Fault> {
  const names = v === undefined ? [] : Array.isArray(v) ? v : [v];
  unique(names, field, 'fault');
  return new Set(names);
}

function readClient(o: ClientConfig, field: string, development: boolean, tenantFormat: 'opaque' | 'jwt'): Client {
  const grantTypes = o.grant_types ?? ['authorization_code'];
  const defaultTypes: ResponseType[] = grantTypes.includes('authorization_code') ? ['code'] : [];
  const responseTypes = (o.response_types ?? defaultTypes).map((item, i) => {
    const canonical = canonicalResponseType(item);
    if (!canonical) {
      throw new ConfigError(`${field}.response_types[${i}]`, `must be one of ${RESPONSE_TYPES.map((a) => JSON.stringify(a)).join(', ')}`);
    }
    return canonical;
  });
  const audience = o.access_token_audience;
  const client: Client = {
    client_id: o.client_id,
    client_name: o.client_name,
    client_secret: o.client_secret,
    redirect_uris: readUris(o.redirect_uris, `${field}.redirect_uris`, development),
    post_logout_redirect_uris: readUris(o.post_logout_redirect_uris, `${field}.post_logout_redirect_uris`, development),
    grant_types: grantTypes,
    response_types: responseTypes,
    scopes: o.scopes ?? ['openid'],
    skip_consent: o.skip_consent ?? false,
    require_dpop: o.require_dpop ?? false,
    resources: readResources(o.resources, `${field}.resources`),
    dpop_unbound_refresh: o.dpop_unbound_refresh ?? false,
    access_token_audience: audience === undefined ? undefined : typeof audience === 'string' ? [audience] : audience,
    access_token_format: o.access_token_format ?? tenantFormat,
    introspection_audiences: o.introspection_audiences ?? [],
    backchannel_logout_uri: readBackchannelUri(o.backchannel_logout_uri, `${field}.backchannel_logout_uri`, development, o.backchannel_logout_private_network ?? false),
    backchannel_logout_session_required: o.backchannel_logout_session_required ?? false,
    frontchannel_logout_uri: readClientUri(o.frontchannel_logout_uri, `${field}.frontchannel_logout_uri`, development),
    frontchannel_logout_session_required: o.frontchannel_logout_session_required ?? false,
    faults: readFaults(o.fault, `${field}.fault`),
    jwks: o.jwks === undefined ? undefined : readJwks(o.jwks.keys, `${field}.jwks.keys`),
    jwks_uri: readJwksUri(o.jwks_uri, `${field}.jwks_uri`, development),
    token_endpoint_auth_method: o.token_endpoint_auth_method,
    require_pushed_authorization_requests: o.require_pushed_authorization_requests ?? false,
    initiate_login_uri: readClientUri(o.initiate_login_uri, `${field}.initiate_login_uri`, development),
    authorization_signed_response_alg: o.authorization_signed_response_alg,
    request_object_signing_alg: o.request_object_signing_alg,
    require_signed_request_object: o.require_signed_request_object ?? false,
    request_uris: o.request_uris ?? [],
    userinfo_signed_response_alg: o.userinfo_signed_response_alg,
  };
  unique(client.grant_types, `${field}.grant_types`, 'grant type');
  unique(client.response_types, `${field}.response_types`, 'response type');
  unique(client.scopes, `${field}.scopes`, 'scope');
  if (client.access_token_audience) unique(client.access_token_audience, `${field}.access_token_audience`, 'audience');
  unique(client.introspection_audiences, `${field}.introspection_audiences`, 'audience');
  checkClientConsistency(client, field);
  checkRequestObjectSettings(client, field);
  return client;
}

/**
 * A `backchannel_logout_uri` (Back-Channel Logout 1.0 2.2): absolute, no fragment, https, or http
 * on a loopback host in a development tenant only (the server POSTs to it, so never elsewhere in clear).
 * Never an IP address of a private network (cloud metadata, internal services) unless the client
 * sets `backchannel_logout_private_network`; loopback is allowed as before.
 */
function readBackchannelUri(uri: string | undefined, field: string, development: boolean, privateNetwork: boolean): string | undefined {
  if (readClientUri(uri, field, development) === undefined) return undefined;
  const url = new URL(uri as string);
  const privateAddress = privateAddressProblem(url.hostname);
  if (privateAddress !== undefined && !privateNetwork) {
    throw new ConfigError(
      field,
      `is ${privateAddress}: the server would POST logout tokens into a private network. Use the client's public https URL, or set "backchannel_logout_private_network": true on the client if it really is reached there`,
    );
  }
  return uri;
}

/**
 * A client URI the browser is sent to or frames — `frontchannel_logout_uri` (Front-Channel
 * Logout 1.0 §2), `initiate_login_uri` (OIDC Registration 2): absolute, no fragment, https, or
 * http on a loopback host in a development tenant. The back-channel URI starts with the same rules.
 */
function readClientUri(uri: string | undefined, field: string, development: boolean): string | undefined {
  if (uri === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new ConfigError(field, 'must be an absolute https URI');
  }
  if (uri.includes('#')) throw new ConfigError(field, 'must not contain a fragment');
  const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (!(url.protocol === 'https:' || (url.protocol === 'http:' && loopback && development))) {
    throw new ConfigError(field, 'must be an https URI (http only on localhost, 127.0.0.1 or [::1], in a tenant with "development": true)');
  }
  return uri;
}

// RFC 9101 settings: a client that requires signed objects cannot register alg none; request_uris are fetchable URLs.
function checkRequestObjectSettings(client: Client, field: string): void {
  if (client.require_signed_request_object && client.request_object_signing_alg === 'none') {
    throw new ConfigError(`${field}.request_object_signing_alg`, 'cannot be "none" with require_signed_request_object');
  }
  client.request_uris.forEach((uri, i) => {
    let url: URL | undefined;
    try {
      url = new URL(uri);
    } catch {
      url = undefined;
    }
    const loopback = url !== undefined && (url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]');
    if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback))) {
      throw new ConfigError(`${field}.request_uris[${i}]`, 'must be an absolute https URL (http only on localhost, 127.0.0.1 or [::1])');
    }
  });
}

function checkClientConsistency(client: Client, field: string): void {
  const has = (g: GrantType) => client.grant_types.includes(g);
  client.response_types.forEach((type, i) => {
    if (type.includes('code') && !has('authorization_code')) {
      throw new ConfigError(`${field}.response_types[${i}]`, `"${type}" needs "authorization_code" in grant_types`);
    }
    if ((type === 'token' || type === 'id_token token') && !has('implicit')) {
      throw new ConfigError(`${field}.response_types[${i}]`, `"${type}" needs "implicit" in grant_types`);
    }
  });
  if (has('client_credentials') && !isConfidential(client)) {
    throw new ConfigError(`${field}.grant_types`, '"client_credentials" needs a client_secret, jwks or jwks_uri (public clients cannot use it)');
  }
  checkAuthMethod(client, field);
  if (client.dpop_unbound_refresh && !isConfidential(client)) {
    throw new ConfigError(`${field}.dpop_unbound_refresh`, "is for confidential clients only: a public client's refresh token is always bound to its DPoP key (RFC 9449 5); remove it");
  }
  const interactive = has('authorization_code') || has('implicit');
  if (interactive && client.redirect_uris.length === 0) {
    throw new ConfigError(`${field}.redirect_uris`, 'needs at least one URI for the authorization_code or implicit grant');
  }
}

/** JWK members only a private or symmetric key has: a registered key must be public. */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

function readJwks(keys: Record<string, unknown>[], field: string): Client['jwks'] {
  if (keys.length === 0) throw new ConfigError(field, 'needs at least one public key');
  return keys.map((key, i) => {
    if (!['RSA', 'EC', 'OKP'].includes(key.kty as string)) throw new ConfigError(`${field}[${i}].kty`, 'must be "RSA", "EC" or "OKP"');
    const secret = PRIVATE_JWK_MEMBERS.find((member) => member in key);
    if (secret) throw new ConfigError(`${field}[${i}].${secret}`, 'is private key material; register the public key only');
    return { ...key, kty: key.kty as string };
  });
}

function readJwksUri(uri: string | undefined, field: string, development: boolean): string | undefined {
  if (uri === undefined) return undefined;
  if (!URL.canParse(uri)) throw new ConfigError(field, 'must be an absolute URL');
  const url = new URL(uri);
  const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && (loopback || development))) {
    throw new ConfigError(field, 'must be https (http only on loopback or in a development tenant)');
  }
  return uri;
}

// The registered method must be one the client has the credentials for.
function checkAuthMethod(client: Client, field: string): void {
  if (client.jwks !== undefined && client.jwks_uri !== undefined) {
    throw new ConfigError(`${field}.jwks_uri`, 'give jwks or jwks_uri, not both (RFC 7591 2)');
  }
  const method = client.token_endpoint_auth_method;
  const keys = client.jwks !== undefined || client.jwks_uri !== undefined;
  const secret = client.client_secret !== undefined;
  if (method === 'private_key_jwt' && !keys) throw new ConfigError(`${field}.token_endpoint_auth_method`, '"private_key_jwt" needs jwks or jwks_uri');
  if (method === 'none' && (keys || secret)) throw new ConfigError(`${field}.token_endpoint_auth_method`, '"none" is for public clients: remove client_secret, jwks and jwks_uri');
  if (method?.startsWith('client_secret') && !secret) {
    throw new ConfigError(`${field}.token_endpoint_auth_method`, `"${method}" needs a client_secret`);
  }
  // A secret that keys HMAC assertions only must key at least the shortest (HS256).
  const short = method === 'client_secret_jwt' ? hmacSecretProblem(client.client_secret as string, 'HS256') : undefined;
  if (short !== undefined) throw new ConfigError(`${field}.client_secret`, `${short} for "client_secret_jwt": register a random secret of 32 bytes or more (64 for HS512); ${GENERATE_SECRET}`);
}

/** `scope_claims`: custom claims per scope; standard claims keep their standard scopes. */
function readScopeClaims(v: Record<string, string[]> | undefined, field: string): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  for (const [scope, names] of Object.entries(v ?? {})) {
    names.forEach((name, i) => {
      if (name === 'sub') throw new ConfigError(`${field}.${scope}[${i}]`, '"sub" is always released; it needs no scope');
      if (STANDARD_CLAIM_TYPES[name] !== undefined) {
        throw new ConfigError(`${field}.${scope}[${i}]`, `"${name}" is a standard claim; it is released by its standard scope (OIDC Core 5.4)`);
      }
    });
    unique(names, `${field}.${scope}`, 'claim');
    out.set(scope, [...names]);
  }
  return out;
}

function readRegistration(o: RegistrationConfig | undefined, field: string): RegistrationPolicy | undefined {
  if (o === undefined) return undefined;
  if (o.access === 'initial_access_token' && o.initial_access_token === undefined) {
    throw new ConfigError(`${field}.initial_access_token`, 'is required with "access": "initial_access_token"');
  }
  if (o.access === 'open' && o.initial_access_token !== undefined) {
    throw new ConfigError(`${field}.initial_access_token`, 'is only used with "access": "initial_access_token"');
  }
  const token = o.initial_access_token === undefined ? undefined : randomSecret(o.initial_access_token, `${field}.initial_access_token`, 32);
  const scopes = o.scopes ?? ['openid'];
  unique(scopes, `${field}.scopes`, 'scope');
  return { access: o.access, initialAccessToken: token, scopes, resources: readResources(o.resources, `${field}.resources`), maxClients: o.max_clients ?? 1000 };
}

function readTenant(o: TenantConfig, field: string): Tenant {
  const id = o.id;
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/.test(id)) {
    throw new ConfigError(`${field}.id`, 'must be 1-63 characters of letters, digits, "-" and "_", starting with a letter or digit');
  }
  const development = o.development ?? false;
  const demoLogin = o.demo_login ?? false;
  if (demoLogin && !development) {
    throw new ConfigError(`${field}.demo_login`, 'signs users in without a password, so it needs "development": true on the tenant');
  }
  const users = (o.users ?? []).map(readUser);
  const accessTokenFormat = o.access_token_format ?? 'opaque';
  const clients = (o.clients ?? []).map((c, i) => readClient(c, `${field}.clients[${i}]`, development, accessTokenFormat));
  const signingAlg = o.signing_alg ?? 'RS256';
  // JARM responses and signed userinfo are signed with the tenant's one key.
  clients.forEach((client, i) => {
    const jarmAlg = client.authorization_signed_response_alg;
    if (jarmAlg !== undefined && jarmAlg !== signingAlg) throw new ConfigError(`${field}.clients[${i}].authorization_signed_response_alg`, `must be the tenant's signing_alg, "${signingAlg}"`);
    const alg = client.userinfo_signed_response_alg;
    if (alg !== undefined && alg !== signingAlg) {
      throw new ConfigError(`${field}.clients[${i}].userinfo_signed_response_alg`, `must be the tenant's signing_alg (${signingAlg}): userinfo is signed with the tenant's key`);
    }
  });
  unique(users.map((u) => u.username), `${field}.users`, 'username');
  unique(users.map((u) => u.claims.sub), `${field}.users`, 'claims.sub');
  unique(clients.map((c) => c.client_id), `${field}.clients`, 'client_id');
  const corsOrigins = new Set<string>();
  for (const client of clients) {
    for (const uri of client.redirect_uris) {
      const url = new URL(uri);
      if (url.protocol === 'https:' || url.protocol === 'http:') corsOrigins.add(url.origin);
    }
  }
  return {
    id,
    name: o.name ?? id,
    development,
    demo_login: demoLogin,
    profile: o.profile ?? 'contract',
    signing_alg: signingAlg,
    access_token_format: accessTokenFormat,
    require_dpop: o.require_dpop ?? false,
    dpop_nonce: o.dpop_nonce ?? false,
    require_pushed_authorization_requests: o.require_pushed_authorization_requests ?? false,
    client_assertion_audience: o.client_assertion_audience ?? (o.profile === 'standard' ? 'issuer_or_token_endpoint' : 'issuer'),
    lifetimes: { ...DEFAULT_LIFETIMES, ...o.lifetimes },
    scope_claims: readScopeClaims(o.scope_claims, `${field}.scope_claims`),
    users: new Map(users.map((u) => [u.username, u])),
    clients: new Map(clients.map((c) => [c.client_id, c])),
    registration: readRegistration(o.registration, `${field}.registration`),
    corsOrigins,
    hasFaults: clients.some((c) => c.faults.size > 0),
  };
}

/** Configs built by this package whose shape a test checks against the file schema. */
const knownShapes = new WeakSet<object>();

/**
 * Marks `config`, built by this package, as fitting the file schema: validating it skips the
 * schema (building the schema is a visible share of the command line's start-up) and still runs
 * every cross-field rule. Only for a config nothing can change before it is validated: the
 * command line's built-in demo config. test/demo-config-shape.test.ts keeps that config
 * checked against the schema.
 *
 * @example
 * const config = knownShape(demoConfig());
 */
export function knownShape<T extends ServerConfig>(config: T): T {
  knownShapes.add(config);
  return config;
}

function checkShape(input: unknown): ServerConfig {
  if (typeof input === 'object' && input !== null && knownShapes.has(input)) return input as ServerConfig;
  const problem = shapeProblem(input);
  if (problem) throw new ConfigError(problem.field, problem.problem);
  return input as ServerConfig;
}

/** Key prefix of the Redis store when the config names none. */
export const DEFAULT_REDIS_PREFIX = 'oidc-rp:server:';

/**
 * The `store` key with its defaults: memory, or Redis at a `redis://` / `rediss://` URL with a key prefix.
 *
 * @example
 * readStoreConfig({ type: 'redis', url: 'redis://127.0.0.1:6379' }); // { type: 'redis', url, prefix: 'oidc-rp:server:' }
 */
export function readStoreConfig(
  v?: unknown,
): { type: 'memory' } | { type: 'redis'; url: string; prefix: string; keyEncryptionSecret?: string } {
  // No store key: the memory store, without building the schema to check a value it fits.
  if (v === undefined) return { type: 'memory' };
  const { store: o = { type: 'memory' } } = checkShape({ tenants: [], store: v });
  if (o.type === 'memory') {
    const extra = Object.keys(o).find((k) => k !== 'type');
    if (extra) throw new ConfigError(`store.${extra}`, 'only applies to "type": "redis"');
    return { type: 'memory' };
  }
  if (o.url === undefined) throw new ConfigError('store.url', 'is required with "type": "redis", e.g. "redis://127.0.0.1:6379"');
  const url = o.url;
  if (!/^rediss?:\/\/[^/?#]/.test(url) || !URL.canParse(url)) {
    throw new ConfigError('store.url', 'must be a redis:// or rediss:// URL with a host, e.g. "redis://127.0.0.1:6379"');
  }
  const prefix = o.prefix ?? DEFAULT_REDIS_PREFIX;
  if (prefix.length > 64 || /\s/.test(prefix)) throw new ConfigError('store.prefix', 'must be at most 64 characters without spaces');
  const secret = o.key_encryption_secret === undefined ? undefined : keyEncryptionSecret(o.key_encryption_secret, 'store.key_encryption_secret');
  return { type: 'redis', url, prefix, ...(secret !== undefined ? { keyEncryptionSecret: secret } : {}) };
}

// --- Deployment security settings: key encryption, public origin, trusted hosts, proxy ---

/** These also take values from options and the environment, which the file schema never saw. */
function nonEmptyText(v: unknown, field: string): string {
  if (typeof v !== 'string' || v === '') throw new ConfigError(field, 'must be a non-empty string');
  return v;
}

/**
 * A secret of at least `minLength` characters that looks random (crypto/secret-strength.ts).
 *
 * @example
 * randomSecret(process.env.OIDC_RP_CONTROL_SECRET, 'OIDC_RP_CONTROL_SECRET', 16);
 */
export function randomSecret(v: unknown, field: string, minLength: number): string {
  const secret = nonEmptyText(v, field);
  if (secret.length < minLength) throw new ConfigError(field, `must be at least ${minLength} characters: ${GENERATE_SECRET}`);
  const weak = weakSecretProblem(secret);
  if (weak !== undefined) throw new ConfigError(field, `must be random, and this one ${weak} (guessable): ${GENERATE_SECRET}`);
  return secret;
}

/**
 * A key encryption secret: at least 32 characters that look random (e.g. `openssl rand -base64 32`).
 *
 * @example
 * keyEncryptionSecret(process.env.OIDC_RP_KEY_ENCRYPTION_SECRET, 'OIDC_RP_KEY_ENCRYPTION_SECRET');
 */
export function keyEncryptionSecret(v: unknown, field: string): string {
  return randomSecret(v, field, 32);
}

/**
 * A public origin: `https://host[:port]` (http only for a loopback host), nothing after it.
 *
 * @example
 * publicOrigin('https://login.example.com', 'public_origin'); // 'https://login.example.com'
 */
export function publicOrigin(v: unknown, field: string): string {
  const value = nonEmptyText(v, field);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(field, 'must be an origin such as "https://login.example.com"');
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== value.replace(/\/$/, '')) {
    throw new ConfigError(field, 'must be an origin such as "https://login.example.com": scheme and host, no path, query or credentials');
  }
  const loopback = url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\./.test(url.hostname);
  if (url.protocol === 'http:' && !loopback) throw new ConfigError(field, 'must use https (http only for localhost or 127.0.0.1)');
  return url.origin;
}

function trustedHost(v: unknown, field: string): string {
  const host = nonEmptyText(v, field).toLowerCase();
  if (!URL.canParse(`http://${host}`) || new URL(`http://${host}`).host !== host.replace(/:80$/, '')) {
    throw new ConfigError(field, 'must be a host name or address, optionally with a port, e.g. "login.internal:8443"');
  }
  return host;
}

/** The deployment settings with defaults: no public origin, no trusted hosts, no proxy. */
export interface OriginConfig {
  publicOrigin?: string;
  trustedHosts: ReadonlySet<string>;
  trustProxy: boolean;
}

/**
 * `public_origin`, `trusted_hosts` and `trust_proxy` of a config, validated.
 *
 * @example
 * readOriginConfig({ tenants, public_origin: 'https://login.example.com' });
 */
export function readOriginConfig(config: ServerConfig): OriginConfig {
  const origin = config.public_origin === undefined ? undefined : publicOrigin(config.public_origin, 'public_origin');
  const hosts = (config.trusted_hosts ?? []).map((h, i) => trustedHost(h, `trusted_hosts[${i}]`));
  return {
    ...(origin !== undefined ? { publicOrigin: origin } : {}),
    trustedHosts: new Set(hosts),
    trustProxy: config.trust_proxy ?? false,
  };
}

/**
 * Validates a parsed config and fills in defaults. Throws {@link ConfigError} naming the field.
 *
 * @example
 * const tenants = validateConfig(JSON.parse(fileText));
 */
export function validateConfig(input: unknown): Tenant[] {
  const config = checkShape(input);
  readStoreConfig(config.store);
  const tenants = config.tenants.map((t, i) => readTenant(t, `tenants[${i}]`));
  readOriginConfig(config);
  if (tenants.length === 0) throw new ConfigError('tenants', 'must contain at least one tenant');
  unique(tenants.map((t) => t.id), 'tenants', 'tenant id');
  return tenants;
}
