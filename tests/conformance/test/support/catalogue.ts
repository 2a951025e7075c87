/**
 * What the SDK must do with each fault of the reference server: the one `OidcError` code it
 * throws, or `accepted` for the faults a correct client takes. Both wrapper suites are
 * generated from this table, each running the rows that name it in `wrappers`, and the
 * README's table says the same.
 */
import type { OidcErrorCode } from '@oidc-rp/core';
import type { Fault } from '@oidc-rp/reference-server';

export type Outcome = OidcErrorCode | 'accepted';

/** The wrappers a row can run through. */
export type WrapperName = 'node' | 'browser';

export interface FaultCase {
  fault: Fault;
  /** The OpenID RP certification test it mirrors, or else the rule it breaks. */
  mirrors: string;
  /** The wrapper suites that run this row (default: both). */
  wrappers?: readonly WrapperName[];
  /** The client sends DPoP proofs (node: `createNodeClient({ dpop })`); the fault only meets such clients. */
  dpop?: true;
  /** The client pushes its logins (node: `createNodeClient({ par: true })`, browser: the `par()` part); the fault only meets such clients. */
  par?: true;
  /** The client authenticates with a key (node: `clientAuth: privateKeyJwt(key)`); the fault only meets such clients. */
  clientAssertion?: true;
  /** The client asks for JARM responses (node: `responseMode: 'jwt'`); the fault only meets such clients. */
  jarm?: true;
  /** The client sends its logins as request objects signed with its key (node: `requestObject`); the fault only meets such clients. */
  requestObject?: true;
  /** The client is registered for signed userinfo (node: `userinfoSigningAlgorithm: 'RS256'`); the fault only meets such clients. */
  signedUserinfo?: true;
  /** What @oidc-rp/node does (through handleLogin / handleCallback). */
  node: Outcome;
  /** With `token_endpoint_error` or `authorization_error`: the OAuth `error` the provider sent, which the OidcError carries. */
  oauthError?: string;
  /** What @oidc-rp/browser does; a string reason when the fault cannot reach it; absent when the row is not run through it. */
  browser?: Outcome | { notApplicable: string };
  /** The client is pinned to this algorithm (`signingAlgorithm`, its registered `id_token_signed_response_alg`); so is its well-behaved counterpart. */
  signingAlgorithm?: string;
  /**
   * The step that meets the fault: logging in (default), discovery, userinfo after a login, a
   * refresh after a login, the back-channel logout that RP-initiated logout at the provider sends (node's session layer),
   * or a third-party login initiation (the provider's `/oidc/initiate-login` redirect, read by `readInitiateLogin`).
   */
  step?: 'login' | 'discovery' | 'userinfo' | 'refresh' | 'backchannelLogout' | 'initiateLogin';
  /** Logs in with this response type (default `code`): node by form_post, the browser with `hybridFlow` (the fragment); hybrid carries `c_hash`. */
  responseType?: 'code id_token';
  /** What @oidc-rp/browser does in the implicit flow (`id_token token`), when it differs from `browser`. */
  implicit?: Outcome;
}

