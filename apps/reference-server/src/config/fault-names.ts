/**
 * The misbehaving mode's vocabulary. A client's `"fault"` (one name or a list) makes the server
 * break one rule of the protocol for that client, like the negative tests of the OpenID
 * relying-party certification, so a client library's defences can be proven over real HTTP.
 * Each fault hands the client something it must refuse, except `jwks_key_rotated` and
 * `token_response_token_type_lowercase`, which a correct client accepts, and
 * `dpop_nonce_required`, which it answers by retrying once with the nonce. The PAR and client
 * assertion faults answer a valid request with a refusal or a malformed answer. Test use only.
 * The names live here, for the config to check; what each does is in faults/.
 */

/**
 * The conformance faults a client can be configured with (see the fault table in the README),
 * the DPoP ones ({@link DPOP_FAULTS}), the PAR ones ({@link PAR_FAULTS}) and the client
 * assertion ones ({@link CLIENT_ASSERTION_FAULTS}) among them.
 *
 * @example
 * { "client_id": "broken", "fault": ["id_token_wrong_aud", "redirect_missing_iss"], ... }
 */
export const FAULTS = [
  // ID tokens: every ID token issued to the client (code exchange and authorize response).
  'id_token_bad_signature',
  'id_token_alg_none',
  'id_token_hs256_with_public_key',
  'id_token_unknown_kid',
  'id_token_wrong_iss',
  'id_token_wrong_aud',
  'id_token_multiple_aud_no_azp',
  'id_token_azp_mismatch',
  'id_token_expired',
  'id_token_iat_future',
  'id_token_nonce_mismatch',
  'id_token_missing_nonce',
  'id_token_missing_sub',
  'id_token_bad_at_hash',
  'id_token_bad_c_hash',
  'id_token_missing_c_hash',
  'id_token_wrong_alg',
  'jwks_key_rotated',
  // Refresh responses: an ID token (which a refresh here never carries) of another issuer or user.
  'refresh_id_token_wrong_iss',
  'refresh_id_token_wrong_sub',
  // Logout tokens (Back-Channel Logout 1.0) sent to the client at RP-initiated logout.
  'logout_token_wrong_alg',
  // The redirect back to the client (success and error responses).
  'redirect_missing_state',
  'redirect_wrong_state',
  'redirect_wrong_iss',
  'redirect_missing_iss',
  // Token responses (code exchange, refresh, client credentials).
  'token_response_not_json',
  'token_response_missing_access_token',
  'token_response_token_type_lowercase',
  'token_response_unknown_token_type',
  'id_token_missing',
  // Documents and endpoints.
  'discovery_issuer_mismatch',
  'userinfo_wrong_sub',
  // DPoP (RFC 9449): token endpoints and userinfo, for requests that carry a proof.
  'token_response_token_type_bearer',
  'dpop_proof_replayed',
  'dpop_nonce_required',
  // Pushed authorization requests (RFC 9126): a valid push answered wrongly, or its request_uri refused at authorize.
  'par_request_refused',
  'par_response_missing_request_uri',
  'par_response_bad_expires_in',
  'par_request_uri_expired',
  // Client assertions (RFC 7523): a valid assertion refused (401 invalid_client) as if one of its checks failed.
  'client_assertion_replayed',
  'client_assertion_wrong_aud',
  'client_assertion_expired',
  'client_assertion_unknown_key',
  // Claims, ID-token and DPoP faults of the certification plans (cert-claims): ID tokens missing a
  // required claim, `aud` as a one-element array (accepted), no `kid` (one key: accepted; several
  // kid-less keys: refused), no `at_hash` where the response type requires it, a broken ES256
  // signature, the FAPI 2.0 alternate algorithm (RS256); odd-case DPoP (accepted); aggregated and
  // distributed claims in userinfo; a third-party login initiation with a forged `iss`.
  'id_token_missing_iat',
  'id_token_missing_aud',
  'id_token_missing_iss',
  'id_token_missing_exp',
  'id_token_aud_single_array',
  'id_token_no_kid',
  'id_token_no_kid_multiple_keys',
  'id_token_missing_at_hash',
  'id_token_bad_signature_es256',
  'id_token_alternate_alg_rs256',
  'token_response_token_type_inverted_case',
  'userinfo_dpop_challenge_odd_case',
  'userinfo_aggregated_claims',
  'userinfo_aggregated_claims_unsigned',
  'userinfo_aggregated_claims_bad_signature',
  'userinfo_distributed_claims',
  'userinfo_distributed_claims_other_origin',
  'userinfo_distributed_claims_insecure_endpoint',
  'initiate_login_wrong_iss',
  // Response types and delivery (certification): every valid authorize request of the client
  // answered with `error=login_required`, delivered in the request's response mode (form_post too).
  'authorize_error_login_required',
  // Certification harness (tests/certification): logout tokens of the OpenID suite's
  // back-channel logout modules, sent at RP-initiated logout (faults/logout-token-claims.ts).
  'logout_token_alg_none',
  'logout_token_missing_events',
  'logout_token_with_nonce',
  'logout_token_wrong_aud',
  'logout_token_wrong_events',
  'logout_token_wrong_iss',
  // Request objects (RFC 9101) and signed userinfo (OIDC Core 5.3.2): a valid request object refused
  // (invalid_request_object) as if a check failed; signed userinfo broken in one rule each.
  'request_object_refused',
  'userinfo_signed_wrong_alg',
  'userinfo_signed_unknown_key',
  'userinfo_signed_wrong_iss',
  'userinfo_signed_wrong_aud',
  'userinfo_signed_alg_none',
  'userinfo_encrypted',
  // Logout and session (Front-Channel Logout 1.0, Session Management 1.0): the check_session_iframe answers "changed" to the client.
  'check_session_changed',
  // JARM (JWT Secured Authorization Response Mode): the `response` JWT of a client that asked for
  // a .jwt response mode (or registered authorization_signed_response_alg), as the FAPI 2.0
  // Message Signing plan's JARM modules send it; jarm_plain_response sends the plain parameters instead (a downgrade).
  'jarm_missing_iss',
  'jarm_wrong_iss',
  'jarm_missing_aud',
  'jarm_wrong_aud',
  'jarm_missing_exp',
  'jarm_expired',
  'jarm_bad_signature',
  'jarm_alg_none',
  'jarm_plain_response',
] as const;

