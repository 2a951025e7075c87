/**
 * Every failure the SDK reports is an {@link OidcError} with a stable `code`.
 * Messages say what happened and what to do; they never contain a token, a code or a secret.
 */

import { DEV } from './dev';
import { safeErrorValue } from './error-text';

/** Stable, machine-readable error codes. `switch (err.code)` narrows on this union. */
export type OidcErrorCode =
  // Caller mistakes, detected before any request is sent.
  | 'invalid_options'
  | 'client_secret_in_browser'
  | 'pkce_with_client_secret'
  // Transport.
  | 'request_timeout'
  | 'network_error'
  | 'redirect_refused'
  // Provider metadata.
  | 'discovery_failed'
  | 'discovery_issuer_mismatch'
  | 'invalid_provider_metadata'
  | 'host_class_mismatch'
  // Authorization response (the redirect back to the client).
  | 'authorization_error'
  | 'authorization_response_invalid'
  | 'state_missing'
  | 'state_mismatch'
  | 'iss_missing'
  | 'iss_mismatch'
  // JARM: the signed authorization response, one code per rule.
  | 'jarm_response_missing'
  | 'jarm_response_malformed'
  | 'jarm_alg_not_allowed'
  | 'jarm_unknown_kid'
  | 'jarm_signature_invalid'
  | 'jarm_iss_mismatch'
  | 'jarm_aud_mismatch'
  | 'jarm_exp_missing'
  | 'jarm_expired'
  // Token endpoint.
  | 'token_endpoint_error'
  | 'token_response_invalid'
  | 'id_token_missing'
  // Pushed authorization requests (RFC 9126).
  | 'par_response_invalid'
  // Request objects (RFC 9101).
  | 'request_object_key_unsupported'
  | 'request_object_alg_not_supported'
  // WebFinger issuer discovery (OpenID Connect Discovery 2).
  | 'webfinger_failed'
  | 'webfinger_invalid'
  // Finding an API's authorization server (RFC 9728) and registering with it (RFC 7591/7592).
  | 'resource_challenge_missing'
  | 'resource_metadata_invalid'
  | 'resource_metadata_mismatch'
  | 'authorization_server_not_listed'
  | 'authorization_server_insecure'
  | 'registration_not_supported'
  | 'client_registration_failed'
  | 'client_registration_invalid'
  // Resource indicators (RFC 8707): a resource the client was not configured with.
  | 'resource_not_configured'
  // DPoP (RFC 9449).
  | 'dpop_key_unsupported'
  | 'dpop_token_type_mismatch'
  // Client authentication with keys (RFC 7523).
  | 'client_assertion_key_unsupported'
  // JWKS.
  | 'jwks_fetch_failed'
  | 'jwks_invalid'
  // ID token validation, one code per rule.
  | 'id_token_malformed'
  | 'id_token_alg_not_allowed'
  | 'id_token_unknown_kid'
  | 'id_token_signature_invalid'
  | 'id_token_iss_mismatch'
  | 'id_token_aud_mismatch'
  | 'id_token_azp_missing'
  | 'id_token_azp_mismatch'
  | 'id_token_expired'
  | 'id_token_iat_missing'
  | 'id_token_iat_future'
  | 'id_token_nbf_future'
  | 'id_token_nonce_missing'
  | 'id_token_nonce_mismatch'
  | 'id_token_auth_time_missing'
  | 'id_token_auth_time_too_old'
  | 'id_token_sub_missing'
  | 'id_token_sub_mismatch'
  | 'id_token_at_hash_missing'
  | 'id_token_at_hash_mismatch'
  | 'id_token_c_hash_missing'
  | 'id_token_c_hash_mismatch'
  // Back-channel logout tokens, one code per rule.
  | 'logout_token_malformed'
  | 'logout_token_alg_not_allowed'
  | 'logout_token_typ_invalid'
  | 'logout_token_unknown_kid'
  | 'logout_token_signature_invalid'
  | 'logout_token_iss_mismatch'
  | 'logout_token_aud_mismatch'
  | 'logout_token_iat_invalid'
  | 'logout_token_expired'
  | 'logout_token_jti_missing'
  | 'logout_token_events_invalid'
  | 'logout_token_nonce_present'
  | 'logout_token_sub_sid_missing'
  // RP-initiated logout: the post-logout redirect's `state` is not the one the logout sent.
  | 'logout_state_mismatch'
  | 'logout_token_replayed'
  // Front-channel logout (Front-Channel Logout 1.0) and session management (Session Management 1.0).
  | 'frontchannel_logout_iss_mismatch'
  | 'frontchannel_logout_sid_missing'
  | 'session_state_invalid'
  // UserInfo.
  | 'userinfo_error'
  | 'userinfo_sub_mismatch'
  // Aggregated and distributed claims (OIDC Core 5.6.2): why a claim source was not used.
  | 'claims_source_invalid'
  | 'claims_source_insecure'
  | 'claims_source_not_trusted'
  | 'claims_source_error'
  | 'claims_source_unsigned'
  | 'claims_signature_invalid'
  // Third-party initiated login (OIDC Core 4).
  | 'initiate_login_invalid'
  | 'initiate_login_iss_mismatch'
  | 'initiate_login_target_not_allowed'
  // Signed userinfo (application/jwt).
  | 'userinfo_jwt_invalid'
  | 'userinfo_alg_not_allowed'
  | 'userinfo_signature_invalid'
  | 'userinfo_iss_mismatch'
  | 'userinfo_aud_mismatch'
  | 'userinfo_encrypted_unsupported'
  // Stateful wrappers (browser, node).
  | 'transaction_not_found'
  | 'callback_replayed'
  | 'transaction_expired'
  | 'transaction_invalid'
  | 'login_required'
  | 'refresh_token_missing'
  | 'popup_blocked'
  | 'popup_closed'
  | 'dpop_key_unavailable'
  // Shared token cache (node's Redis adapter).
  | 'cache_unavailable'
  | 'cache_entry_invalid'
  // Server-side sessions (node's session layer).
  | 'session_too_large'
  | 'session_store_unavailable'
  | 'session_refresh_interrupted'
  | 'session_refresh_busy'
  | 'request_body_too_large'
  // Resource servers (access-token verification).
  | 'access_token_missing'
  | 'access_token_invalid'
  | 'access_token_expired'
  | 'insufficient_scope'
  | 'dpop_proof_invalid'
  | 'dpop_nonce_required'
  | 'introspection_failed'
  | 'authorization_header_invalid'
  | 'access_token_malformed'
  | 'access_token_alg_not_allowed'
  | 'access_token_typ_invalid'
  | 'access_token_unknown_kid'
  | 'access_token_signature_invalid'
  | 'access_token_iss_mismatch'
  | 'access_token_aud_mismatch'
  | 'access_token_nbf_future'
  | 'access_token_iat_future'
  | 'access_token_claim_missing'
  | 'dpop_binding_mismatch'
  | 'dpop_proof_replayed';