export const CASES: readonly FaultCase[] = [
  { fault: 'id_token_bad_signature', mirrors: 'rp-id_token-bad-sig-rs256', node: 'id_token_signature_invalid', browser: 'id_token_signature_invalid' },
  { fault: 'id_token_alg_none', mirrors: 'rp-id_token-sig-none (none not allowed)', node: 'id_token_alg_not_allowed', browser: 'id_token_alg_not_allowed' },
  { fault: 'id_token_hs256_with_public_key', mirrors: 'rp-id_token-bad-sig-hs256 (key confusion)', node: 'id_token_alg_not_allowed', browser: 'id_token_alg_not_allowed' },
  { fault: 'id_token_unknown_kid', mirrors: 'rp-key-rotation-op-sign-key (key never published)', node: 'id_token_unknown_kid', browser: 'id_token_unknown_kid' },
  { fault: 'id_token_wrong_iss', mirrors: 'rp-id_token-issuer-mismatch', node: 'id_token_iss_mismatch', browser: 'id_token_iss_mismatch' },
  { fault: 'id_token_wrong_aud', mirrors: 'rp-id_token-aud', node: 'id_token_aud_mismatch', browser: 'id_token_aud_mismatch' },
  { fault: 'id_token_multiple_aud_no_azp', mirrors: 'OIDC Core 3.1.3.7 (4): several audiences need azp', node: 'id_token_azp_missing', browser: 'id_token_azp_missing' },
  { fault: 'id_token_azp_mismatch', mirrors: 'OIDC Core 3.1.3.7 (5): azp must be the client', node: 'id_token_azp_mismatch', browser: 'id_token_azp_mismatch' },
  { fault: 'id_token_expired', mirrors: 'OIDC Core 3.1.3.7 (9): exp', node: 'id_token_expired', browser: 'id_token_expired' },
  { fault: 'id_token_iat_future', mirrors: 'rp-id_token-iat (issued in the future)', node: 'id_token_iat_future', browser: 'id_token_iat_future' },
  { fault: 'id_token_nonce_mismatch', mirrors: 'rp-nonce-invalid', node: 'id_token_nonce_mismatch', browser: 'id_token_nonce_mismatch' },
  { fault: 'id_token_missing_nonce', mirrors: 'OIDC Core 3.1.3.7 (11): nonce sent, so required', node: 'id_token_nonce_missing', browser: 'id_token_nonce_missing' },
  { fault: 'id_token_missing_sub', mirrors: 'rp-id_token-sub', node: 'id_token_sub_missing', browser: 'id_token_sub_missing' },
  { fault: 'id_token_bad_at_hash', mirrors: 'rp-id_token-bad-at_hash', node: 'id_token_at_hash_mismatch', browser: 'id_token_at_hash_mismatch' },
  // Hybrid: node by form_post, the browser with the hybridFlow('code id_token') part (the fragment).
  { fault: 'id_token_bad_c_hash', mirrors: 'rp-id_token-bad-c_hash', node: 'id_token_c_hash_mismatch', browser: 'id_token_c_hash_mismatch', responseType: 'code id_token' },
  { fault: 'id_token_missing_c_hash', mirrors: 'rp-id_token-missing-c_hash', node: 'id_token_c_hash_missing', browser: 'id_token_c_hash_missing', responseType: 'code id_token' },
  // The provider lists ES256 beside RS256 and publishes both keys: only the client's registration tells the token apart.
  { fault: 'id_token_wrong_alg', mirrors: 'OIDC Core 3.1.3.7 (7): the registered id_token_signed_response_alg', signingAlgorithm: 'RS256', node: 'id_token_alg_not_allowed', browser: 'id_token_alg_not_allowed' },
  { fault: 'jwks_key_rotated', mirrors: 'rp-key-rotation-op-sign-key', node: 'accepted', browser: 'accepted' },
  // Back-channel logout is the node session layer's (the browser has none): its route answers 400, no-store, and ends nothing.
  { fault: 'logout_token_wrong_alg', mirrors: 'oidcc-client-test-rp-backchannel-rpinitlogout-wrong-alg', wrappers: ['node'], signingAlgorithm: 'RS256', step: 'backchannelLogout', node: 'logout_token_alg_not_allowed' },
  { fault: 'logout_token_alg_none', mirrors: 'oidcc-client-test-rp-backchannel-rpinitlogout-alg-none', wrappers: ['node'], step: 'backchannelLogout', node: 'logout_token_alg_not_allowed' },
  { fault: 'logout_token_missing_events', mirrors: 'oidcc-client-test-rp-backchannel-rpinitlogout-no-event', wrappers: ['node'], step: 'backchannelLogout', node: 'logout_token_events_invalid' },
  { fault: 'logout_token_with_nonce', mirrors: 'oidcc-client-test-rp-backchannel-rpinitlogout-with-nonce', wrappers: ['node'], step: 'backchannelLogout', node: 'logout_token_nonce_present' },
  { fault: 'logout_token_wrong_aud', mirrors: 'oidcc-client-test-rp-backchannel-rpinitlogout-wrong-aud', wrappers: ['node'], step: 'backchannelLogout', node: 'logout_token_aud_mismatch' },
  { fault: 'logout_token_wrong_events', mirrors: 'oidcc-client-test-rp-backchannel-rpinitlogout-wrong-event', wrappers: ['node'], step: 'backchannelLogout', node: 'logout_token_events_invalid' },
  { fault: 'logout_token_wrong_iss', mirrors: 'oidcc-client-test-rp-backchannel-rpinitlogout-wrong-iss', wrappers: ['node'], step: 'backchannelLogout', node: 'logout_token_iss_mismatch' },
  { fault: 'redirect_missing_state', mirrors: 'RFC 6749 10.12 (CSRF): state', node: 'state_missing', browser: 'state_missing' },
  // Both wrappers find the login's transaction by its state: another state finds none.
  { fault: 'redirect_wrong_state', mirrors: 'RFC 6749 10.12 (CSRF): state', node: 'transaction_not_found', browser: 'transaction_not_found' },
  { fault: 'redirect_wrong_iss', mirrors: 'RFC 9207 (mix-up): iss', node: 'iss_mismatch', browser: 'iss_mismatch' },
  // RFC 9207 2.4: a response carrying an ID token may leave iss out; the validated ID token names the issuer.
  { fault: 'redirect_missing_iss', mirrors: 'RFC 9207 (mix-up): iss advertised, so required', node: 'iss_missing', browser: 'iss_missing', implicit: 'accepted' },
  { fault: 'token_response_not_json', mirrors: 'RFC 6749 5.1: JSON token response', node: 'token_response_invalid', browser: 'token_response_invalid' },
  { fault: 'token_response_missing_access_token', mirrors: 'RFC 6749 5.1: access_token required', node: 'token_response_invalid', browser: 'token_response_invalid' },
  { fault: 'token_response_token_type_lowercase', mirrors: 'RFC 6749 5.1: token_type is case-insensitive', node: 'accepted', browser: 'accepted' },
  { fault: 'token_response_unknown_token_type', mirrors: 'RFC 6749 7.1: only Bearer is understood', node: 'token_response_invalid', browser: 'token_response_invalid' },
  { fault: 'id_token_missing', mirrors: 'OIDC Core 3.1.3.3: openid scope, so an ID token', node: 'id_token_missing', browser: 'id_token_missing' },
  { fault: 'discovery_issuer_mismatch', mirrors: 'rp-discovery-issuer-not-matching-config', node: 'discovery_issuer_mismatch', browser: 'discovery_issuer_mismatch', step: 'discovery' },
  // OIDC Core 12.2: a refreshed ID token keeps iss and sub; refused, the session ends (node: the session layer; browser: unauthenticated, tokens dropped).
  { fault: 'refresh_id_token_wrong_iss', mirrors: 'OIDC Core 12.2: refreshed ID token, same iss', step: 'refresh', node: 'id_token_iss_mismatch', browser: 'id_token_iss_mismatch' },
  { fault: 'refresh_id_token_wrong_sub', mirrors: 'OIDC Core 12.2: refreshed ID token, same sub', step: 'refresh', node: 'id_token_sub_mismatch', browser: 'id_token_sub_mismatch' },
  { fault: 'userinfo_wrong_sub', mirrors: 'rp-userinfo-bad-sub-claim', node: 'userinfo_sub_mismatch', browser: 'userinfo_sub_mismatch', step: 'userinfo' },
  // DPoP (RFC 9449): node only until @oidc-rp/browser has its DPoP part (see the README).
  { fault: 'token_response_token_type_bearer', mirrors: 'RFC 9449 5: a DPoP request answered Bearer (downgrade)', wrappers: ['node'], dpop: true, node: 'dpop_token_type_mismatch' },
  { fault: 'dpop_proof_replayed', mirrors: 'RFC 9449 11.1: the proof reported as replayed', wrappers: ['node'], dpop: true, node: 'token_endpoint_error', oauthError: 'invalid_dpop_proof' },
  { fault: 'dpop_nonce_required', mirrors: 'RFC 9449 8: a server nonce demanded mid-session (one retry)', wrappers: ['node'], dpop: true, node: 'accepted', step: 'userinfo' },
  // Pushed authorization requests (RFC 9126): node only until @oidc-rp/browser has its PAR part.
  { fault: 'par_request_refused', mirrors: 'RFC 9126 2.3: the push refused', par: true, node: 'token_endpoint_error', browser: 'token_endpoint_error', oauthError: 'invalid_request' },
  { fault: 'par_response_missing_request_uri', mirrors: 'RFC 9126 2.2: request_uri required', par: true, node: 'par_response_invalid', browser: 'par_response_invalid' },
  { fault: 'par_response_bad_expires_in', mirrors: 'RFC 9126 2.2: expires_in a positive JSON number', par: true, node: 'par_response_invalid', browser: 'par_response_invalid' },
  { fault: 'par_request_uri_expired', mirrors: 'RFC 9126 4, RFC 9101 6.2: request_uri expired or used', par: true, node: 'authorization_error', browser: 'authorization_error', oauthError: 'invalid_request_uri' },
  // Client assertions (RFC 7523): a confidential client's, so never the browser's.
  { fault: 'client_assertion_replayed', mirrors: 'RFC 7523 3 (7): jti reported as replayed', wrappers: ['node'], clientAssertion: true, node: 'token_endpoint_error', oauthError: 'invalid_client' },
  { fault: 'client_assertion_wrong_aud', mirrors: 'RFC 7523 3 (3): aud reported as another', wrappers: ['node'], clientAssertion: true, node: 'token_endpoint_error', oauthError: 'invalid_client' },
  { fault: 'client_assertion_expired', mirrors: 'RFC 7523 3 (4): exp reported as past', wrappers: ['node'], clientAssertion: true, node: 'token_endpoint_error', oauthError: 'invalid_client' },
  { fault: 'client_assertion_unknown_key', mirrors: 'RFC 7523 3 (9): signature reported as by an unregistered key', wrappers: ['node'], clientAssertion: true, node: 'token_endpoint_error', oauthError: 'invalid_client' },
  // An error in the client's response mode: node's by form_post, the browser's in the fragment.
  { fault: 'authorize_error_login_required', mirrors: 'oidcc-client-test-form-post-error', responseType: 'code id_token', node: 'authorization_error', browser: 'authorization_error', oauthError: 'login_required' },
  // Request objects (RFC 9101), pushed as FAPI 2.0 Message Signing does, and signed userinfo (OIDC Core 5.3.2): node only (the browser has neither).
  { fault: 'request_object_refused', mirrors: 'RFC 9101 6.2: a request object refused (invalid_request_object)', wrappers: ['node'], par: true, requestObject: true, node: 'token_endpoint_error', oauthError: 'invalid_request_object' },
  { fault: 'userinfo_signed_wrong_alg', mirrors: 'rp-userinfo-sig (another alg than userinfo_signed_response_alg)', wrappers: ['node'], signedUserinfo: true, step: 'userinfo', node: 'userinfo_alg_not_allowed' },
  { fault: 'userinfo_signed_unknown_key', mirrors: 'rp-userinfo-sig (a key the JWKS does not publish)', wrappers: ['node'], signedUserinfo: true, step: 'userinfo', node: 'userinfo_signature_invalid' },
  { fault: 'userinfo_signed_wrong_iss', mirrors: 'OIDC Core 5.3.2: signed userinfo from another iss', wrappers: ['node'], signedUserinfo: true, step: 'userinfo', node: 'userinfo_iss_mismatch' },
  { fault: 'userinfo_signed_wrong_aud', mirrors: 'OIDC Core 5.3.2: signed userinfo for another aud', wrappers: ['node'], signedUserinfo: true, step: 'userinfo', node: 'userinfo_aud_mismatch' },
  { fault: 'userinfo_signed_alg_none', mirrors: 'rp-userinfo-sig (alg none)', wrappers: ['node'], signedUserinfo: true, step: 'userinfo', node: 'userinfo_alg_not_allowed' },
  { fault: 'userinfo_encrypted', mirrors: 'OIDC Core 5.3.2: encrypted userinfo (unsupported, refused)', wrappers: ['node'], signedUserinfo: true, step: 'userinfo', node: 'userinfo_encrypted_unsupported' },
  // Certification modules the provider plays for claims, ID tokens and DPoP (cert-claims).
  { fault: 'id_token_missing_iat', mirrors: 'oidcc-client-test-missing-iat', node: 'id_token_iat_missing', browser: 'id_token_iat_missing' },
  { fault: 'id_token_missing_aud', mirrors: 'oidcc-client-test-missing-aud', node: 'id_token_aud_mismatch', browser: 'id_token_aud_mismatch' },
  { fault: 'id_token_missing_iss', mirrors: 'OIDC Core 3.1.3.7 (2): iss required', node: 'id_token_iss_mismatch', browser: 'id_token_iss_mismatch' },
  { fault: 'id_token_missing_exp', mirrors: 'OIDC Core 2, 3.1.3.7 (9): exp required', node: 'id_token_malformed', browser: 'id_token_malformed' },
  { fault: 'id_token_aud_single_array', mirrors: 'oidcc-client-test-aud (aud as an array of one)', node: 'accepted', browser: 'accepted' },
  // Each in a tenant of its own: one RS256 key published (accepted), or three fitting keys and no kid (refused; the module allows either).
  { fault: 'id_token_no_kid', mirrors: 'oidcc-client-test-kid-absent-single-jwks', node: 'accepted', browser: 'accepted' },
  { fault: 'id_token_no_kid_multiple_keys', mirrors: 'oidcc-client-test-kid-absent-multiple-jwks', node: 'id_token_unknown_kid', browser: 'id_token_unknown_kid' },
  // at_hash is optional beside a code exchange, required beside a front-channel access token (implicit).
  { fault: 'id_token_missing_at_hash', mirrors: 'oidcc-client-test-missing-athash', node: 'accepted', browser: 'accepted', implicit: 'id_token_at_hash_missing' },
  { fault: 'id_token_bad_signature_es256', mirrors: 'oidcc-client-test-invalid-sig-es256', node: 'id_token_signature_invalid', browser: 'id_token_signature_invalid' },
  // An ES256 tenant (its well-behaved clients too); the client is registered for ES256, as a FAPI 2.0 one is.
  { fault: 'id_token_alternate_alg_rs256', mirrors: 'fapi2-security-profile-final-client-test-invalid-alternate-alg', signingAlgorithm: 'ES256', node: 'id_token_alg_not_allowed', browser: 'id_token_alg_not_allowed' },
  { fault: 'token_response_token_type_inverted_case', mirrors: 'fapi2-security-profile-final-client-test-token-type-case-insensitivity', wrappers: ['node'], dpop: true, node: 'accepted' },
  { fault: 'userinfo_dpop_challenge_odd_case', mirrors: 'fapi2-security-profile-final-client-test-rs-dpop-auth-scheme-case-insensitivity', wrappers: ['node'], dpop: true, step: 'userinfo', node: 'accepted' },
  // The SDK's userinfo leaves _claim_names/_claim_sources alone; resolveClaimSources (claims tests) uses or refuses them.
  { fault: 'userinfo_aggregated_claims', mirrors: 'oidcc-client-test-aggregated-claims (signed source)', step: 'userinfo', node: 'accepted', browser: 'accepted' },
  { fault: 'userinfo_aggregated_claims_unsigned', mirrors: 'oidcc-client-test-aggregated-claims (alg none, as the suite signs)', step: 'userinfo', node: 'accepted', browser: 'accepted' },
  { fault: 'userinfo_aggregated_claims_bad_signature', mirrors: 'OIDC Core 5.6.2: an aggregated claim that does not verify', step: 'userinfo', node: 'accepted', browser: 'accepted' },
  { fault: 'userinfo_distributed_claims', mirrors: 'oidcc-client-test-distributed-claims', step: 'userinfo', node: 'accepted', browser: 'accepted' },
  { fault: 'userinfo_distributed_claims_other_origin', mirrors: 'OIDC Core 5.6.2: a claims endpoint of an untrusted origin', step: 'userinfo', node: 'accepted', browser: 'accepted' },
  { fault: 'userinfo_distributed_claims_insecure_endpoint', mirrors: 'OIDC Core 5.6.2: a claims endpoint over plain http', step: 'userinfo', node: 'accepted', browser: 'accepted' },
  { fault: 'initiate_login_wrong_iss', mirrors: 'oidcc-client-test-3rd-party-init-login (a forged iss)', step: 'initiateLogin', node: 'initiate_login_iss_mismatch', browser: 'initiate_login_iss_mismatch' },
  // Session Management 1.0: the fault answers "changed" from the check_session_iframe, which only the browser's
  // @oidc-rp/browser/session entry frames (proven in Chromium in packages/browser/test/chromium/logout-and-session.test.ts).
  { fault: 'check_session_changed', mirrors: 'oidcc-client-test-session-management (the OP iframe says changed); a login never reads the iframe', node: 'accepted', browser: { notApplicable: 'the login flow never frames check_session_iframe: sessionManagement() (@oidc-rp/browser/session) does, and ends the session on "changed" in packages/browser/test/chromium/logout-and-session.test.ts' } },
  // JARM: the FAPI 2.0 Message Signing client plan's JARM modules (fapi2-security-profile-final-client-test-…), node only
  // (the browser has no JARM part); the pass rule is no token request after the response.
  { fault: 'jarm_missing_iss', mirrors: 'ensure-jarm-without-iss-fails', wrappers: ['node'], jarm: true, node: 'jarm_iss_mismatch' },
  { fault: 'jarm_wrong_iss', mirrors: 'ensure-jarm-with-invalid-iss-fails', wrappers: ['node'], jarm: true, node: 'jarm_iss_mismatch' },
  { fault: 'jarm_missing_aud', mirrors: 'ensure-jarm-without-aud-fails', wrappers: ['node'], jarm: true, node: 'jarm_aud_mismatch' },
  { fault: 'jarm_wrong_aud', mirrors: 'ensure-jarm-with-invalid-aud-fails', wrappers: ['node'], jarm: true, node: 'jarm_aud_mismatch' },
  { fault: 'jarm_missing_exp', mirrors: 'ensure-jarm-without-exp-fails', wrappers: ['node'], jarm: true, node: 'jarm_exp_missing' },
  { fault: 'jarm_expired', mirrors: 'ensure-jarm-with-expired-exp-fails', wrappers: ['node'], jarm: true, node: 'jarm_expired' },
  { fault: 'jarm_bad_signature', mirrors: 'ensure-jarm-with-invalid-sig-fails', wrappers: ['node'], jarm: true, node: 'jarm_signature_invalid' },
  { fault: 'jarm_alg_none', mirrors: 'ensure-jarm-signature-is-not-none', wrappers: ['node'], jarm: true, node: 'jarm_alg_not_allowed' },
  { fault: 'jarm_plain_response', mirrors: 'JARM 2.3: a plain response where JARM was asked (downgrade)', wrappers: ['node'], jarm: true, node: 'jarm_response_missing' },
];