/**
 * The JARM faults: the signed authorization response without or with a wrong `iss` or `aud`,
 * without `exp` or expired, with a broken signature, unsigned (`alg: none`), or not a JWT at
 * all when the client asked for one. Part of {@link FAULTS}; a client meets them only when its
 * responses are JARM.
 *
 * @example
 * await server.control.faults.set('fapi-client', 'jarm_wrong_aud', { times: 1 });
 */
export const JARM_FAULTS = [
  'jarm_missing_iss',
  'jarm_wrong_iss',
  'jarm_missing_aud',
  'jarm_wrong_aud',
  'jarm_missing_exp',
  'jarm_expired',
  'jarm_bad_signature',
  'jarm_alg_none',
  'jarm_plain_response',
] as const satisfies readonly (typeof FAULTS)[number][];

/**
 * The DPoP (RFC 9449) faults: a DPoP token request answered `token_type: Bearer` (a downgrade;
 * the token stays bound); a valid proof reported as replayed; a server nonce demanded from the
 * client (token endpoint and userinfo) as if the server had just started to ask, e.g.
 * mid-session. They are part of {@link FAULTS}; this list names them for tests that pick out
 * the faults a client without DPoP never meets.
 *
 * @example
 * await server.control.faults.set('spa', 'dpop_nonce_required');
 */
export const DPOP_FAULTS = ['token_response_token_type_bearer', 'dpop_proof_replayed', 'dpop_nonce_required'] as const satisfies readonly (typeof FAULTS)[number][];

/**
 * The pushed authorization request (RFC 9126) faults: a valid push refused (400
 * `invalid_request`), answered without `request_uri`, or with an `expires_in` that is not a
 * number; or its `request_uri` reported expired at authorize (an `invalid_request_uri` error
 * redirect). Part of {@link FAULTS}; a client meets them only when it pushes its logins.
 *
 * @example
 * await server.control.faults.set('web', 'par_request_uri_expired', { times: 1 });
 */
export const PAR_FAULTS = [
  'par_request_refused',
  'par_response_missing_request_uri',
  'par_response_bad_expires_in',
  'par_request_uri_expired',
] as const satisfies readonly (typeof FAULTS)[number][];

/**
 * The client assertion (RFC 7523) faults: a valid `private_key_jwt` or `client_secret_jwt`
 * assertion refused with 401 `invalid_client` as if its `jti` had been used before, its `aud`
 * were another, it had expired, or it were signed by a key not registered for the client. Part
 * of {@link FAULTS}; a client meets them only when it authenticates with an assertion.
 *
 * @example
 * await server.control.faults.set('fapi-client', 'client_assertion_replayed', { times: 1 });
 */
export const CLIENT_ASSERTION_FAULTS = [
  'client_assertion_replayed',
  'client_assertion_wrong_aud',
  'client_assertion_expired',
  'client_assertion_unknown_key',
] as const satisfies readonly (typeof FAULTS)[number][];

/**
 * Every fault name a client may have: {@link FAULTS}.
 *
 * @example
 * FAULT_NAMES.includes('dpop_proof_replayed'); // true
 */
export const FAULT_NAMES: readonly Fault[] = FAULTS;

/** The name of one fault. */
export type Fault = (typeof FAULTS)[number];