const OIDC_ERROR_MARK = Symbol.for('oidc-rp.error');

/**
 * Base class of every error the SDK throws. `message` is the full text; the package's
 * production build (the `production` export condition) leaves the SDK's own texts out, and
 * the message is then the code followed by "(oidc-rp error code)".
 */
export class OidcError extends Error {
  // `declare`: assigned in the constructor, so no class-field initialisers are emitted.
  declare readonly code: OidcErrorCode;
  declare readonly cause?: unknown;

  constructor(code: OidcErrorCode, message?: string, options?: { cause?: unknown }) {
    super(message || `${code} (oidc-rp error code)`);
    this.name = 'OidcError';
    this.code = code;
    // Only when given: an error without a cause prints without a `[cause]: undefined` line.
    if (options && 'cause' in options) this.cause = options.cause;
    Object.defineProperty(this, OIDC_ERROR_MARK, { value: true });
  }

  /**
   * `err instanceof OidcError` holds across copies of this package (its ESM and CJS builds
   * loaded side by side, or two installed versions): it checks the same brand as
   * `isOidcError`. Subclasses keep the ordinary prototype check.
   *
   * @example
   * ```ts
   * try { await discover(issuer); } catch (err) { if (err instanceof OidcError) console.error(err.code); }
   * ```
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // `this` is OidcError exactly when its parent is Error. Not `this === OidcError`: a class that
    // names itself in its own body is emitted as `class _OidcError`, and Node then prints errors
    // as `_OidcError` (console.log, an uncaught throw).
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class right of `instanceof`, possibly a subclass.
    return Object.getPrototypeOf(this) === Error ? isOidcError(value) : super[Symbol.hasInstance](value);
  }
}

/** The provider redirected back with `error` (RFC 6749 4.1.2.1). */
export class AuthorizationResponseError extends OidcError {
  declare readonly error: string;
  declare readonly error_description: string | undefined;
  declare readonly state: string | undefined;

  constructor(params: { error: string; error_description?: string | undefined; state?: string | undefined }) {
    super(
      'authorization_error',
      DEV
        ? `The provider refused the login ("${safeErrorValue(params.error)}"` +
            (params.error_description ? `: ${truncate(params.error_description)}` : '') +
            '); start a new login, or check the client registration.'
        : `authorization_error ${safeErrorValue(params.error)}`,
    );
    this.name = 'AuthorizationResponseError';
    this.error = params.error;
    this.error_description = params.error_description;
    this.state = params.state;
  }
}

/** The token endpoint answered with an OAuth error body (RFC 6749 5.2) or an unexpected status. */
export class TokenEndpointError extends OidcError {
  declare readonly status: number;
  declare readonly error: string;
  declare readonly error_description: string | undefined;

  constructor(params: { status: number; error: string; error_description?: string | undefined }) {
    super(
      'token_endpoint_error',
      DEV
        ? `The token endpoint answered HTTP ${params.status} "${safeErrorValue(params.error)}"` +
            (params.error_description ? `: ${truncate(params.error_description)}` : '') +
            '; ' +
            hintFor(params.error)
        : `token_endpoint_error ${safeErrorValue(params.error)}`,
    );
    this.name = 'TokenEndpointError';
    this.status = params.status;
    this.error = params.error;
    this.error_description = params.error_description;
  }
}

/** True for errors thrown by any copy of oidc-rp (works across duplicate installs). */
export function isOidcError(value: unknown): value is OidcError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[OIDC_ERROR_MARK] === true;
}

function hintFor(error: string): string {
  switch (error) {
    case 'invalid_grant':
      return 'the code or refresh token is expired, used or revoked: log in again.';
    case 'invalid_client':
      return 'check the client ID, secret and authMethod.';
    case 'unsupported_grant_type':
      return 'check the token endpoint set for this grant.';
    case 'invalid_scope':
      return 'request only scopes registered for the client.';
    case 'invalid_target':
      return 'the provider does not let this client get tokens for that resource (RFC 8707): ask only for the APIs registered for the client, as their exact resource URIs.';
    case 'use_dpop_nonce':
      return 'the provider asked for a new DPoP nonce again after one retry: check its nonce settings and the clock.';
    case 'invalid_dpop_proof':
      return "the provider refused the DPoP proof: check the key's algorithm is in its dpop_signing_alg_values_supported, and the clock.";
    default:
      return 'check the request and the client registration.';
  }
}

function truncate(text: string): string {
  let clean = '';
  for (const char of text) clean += char < ' ' || char === '\u007f' ? ' ' : char;
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
}