/**
 * The rows a wrapper's suite runs.
 *
 * @example
 * for (const c of casesFor('browser')) it(caseName(c, c.browser), ...);
 */
export function casesFor(wrapper: WrapperName): readonly FaultCase[] {
  return CASES.filter((c) => (c.wrappers ?? ['node', 'browser']).includes(wrapper));
}

/** The test's name: the fault, the outcome, and the certification module it mirrors. */
export function caseName(c: FaultCase, outcome: Outcome): string {
  return `${c.fault} → ${outcome === 'accepted' ? 'accepted' : outcome} (${c.mirrors})`;
}

// Faults whose token request makes the server generate an RSA key pair: a new one for every
// jwks_key_rotated token, the never-published one on first use of id_token_unknown_kid. That is
// the provider's CPU, not the SDK's: on a saturated 2-core machine it took 0.6-1.8 s (other
// token requests 5-50 ms) and can pass the client's 10 s default, so these flows allow 30 s.
const GENERATES_A_KEY = new Set<string>(['id_token_unknown_kid', 'jwks_key_rotated']);
const KEY_GENERATION_TIMEOUT = 30_000;

/** The client's request timeout for a case: longer where the provider generates a key (above). */
export const requestTimeoutFor = (c: FaultCase): number | undefined => (GENERATES_A_KEY.has(c.fault) ? KEY_GENERATION_TIMEOUT : undefined);

/** The test's hang guard for a case: room for that request beside the rest of the test. */
export const testTimeoutFor = (c: FaultCase): number | undefined => (GENERATES_A_KEY.has(c.fault) ? 2 * KEY_GENERATION_TIMEOUT : undefined);
