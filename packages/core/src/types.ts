/** Plain data shared by every protocol step. */

/** A grant a provider's token endpoint serves (see `tokenEndpointFor`). */
export type GrantType = 'authorization_code' | 'refresh_token' | 'client_credentials';

/** Every response type the SDK supports (word order as the service spells them; a provider compares them as sets). */
export type ResponseType =
  | 'code'
  | 'code id_token'
  | 'code token'
  | 'code token id_token'
  | 'token'
  | 'id_token token'
  | 'id_token';

/** How the provider returns the authorization response: in the query, the fragment or a posted form. */
export type ResponseMode = 'query' | 'fragment' | 'form_post';

/**
 * OpenID Provider metadata (OIDC Discovery 1.0 names), plus two oidc-rp extensions that
 * describe providers whose token endpoint differs per grant, like this service.
 */
export interface ProviderMetadata {
  issuer: string;
  authorization_endpoint: string;
  /** Default token endpoint, used for any grant not listed in `token_endpoint_by_grant`. */
  token_endpoint: string;
  /** oidc-rp extension: a token endpoint per grant (the service: `/oidc/token` for codes, `/oauth/token` otherwise). */
  token_endpoint_by_grant?: Partial<Record<GrantType, string>>;
  /**
   * oidc-rp extension: `true` when the provider takes `client_secret` *or* `code_verifier`
   * in the code-exchange body, never both (this service): a confidential client then sends
   * the verifier beside HTTP Basic, or logs in without PKCE. Otherwise PKCE and client
   * authentication are sent together, as RFC 9700 recommends.
   */
  pkce_replaces_client_secret?: boolean;
  jwks_uri?: string;
  userinfo_endpoint?: string;
  revocation_endpoint?: string;
  /** RFC 7662 token introspection, for resource servers with opaque access tokens. */
  introspection_endpoint?: string;
  end_session_endpoint?: string;
  /** Session Management 1.0: the provider's iframe that answers whether the session changed. */
  check_session_iframe?: string;
  /** Front-Channel Logout 1.0: the provider loads `frontchannel_logout_uri`s at logout. */
  frontchannel_logout_supported?: boolean;
  /** Front-Channel Logout 1.0: it sends them `iss` and `sid`. */
  frontchannel_logout_session_supported?: boolean;
  authorization_response_iss_parameter_supported?: boolean;
  id_token_signing_alg_values_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
  /** Algorithms for `private_key_jwt` and `client_secret_jwt` assertions. */
  token_endpoint_auth_signing_alg_values_supported?: string[];
  code_challenge_methods_supported?: string[];
  /** RFC 9126: where authorization requests are pushed. */
  pushed_authorization_request_endpoint?: string;
  /** RFC 9126: the provider accepts only pushed authorization requests. */
  require_pushed_authorization_requests?: boolean;
  response_types_supported?: string[];
  response_modes_supported?: string[];
  /** JARM: the algorithms the provider signs authorization responses with. */
  authorization_signing_alg_values_supported?: string[];
  scopes_supported?: string[];
  [extension: string]: unknown;
}

/** The names of the client authentication methods (see `ClientAuth` for the values that do them). */
export type ClientAuthMethod = 'client_secret_post' | 'client_secret_basic' | 'none';

/** The client, as the provider registered it. How it authenticates is a separate `ClientAuth` argument. */
export interface ClientConfig {
  clientId: string;
  /**
   * The one JWS algorithm the client is registered for (`id_token_signed_response_alg`): ID
   * tokens signed with another are refused, even by a key the provider publishes. Default:
   * unset, any asymmetric algorithm the provider lists.
   */
  signingAlgorithm?: string | undefined;
}

/** Network settings accepted by every function that talks to the provider. */
export interface HttpOptions {
  /** Custom fetch (tests, proxies, instrumentation). Default: the global fetch. */
  fetch?: typeof fetch;
  /** Per-request timeout in milliseconds. Default 10 000. */
  timeout?: number;
  /** Aborts the request when signalled. */
  signal?: AbortSignal;
}

/**
 * What the client must persist between sending the user to the provider and the callback.
 * Plain JSON: safe to store in sessionStorage or seal into a cookie.
 */
export interface AuthorizationTransaction {
  state: string;
  nonce?: string;
  codeVerifier?: string;
  redirectUri: string;
  responseType: ResponseType;
  responseMode: ResponseMode;
  /**
   * JARM: the response comes as one signed `response` JWT, delivered as `responseMode` says
   * (response mode `query.jwt`, `fragment.jwt` or `form_post.jwt`); a plain response is refused.
   */
  jarm?: boolean;
  scope: string;
  clientId: string;
  issuer: string;
  maxAge?: number;
  /** Epoch seconds. */
  createdAt: number;
  /** Caller data carried through the login (e.g. the page to return to). Not sent to the provider. */
  appState?: unknown;
}

/** Standard ID token claims (OIDC Core 2 and 5.1), open to custom claims. */
export interface IdTokenClaims {
  iss: string;
  sub: string;
  aud: string | string[];
  exp: number;
  iat: number;
  nbf?: number;
  auth_time?: number;
  nonce?: string;
  azp?: string;
  at_hash?: string;
  c_hash?: string;
  acr?: string;
  amr?: string[];
  sid?: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  preferred_username?: string;
  email?: string;
  email_verified?: boolean;
  picture?: string;
  [claim: string]: unknown;
}

/** One normalised shape for every token response, whatever the grant or endpoint. */
export interface TokenSet {
  accessToken: string;
  /**
   * `"DPoP"` for a token bound to a DPoP key (the call had a `dpop` handle; use it with that
   * handle only), else `"Bearer"`. The provider's value is compared case-insensitively.
   */
  tokenType: 'Bearer' | 'DPoP';
  /** Epoch seconds; from `expires_in`, else a JWT access token's `exp`, else undefined (unknown lifetime). */
  expiresAt?: number;
  refreshToken?: string;
  idToken?: string;
  /** Validated ID token claims, when an ID token came with the response and was validated. */
  claims?: IdTokenClaims;
  scope?: string;
}
