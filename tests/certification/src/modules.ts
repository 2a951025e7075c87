/**
 * The relying-party test modules of the OpenID Foundation's conformance suite
 * (`openid-certification/conformance-suite`, `src/main/java/net/openid/conformance/openid/client/`
 * and `.../fapi2spfinal/`), each re-created as data from its Java class: what the suite's fake
 * provider does, how the suite judges the RP, and how this suite plays and judges it against the
 * reference server. Keyed by the suite's test name. A module whose fault or SDK capability does
 * not exist yet says what is missing in `pending` (see capabilities in test/support).
 */

export type Runner = 'node' | 'browser';
export type ResponseType = 'code' | 'id_token' | 'id_token token' | 'code id_token' | 'code token' | 'code id_token token';

/** Reference-server tenants of the suite's config (test/support/config.ts). */
export type Tenant = 'oidcc' | 'oidcc-mismatch' | 'oidcc-dynamic' | 'oidcc-kid-absent' | 'oidcc-kid-absent-many' | 'oidcc-es256' | 'fapi' | 'fapi-no-nonce' | 'fapi-mismatch';

/** The flow a module runs through. */
export type Step =
  | 'login' // log in (and call userinfo when the response type gives an access token)
  | 'discovery' // refused at discovery: no authorization request follows
  | 'userinfo' // the userinfo answer is the bad one
  | 'refresh' // log in, then refresh
  | 'keyRotation' // log in, the provider rotates its key, log in again
  | 'backchannelLogout' // the session layer signs in; logout at the provider POSTs a logout token to the app
  | 'rpInitiatedLogout' // the session layer's logout sends the user to end_session and takes them back
  | 'frontChannelLogout'
  | 'sessionManagement'
  | 'thirdPartyLogin'
  | 'dynamic'; // WebFinger, registration, request objects, signed userinfo

/**
 * accept: the login (or logout) completes. reject: the RP refuses with a typed error and makes no
 * token or userinfo call after the bad response (a back-channel route answers 400, no-store).
 * either: the suite lets the RP accept or reject; rejecting must still stop before userinfo.
 */
export type Outcome = 'accept' | 'reject' | 'either';

/** Extra facts an accepted run must show in the provider's request journal or the result. */
export type Check =
  | 'basicAuth' // the token request authenticated with HTTP Basic
  | 'bearerHeader' // userinfo was called with an Authorization: Bearer header
  | 'nonceSent' // the authorization request carried a nonce
  | 'scopeClaims' // profile and email requested; their claims reached the app
  | 'rs256' // the ID token the app holds is RS256
  | 'discoveryFirst' // discovery was fetched before the authorization request
  | 'jwksFetched' // the JWKS (from discovery's jwks_uri) was fetched
  | 'noExpiresIn' // the token response had no expires_in, and the app still got a session
  | 'logoutState' // end_session was called with id_token_hint, a registered post_logout_redirect_uri and state
  | 'dpopNonce' // the token request was retried once with the server's DPoP nonce
  | 'userinfoDpopRetry' // userinfo was answered 401 (the nonce challenge) and then 200
  | 'bearerBody' // userinfo was called by POST with the access token in the form body, no Authorization header
  | 'aggregatedClaims' // the aggregated claims (address, phone_number) were verified and added
  | 'distributedClaims'; // the distributed claim (credit_score) was fetched from its endpoint and added

/** SDK and reference-server capabilities a run can need, probed at test time (test/support/capabilities.ts). */
export type Feature =
  | 'node.codeToken'
  | 'node.fragment'
  | 'browser.idToken'
  | 'browser.hybrid'
  | 'node.frontChannelLogout'
  | 'node.sessionManagement'
  | 'browser.sessionManagement'
  | 'node.thirdPartyLogin'
  | 'node.claimSources'
  | 'node.userinfoInBody'
  | 'node.requestObject'
  | 'node.signedUserinfo'
  | 'node.webfinger'
  | 'node.jarm';

export interface CertModule {
  /** The Java class (under .../openid/client/, .../client/config/, .../client/logout/ or .../fapi2spfinal/). */
  javaClass: string;
  /** What the suite's fake provider does. */
  provider: string;
  /** What the suite requires of the RP. */
  rule: string;
  step: Step;
  outcome: Outcome;
  /** The OidcError code of a refusal (reject, and either when the SDK refuses). */
  code?: string;
  /** The reference-server fault that plays the provider's misbehaviour (registered on the run's client). */
  fault?: string;
  /** Default: `oidcc` for OIDCC modules, `fapi` for FAPI 2.0 ones. */
  tenant?: Tenant;
  /** What the harness does itself, where the provider's part is the person's browser or the clock. */
  harness?: string;
  checks?: readonly Check[];
  /** Response types the suite marks not applicable (`@VariantNotApplicable`). */
  notApplicable?: readonly ResponseType[];
  /** Response modes the suite marks not applicable. */
  notApplicableModes?: readonly ('default' | 'form_post')[];
  /** Client authentications the suite marks not applicable. */
  notApplicableClientAuth?: readonly ('client_secret_basic' | 'private_key_jwt')[];
  /** Capabilities the module needs on each runner, beyond its fault and the variant's response type. */
  needs?: Partial<Record<Runner, readonly Feature[]>>;
  /** What is missing before the module can run (the fault or SDK capability). */
  pending?: string;
}

const ID_TOKEN_REJECTED =
  'Reject the ID token: no token request after a front-channel ID token (response types with id_token), no userinfo request after it otherwise.';
const BCL_400 = 'The back-channel logout route answers 400 (and, per the spec, Cache-Control: no-store).';
const ONLY_CODE: readonly ResponseType[] = ['id_token', 'id_token token', 'code id_token', 'code token', 'code id_token token'];
const NO_ACCESS_TOKEN: readonly ResponseType[] = ['id_token'];
const WITHOUT_AT_HASH: readonly ResponseType[] = ['code', 'id_token', 'code id_token', 'code token'];
const WITHOUT_C_HASH: readonly ResponseType[] = ['code', 'id_token', 'id_token token', 'code token'];
/** A run whose capabilities exist but whose runner this suite does not have yet (see the readiness test). */
export const HARNESS_PENDING = 'tests/certification:';

/** The OIDCC modules (Basic, Implicit, Hybrid, Config, Form Post, Dynamic, comprehensive, refresh, 3rd party). */
export const OIDCC_MODULES: Record<string, CertModule> = {
  'oidcc-client-test': {
    javaClass: 'OIDCCClientTest',
    provider: 'A well-behaved provider.',
    rule: 'Complete the flow of the response type: authorization request, token request (code types), userinfo request (types with an access token).',
    step: 'login',
    outcome: 'accept',
  },
  'oidcc-client-test-invalid-iss': {
    javaClass: 'OIDCCClientTestInvalidIssuerInIdToken',
    provider: 'The ID token has an iss other than the issuer (AddInvalidIssValueToIdToken).',
    rule: ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_iss_mismatch',
    fault: 'id_token_wrong_iss',
  },
  'oidcc-client-test-missing-sub': {
    javaClass: 'OIDCCClientTestMissingSubInIdToken',
    provider: 'The ID token has no sub (RemoveSubFromIdToken).',
    rule: ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_sub_missing',
    fault: 'id_token_missing_sub',
  },
  'oidcc-client-test-invalid-aud': {
    javaClass: 'OIDCCClientTestInvalidAudInIdToken',
    provider: 'The ID token has an aud other than the client (AddInvalidAudValueToIdToken).',
    rule: ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_aud_mismatch',
    fault: 'id_token_wrong_aud',
  },
  'oidcc-client-test-missing-iat': {
    javaClass: 'OIDCCClientTestMissingIatInIdToken',
    provider: 'The ID token has no iat (RemoveIatFromIdToken).',
    rule: ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_iat_missing',
    fault: 'id_token_missing_iat',
  },
  'oidcc-client-test-missing-aud': {
    javaClass: 'OIDCCClientTestMissingAudInIdToken',
    provider: 'The ID token has no aud (RemoveAudFromIdToken).',
    rule: ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_aud_mismatch',
    fault: 'id_token_missing_aud',
  },
  'oidcc-client-test-kid-absent-single-jwks': {
    javaClass: 'OIDCCClientTestKidAbsentSingleJwks',
    provider: 'RS256; the JWKS holds one signing key, without kid, and the ID token header has no kid.',
    rule: 'Verify with the one key and accept the ID token.',
    step: 'login',
    outcome: 'accept',
    fault: 'id_token_no_kid',
    tenant: 'oidcc-kid-absent', // exactly one key of the algorithm in its JWKS
  },
  'oidcc-client-test-kid-absent-multiple-jwks': {
    javaClass: 'OIDCCClientTestKidAbsentMultipleMatchingKeysInJwks',
    provider: 'RS256; the JWKS holds several signing keys without kid, and the ID token header has no kid.',
    rule: 'Either reject the ID token (no key can be chosen) or try the keys and accept it.',
    step: 'login',
    outcome: 'either',
    code: 'id_token_unknown_kid',
    fault: 'id_token_no_kid_multiple_keys',
    tenant: 'oidcc-kid-absent-many', // its kid-less keys are published tenant-wide
  },
  'oidcc-client-test-idtoken-sig-rs256': {
    javaClass: 'OIDCCClientTestIdTokenSignedUsingRS256',
    provider: 'Discovery lists RS256 only; the ID token is signed RS256.',
    rule: 'Accept the ID token and complete the flow.',
    step: 'login',
    outcome: 'accept',
    checks: ['rs256'],
  },
  'oidcc-client-test-idtoken-sig-none': {
    javaClass: 'OIDCCClientTestIdTokenSigAlgNone',
    provider: 'Code flow only: the ID token from the token endpoint is unsecured (alg none).',
    rule: 'Either accept it and call userinfo, or reject it and make no userinfo request (the suite then skips).',
    step: 'login',
    outcome: 'either',
    code: 'id_token_alg_not_allowed',
    fault: 'id_token_alg_none',
    notApplicable: ONLY_CODE,
  },
  'oidcc-client-test-invalid-sig-rs256': {
    javaClass: 'OIDCCClientTestInvalidIdTokenSignatureWithRS256',
    provider: 'Discovery lists RS256 only; the ID token signature is altered (InvalidateIdTokenSignature).',
    rule: `${ID_TOKEN_REJECTED} (For code flows a userinfo request only skips the module, TLS having protected the token.)`,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_signature_invalid',
    fault: 'id_token_bad_signature',
  },
  'oidcc-client-test-invalid-sig-hs256': {
    javaClass: 'OIDCCClientTestInvalidIdTokenSignatureWithHS256',
    provider: 'Discovery lists HS256 only; the ID token is HS256 with an altered signature.',
    rule: ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_alg_not_allowed',
    fault: 'id_token_hs256_with_public_key',
    notApplicableClientAuth: ['private_key_jwt'],
    harness: 'Played by id_token_hs256_with_public_key: an HS256 ID token that the client secret does not verify; the RP pinned to RS256 refuses HS256.',
  },
  'oidcc-client-test-invalid-sig-es256': {
    javaClass: 'OIDCCClientTestInvalidIdTokenSignatureWithES256',
    provider: 'Discovery lists ES256 only; the ID token is ES256 with an altered signature.',
    rule: ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_signature_invalid',
    fault: 'id_token_bad_signature_es256',
    tenant: 'oidcc-es256', // an ES256 provider, its RP registered for ES256
  },
  'oidcc-client-test-userinfo-invalid-sub': {
    javaClass: 'OIDCCClientTestInvalidSubInUserinfoResponse',
    provider: 'The userinfo answer has a sub other than the ID token (ChangeSubInUserInfoResponseToBeInvalid).',
    rule: 'Call userinfo, compare its sub with the ID token and reject the answer.',
    step: 'userinfo',
    outcome: 'reject',
    code: 'userinfo_sub_mismatch',
    fault: 'userinfo_wrong_sub',
    notApplicable: NO_ACCESS_TOKEN,
  },
  'oidcc-client-test-nonce-invalid': {
    javaClass: 'OIDCCClientTestNonceInvalid',
    provider: 'The ID token nonce is not the one sent (AddInvalidNonceValueToIdToken).',
    rule: ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_nonce_mismatch',
    fault: 'id_token_nonce_mismatch',
  },
  'oidcc-client-test-nonce-unless-code-flow': {
    javaClass: 'OIDCCClientTestNonce',
    provider: 'A well-behaved provider that requires a nonce in the authorization request.',
    rule: 'Send a nonce (every response type but code) and complete the flow.',
    step: 'login',
    outcome: 'accept',
    checks: ['nonceSent'],
    notApplicable: ['code'],
  },
  'oidcc-client-test-scope-userinfo-claims': {
    javaClass: 'OIDCCClientTestScopeUserInfoClaims',
    provider: 'Checks the scope holds one of profile, email, phone, address; returns only the claims of those scopes.',
    rule: 'Request claims by scope and complete the flow.',
    step: 'login',
    outcome: 'accept',
    checks: ['scopeClaims'],
  },
  'oidcc-client-test-client-secret-basic': {
    javaClass: 'OIDCCClientTestClientSecretBasic',
    provider: 'Registers the client for client_secret_basic and checks the token request authenticates that way.',
    rule: 'Authenticate at the token endpoint with HTTP Basic and complete the flow.',
    step: 'login',
    outcome: 'accept',
    checks: ['basicAuth'],
    notApplicable: ['id_token', 'id_token token'],
  },
  'oidcc-client-test-invalid-athash': {
    javaClass: 'OIDCCClientTestInvalidAtHashInIdToken',
    provider: 'The front-channel ID token has a wrong at_hash (AddInvalidAtHashValueToIdToken).',
    rule: ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_at_hash_mismatch',
    fault: 'id_token_bad_at_hash',
    notApplicable: WITHOUT_AT_HASH,
  },
  'oidcc-client-test-missing-athash': {
    javaClass: 'OIDCCClientTestMissingAtHashInIdToken',
    provider: 'The front-channel ID token issued with an access token has no at_hash.',
    rule: ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_at_hash_missing',
    fault: 'id_token_missing_at_hash',
    notApplicable: WITHOUT_AT_HASH,
  },
  'oidcc-client-test-invalid-chash': {
    javaClass: 'OIDCCClientTestInvalidCHashInIdToken',
    provider: 'The front-channel ID token has a wrong c_hash (AddInvalidCHashValueToIdToken).',
    rule: ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_c_hash_mismatch',
    fault: 'id_token_bad_c_hash',
    notApplicable: WITHOUT_C_HASH,
  },
  'oidcc-client-test-missing-chash': {
    javaClass: 'OIDCCClientTestMissingCHashInIdToken',
    provider: 'The front-channel ID token issued with a code has no c_hash.',
    rule: ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_c_hash_missing',
    fault: 'id_token_missing_c_hash',
    notApplicable: WITHOUT_C_HASH,
  },
  'oidcc-client-test-userinfo-bearer-header': {
    javaClass: 'OIDCCClientTestUserinfoBearerHeader',
    provider: 'Takes the access token only from the Authorization header at userinfo (never from the query).',
    rule: 'Call userinfo with Authorization: Bearer.',
    step: 'login',
    outcome: 'accept',
    checks: ['bearerHeader'],
    notApplicable: NO_ACCESS_TOKEN,
  },
  'oidcc-client-test-userinfo-bearer-body': {
    javaClass: 'OIDCCClientTestUserinfoBearerBody',
    provider: 'Takes the access token only from the form body at userinfo (RFC 6750 2.2).',
    rule: 'Call userinfo with the access token in a form-encoded POST body.',
    step: 'login',
    outcome: 'accept',
    checks: ['bearerBody'],
    notApplicable: NO_ACCESS_TOKEN,
    needs: { node: ['node.userinfoInBody'] },
  },
  'oidcc-client-test-aggregated-claims': {
    javaClass: 'OIDCCClientTestAggregatedClaims',
    provider: 'Userinfo carries aggregated claims: a signed JWT of another claims provider in _claim_sources.',
    rule: 'Complete the flow; the aggregated claims are verified and used.',
    step: 'login',
    outcome: 'accept',
    fault: 'userinfo_aggregated_claims',
    checks: ['aggregatedClaims'],
    notApplicable: ['id_token'],
    needs: { node: ['node.claimSources'] },
  },
  'oidcc-client-test-distributed-claims': {
    javaClass: 'OIDCCClientTestDistributedClaims',
    provider: 'Userinfo carries distributed claims: an endpoint and access token in _claim_sources.',
    rule: 'Fetch the distributed claims from the claims endpoint with its access token.',
    step: 'login',
    outcome: 'accept',
    fault: 'userinfo_distributed_claims',
    checks: ['distributedClaims'],
    notApplicable: ['id_token'],
    needs: { node: ['node.claimSources'] },
  },
  'oidcc-client-test-form-post-error': {
    javaClass: 'OIDCCClientTestFormPostError',
    provider: 'With response_mode form_post, max_age=0 and prompt=none: posts a login_required error to the redirect URI.',
    rule: 'Consume the form_post error response and show an error.',
    step: 'login',
    outcome: 'reject',
    code: 'authorization_error',
    fault: 'authorize_error_login_required',
    notApplicableModes: ['default'],
  },
  'oidcc-client-test-mtls-endpoint-aliases': {
    javaClass: 'OIDCCClientTestMtlsEndpointAliases',
    provider: 'Discovery carries mtls_endpoint_aliases; the token endpoint must be reached through its alias.',
    rule: 'Use the mTLS alias of the token endpoint.',
    step: 'login',
    outcome: 'accept',
    notApplicable: ['id_token', 'id_token token'],
    notApplicableClientAuth: ['client_secret_basic', 'private_key_jwt'],
  },
  'oidcc-client-test-refresh-token': {
    javaClass: 'OIDCCClientTestRefreshToken',
    provider: 'Issues a refresh token; answers the refresh with new tokens and an ID token.',
    rule: 'Refresh, then call userinfo with the new access token.',
    step: 'refresh',
    outcome: 'accept',
    notApplicable: ['id_token', 'id_token token'],
  },
  'oidcc-client-test-refresh-token-invalid-issuer': {
    javaClass: 'OIDCCClientTestRefreshTokenInvalidIssuer',
    provider: 'The refresh answer carries an ID token with another iss (OIDC Core 12.2).',
    rule: 'Reject the refresh answer: no userinfo request with its access token.',
    step: 'refresh',
    outcome: 'reject',
    code: 'id_token_iss_mismatch',
    fault: 'refresh_id_token_wrong_iss',
    notApplicable: ['id_token', 'id_token token'],
  },
  'oidcc-client-test-refresh-token-invalid-sub': {
    javaClass: 'OIDCCClientTestRefreshTokenInvalidSub',
    provider: 'The refresh answer carries an ID token with another sub (OIDC Core 12.2).',
    rule: 'Reject the refresh answer: no userinfo request with its access token.',
    step: 'refresh',
    outcome: 'reject',
    code: 'id_token_sub_mismatch',
    fault: 'refresh_id_token_wrong_sub',
    notApplicable: ['id_token', 'id_token token'],
  },
  'oidcc-client-test-discovery-openid-config': {
    javaClass: 'config.OIDCCClientTestDiscoveryOpenIDConfiguration',
    provider: 'Serves the provider configuration at .well-known/openid-configuration.',
    rule: 'Fetch discovery, then complete the flow with its endpoints.',
    step: 'login',
    outcome: 'accept',
    checks: ['discoveryFirst'],
  },
  'oidcc-client-test-discovery-jwks-uri-keys': {
    javaClass: 'config.OIDCCClientTestDiscoveryJwksUriKeys',
    provider: 'A jwks_uri that changes every run, known only from discovery.',
    rule: 'Fetch discovery and then the JWKS from its jwks_uri; no other call before them.',
    step: 'login',
    outcome: 'accept',
    checks: ['discoveryFirst', 'jwksFetched'],
  },
  'oidcc-client-test-discovery-issuer-mismatch': {
    javaClass: 'config.OIDCCClientTestDiscoveryIssuerMismatch',
    provider: 'The discovery document names another issuer (ChangeIssuerInServerConfigurationToBeInvalid).',
    rule: 'Stop after discovery: no authorization request.',
    step: 'discovery',
    outcome: 'reject',
    code: 'discovery_issuer_mismatch',
    fault: 'discovery_issuer_mismatch',
    tenant: 'oidcc-mismatch',
  },
  'oidcc-client-test-signing-key-rotation-just-before-signing': {
    javaClass: 'config.OIDCCClientTestSigningKeyRotationJustBeforeSigning',
    provider: 'Generates a new signing key (new kid) right before signing the ID token.',
    rule: 'Fetch the JWKS again, verify with the new key, complete the flow.',
    step: 'login',
    outcome: 'accept',
    fault: 'jwks_key_rotated',
    checks: ['jwksFetched'],
  },
  'oidcc-client-test-signing-key-rotation': {
    javaClass: 'config.OIDCCClientTestSigningKeyRotation',
    provider: 'Rotates its keys after the first ID token; the second login is signed by the new key.',
    rule: 'Log in twice; fetch the JWKS again for the second ID token and complete both flows.',
    step: 'keyRotation',
    outcome: 'accept',
    harness: 'control.keys.rotate() between the two logins.',
  },
  'oidcc-client-test-discovery-webfinger-acct': {
    javaClass: 'config.OIDCCClientTestDiscoveryWebfingerAcct',
    provider: 'Answers WebFinger for an acct: identifier with the issuer.',
    rule: 'Find the issuer by WebFinger (acct:), then discovery.',
    step: 'dynamic',
    outcome: 'accept',
    needs: { node: ['node.webfinger'] },
    tenant: 'oidcc-dynamic', // open dynamic registration
  },
  'oidcc-client-test-discovery-webfinger-url': {
    javaClass: 'config.OIDCCClientTestDiscoveryWebfingerURL',
    provider: 'Answers WebFinger for a URL identifier with the issuer.',
    rule: 'Find the issuer by WebFinger (URL), then discovery.',
    step: 'dynamic',
    outcome: 'accept',
    needs: { node: ['node.webfinger'] },
    tenant: 'oidcc-dynamic', // open dynamic registration
  },
  'oidcc-client-test-dynamic-registration': {
    javaClass: 'config.OIDCCClientTestDynamicRegistration',
    provider: 'Requires the client to register dynamically before the flow.',
    rule: 'Register (RFC 7591), then complete the flow with the registered client.',
    step: 'dynamic',
    outcome: 'accept',
    needs: { node: ['node.webfinger', 'node.requestObject'] },
    tenant: 'oidcc-dynamic', // open dynamic registration
  },
  'oidcc-client-test-request-uri-signed-rs256': {
    javaClass: 'OIDCCClientTestRequestUriSignedWithRS256',
    provider: 'Requires request_object_signing_alg RS256 in the registration; fetches the request object from request_uri.',
    rule: 'Pass an RS256 request object by reference and complete the flow.',
    step: 'dynamic',
    outcome: 'accept',
    needs: { node: ['node.requestObject'] },
    tenant: 'oidcc-dynamic', // open dynamic registration
  },
  'oidcc-client-test-request-uri-signed-none': {
    javaClass: 'OIDCCClientTestRequestUriSignedWithNone',
    provider: 'Requires request_object_signing_alg none; fetches the request object from request_uri.',
    rule: 'Pass an unsigned request object by reference and complete the flow.',
    step: 'dynamic',
    outcome: 'accept',
    needs: { node: ['node.requestObject'] },
    tenant: 'oidcc-dynamic', // open dynamic registration
  },
  'oidcc-client-test-userinfo-signed': {
    javaClass: 'OIDCCClientTestSignedUserinfo',
    provider: 'Registers userinfo_signed_response_alg RS256 and answers userinfo as a signed JWT.',
    rule: 'Verify the signed userinfo and complete the flow.',
    step: 'dynamic',
    outcome: 'accept',
    notApplicable: ['id_token'],
    needs: { node: ['node.signedUserinfo'] },
    tenant: 'oidcc-dynamic', // open dynamic registration
  },
  'oidcc-client-test-3rd-party-init-login': {
    javaClass: 'OIDCCClient3rdPartyInitiatedLoginTest',
    provider: 'Sends the user to the registered initiate_login_uri with iss (and login_hint, target_link_uri).',
    rule: 'No authorization request before the initiation; then a normal login to that issuer.',
    step: 'thirdPartyLogin',
    outcome: 'accept',
    needs: { node: ['node.thirdPartyLogin'] },
  },
};

const BACKCHANNEL = (javaClass: string, provider: string, fault: string | undefined, code: string | undefined, pending?: string): CertModule => ({
  javaClass: `logout.${javaClass}`,
  provider: `After RP-initiated logout at end_session, POSTs a logout token to backchannel_logout_uri: ${provider}`,
  rule: fault || pending ? BCL_400 : 'The back-channel logout route answers 200 and the session ends; the RP handles the post-logout redirect.',
  step: 'backchannelLogout',
  outcome: fault || pending ? 'reject' : 'accept',
  ...(code ? { code } : {}),
  ...(fault ? { fault } : {}),
  ...(pending ? { pending } : {}),
});

/** The logout modules (Back-Channel, Front-Channel, RP-Initiated, Session Management, logout plan). */
export const LOGOUT_MODULES: Record<string, CertModule> = {
  'oidcc-client-test-rp-backchannel-rpinitlogout': BACKCHANNEL('OIDCCClientTestBackChannelLogout', 'a valid logout token.', undefined, undefined),
  'oidcc-client-test-rp-backchannel-rpinitlogout-alg-none': BACKCHANNEL('OIDCCClientTestBackChannelLogoutAlgNone', 'an unsecured token (alg none).', 'logout_token_alg_none', 'logout_token_alg_not_allowed'),
  'oidcc-client-test-rp-backchannel-rpinitlogout-no-event': BACKCHANNEL('OIDCCClientTestBackChannelLogoutNoEvent', 'no events claim.', 'logout_token_missing_events', 'logout_token_events_invalid'),
  'oidcc-client-test-rp-backchannel-rpinitlogout-with-nonce': BACKCHANNEL('OIDCCClientTestBackChannelLogoutWithNonce', 'a nonce claim.', 'logout_token_with_nonce', 'logout_token_nonce_present'),
  'oidcc-client-test-rp-backchannel-rpinitlogout-wrong-alg': {
    ...BACKCHANNEL(
      'OIDCCClientTestBackChannelLogoutWrongAlg',
      'signed by a published key of another algorithm (OIDCCSignLogoutTokenWithWrongAlgorithm).',
      'logout_token_wrong_alg',
      'logout_token_alg_not_allowed',
    ),
  },
  'oidcc-client-test-rp-backchannel-rpinitlogout-wrong-aud': BACKCHANNEL('OIDCCClientTestBackChannelLogoutWrongAud', 'an aud other than the client.', 'logout_token_wrong_aud', 'logout_token_aud_mismatch'),
  'oidcc-client-test-rp-backchannel-rpinitlogout-wrong-event': BACKCHANNEL('OIDCCClientTestBackChannelLogoutWrongEvent', 'an events claim without the back-channel logout event.', 'logout_token_wrong_events', 'logout_token_events_invalid'),
  'oidcc-client-test-rp-backchannel-rpinitlogout-wrong-iss': BACKCHANNEL('OIDCCClientTestBackChannelLogoutWrongIssuer', 'an iss other than the issuer.', 'logout_token_wrong_iss', 'logout_token_iss_mismatch'),
  'oidcc-client-test-rp-init-logout': {
    javaClass: 'logout.OIDCCClientTestRPInitLogout',
    provider: 'At end_session: logout tokens to the registered back-channel URI, then the redirect to post_logout_redirect_uri with the state sent.',
    rule: 'Call end_session (id_token_hint, post_logout_redirect_uri) and handle the post-logout redirect.',
    step: 'rpInitiatedLogout',
    outcome: 'accept',
    checks: ['logoutState'],
  },
  'oidcc-client-test-rp-init-logout-other-state': {
    javaClass: 'logout.OIDCCClientTestRPInitLogoutInvalidState',
    provider: 'Redirects to post_logout_redirect_uri with a state other than the one sent (AddInvalidStateToPostLogoutRedirectUriParams).',
    rule: 'Send state at end_session (else skipped); handle the redirect without honouring the wrong state.',
    step: 'rpInitiatedLogout',
    outcome: 'reject',
    code: 'logout_state_mismatch',
    checks: ['logoutState'],
    harness: "The person's browser carries the provider's post-logout redirect: the harness replaces its state.",
  },
  'oidcc-client-test-rp-init-logout-no-state': {
    javaClass: 'logout.OIDCCClientTestRPInitLogoutNoState',
    provider: 'Redirects to post_logout_redirect_uri without the state (RemoveStateFromPostLogoutRedirectUriParams).',
    rule: 'Send state at end_session (else skipped); handle the redirect without it.',
    step: 'rpInitiatedLogout',
    outcome: 'reject',
    code: 'logout_state_mismatch',
    checks: ['logoutState'],
    harness: "The person's browser carries the provider's post-logout redirect: the harness removes its state.",
  },
  'oidcc-client-test-rp-frontchannel-rpinitlogout': {
    javaClass: 'logout.OIDCCClientTestFrontChannelLogoutRPInitiated',
    provider: 'At end_session, renders the client frontchannel_logout_uri in an iframe (iss, sid), then redirects back.',
    rule: 'Call end_session, end the session when the front-channel iframe loads, handle the post-logout redirect.',
    step: 'frontChannelLogout',
    outcome: 'accept',
    needs: { node: ['node.frontChannelLogout'] },
  },
  'oidcc-client-test-rp-frontchannel-opinitlogout': {
    javaClass: 'logout.OIDCCClientTestFrontChannelLogoutOPInitiated',
    provider: 'The provider starts the logout and renders the client frontchannel_logout_uri in an iframe.',
    rule: 'End the session when the front-channel iframe loads.',
    step: 'frontChannelLogout',
    outcome: 'accept',
    needs: { node: ['node.frontChannelLogout'] },
  },
  'oidcc-client-test-session-management': {
    javaClass: 'logout.OIDCCClientTestSessionManagement',
    provider: 'Publishes check_session_iframe; answers unchanged before the logout and changed after it.',
    rule: 'Frame check_session_iframe and post client_id + session_state: unchanged before logout; RP-initiated logout, the post-logout redirect, then a check answered changed.',
    step: 'sessionManagement',
    outcome: 'accept',
    // No fault: the provider's frame answers changed after the logout by itself (its browser state changes), as the suite's does.
    harness: "The app's page checks once before its logout and once after the post-logout redirect; the journal shows the frame loaded both times.",
    needs: { node: ['node.sessionManagement'], browser: ['browser.sessionManagement'] },
  },
};

const FAPI_ID_TOKEN_REJECTED = 'Reject the ID token from the token endpoint: no resource (userinfo) request after it.';
const FAPI_AUTH_REJECTED = 'Reject the authorization response: no token, userinfo or resource request after it.';

/** The FAPI 2.0 client modules (Security Profile Final; Message Signing Final adds the JARM ones). */
export const FAPI2_MODULES: Record<string, CertModule> = {
  'fapi2-security-profile-final-client-test-happy-path': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestHappyPath',
    provider: 'A well-behaved FAPI 2.0 provider; DPoP server nonces required at the token endpoint and the resource.',
    rule: 'PAR, private_key_jwt, DPoP (with the server nonce), then a DPoP resource (userinfo) request.',
    step: 'login',
    outcome: 'accept',
    checks: ['dpopNonce', 'noExpiresIn'],
  },
  'fapi2-security-profile-final-client-test-happy-path-no-dpop-nonce': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestHappyPathNoDpopNonce',
    provider: 'The happy path without DPoP server nonces.',
    rule: 'Complete the flow with DPoP proofs that carry no nonce.',
    step: 'login',
    outcome: 'accept',
    tenant: 'fapi-no-nonce',
  },
  'fapi2-security-profile-final-client-test-discovery-issuer-mismatch': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestDiscoveryIssuerMismatch',
    provider: 'The discovery document names another issuer.',
    rule: 'Stop after discovery: no PAR or authorization request.',
    step: 'discovery',
    outcome: 'reject',
    code: 'discovery_issuer_mismatch',
    fault: 'discovery_issuer_mismatch',
    tenant: 'fapi-mismatch',
  },
  'fapi2-security-profile-final-client-test-invalid-iss': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestInvalidIss',
    provider: 'The ID token has another iss.',
    rule: FAPI_ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_iss_mismatch',
    fault: 'id_token_wrong_iss',
  },
  'fapi2-security-profile-final-client-test-invalid-aud': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestInvalidAud',
    provider: 'The ID token has another aud.',
    rule: FAPI_ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_aud_mismatch',
    fault: 'id_token_wrong_aud',
  },
  'fapi2-security-profile-final-client-test-invalid-secondary-aud': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestInvalidSecondaryAud',
    provider: 'The ID token aud is [client, an untrusted client] (AddUntrustedSecondAudValueToIdToken), no azp.',
    rule: `${FAPI_ID_TOKEN_REJECTED} (untrusted audience, or azp missing)`,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_azp_missing',
    fault: 'id_token_multiple_aud_no_azp',
  },
  'fapi2-security-profile-final-client-test-invalid-null-alg': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestInvalidNullAlg',
    provider: 'The ID token is unsecured (alg none).',
    rule: FAPI_ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_alg_not_allowed',
    fault: 'id_token_alg_none',
  },
  'fapi2-security-profile-final-client-test-invalid-alternate-alg': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestInvalidAlternateAlg',
    provider: 'The ID token is signed RS256 by an RSA key of the provider (ForceIdTokenToBeSignedWithAltRS256); FAPI allows PS256, ES256, EdDSA.',
    rule: FAPI_ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_alg_not_allowed',
    fault: 'id_token_alternate_alg_rs256',
    harness: 'Played by id_token_alternate_alg_rs256 on the ES256 FAPI tenant: RS256 by the published RSA key.',
  },
  'fapi2-security-profile-final-client-test-invalid-expired-exp': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestInvalidExpiredExp',
    provider: 'The ID token expired (exp in the past beyond any skew).',
    rule: FAPI_ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_expired',
    fault: 'id_token_expired',
  },
  'fapi2-security-profile-final-client-test-invalid-missing-exp': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestInvalidMissingExp',
    provider: 'The ID token has no exp.',
    rule: FAPI_ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_malformed',
    fault: 'id_token_missing_exp',
  },
  'fapi2-security-profile-final-client-test-invalid-missing-aud': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestInvalidMissingAud',
    provider: 'The ID token has no aud.',
    rule: FAPI_ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_aud_mismatch',
    fault: 'id_token_missing_aud',
  },
  'fapi2-security-profile-final-client-test-invalid-missing-iss': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestInvalidMissingIss',
    provider: 'The ID token has no iss.',
    rule: FAPI_ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_iss_mismatch',
    fault: 'id_token_missing_iss',
  },
  'fapi2-security-profile-final-client-test-valid-aud-as-array': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestValidAudAsArray',
    provider: 'The ID token aud is a one-element array holding the client.',
    rule: 'Accept it and complete the flow.',
    step: 'login',
    outcome: 'accept',
    fault: 'id_token_aud_single_array',
  },
  'fapi2-security-profile-final-client-test-invalid-nonce': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestInvalidNonce',
    provider: 'The ID token nonce is not the one sent.',
    rule: FAPI_ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_nonce_mismatch',
    fault: 'id_token_nonce_mismatch',
  },
  'fapi2-security-profile-final-client-test-invalid-missing-nonce': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestInvalidMissingNonce',
    provider: 'The ID token has no nonce though one was sent (skipped when the client sends none).',
    rule: FAPI_ID_TOKEN_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'id_token_nonce_missing',
    fault: 'id_token_missing_nonce',
  },
  'fapi2-security-profile-final-client-test-invalid-authorization-response-iss': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestInvalidAuthorizationResponseIss',
    provider: 'The authorization response has another iss (RFC 9207).',
    rule: FAPI_AUTH_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'iss_mismatch',
    fault: 'redirect_wrong_iss',
  },
  'fapi2-security-profile-final-client-test-remove-authorization-response-iss': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestRemoveAuthorizationResponseIss',
    provider: 'The authorization response has no iss.',
    rule: FAPI_AUTH_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'iss_missing',
    fault: 'redirect_missing_iss',
  },
  'fapi2-security-profile-final-client-test-ensure-authorization-response-with-invalid-state-fails': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestEnsureAuthorizationResponseWithInvalidStateFails',
    provider: 'The authorization response has another state.',
    rule: FAPI_AUTH_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'transaction_not_found',
    fault: 'redirect_wrong_state',
  },
  'fapi2-security-profile-final-client-test-ensure-authorization-response-with-invalid-missing-state-fails': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestEnsureAuthorizationResponseWithInvalidMissingStateFails',
    provider: 'The authorization response has no state (skipped when the client sends none).',
    rule: FAPI_AUTH_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'state_missing',
    fault: 'redirect_missing_state',
  },
  'fapi2-security-profile-final-client-test-token-endpoint-response-without-expires_in': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestTokenEndpointResponseWithoutExpiresIn',
    provider: 'The token response has no expires_in (RemoveAccessTokenExpiration).',
    rule: 'Complete the flow.',
    step: 'login',
    outcome: 'accept',
    checks: ['noExpiresIn'],
    harness: 'The reference server (contract profile) never sends expires_in from the code exchange.',
  },
  'fapi2-security-profile-final-client-test-token-type-case-insensitivity': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestTokenTypeCaseInsenstivity',
    provider: 'The token response token_type in inverted case (dPoP) (SetTokenResponseTokenTypeToInvertedCase).',
    rule: 'Accept it (case-insensitive) and complete the flow.',
    step: 'login',
    outcome: 'accept',
    fault: 'token_response_token_type_inverted_case',
  },
  'fapi2-security-profile-final-client-test-rs-dpop-auth-scheme-case-insensitivity': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestRSDpopAuthSchemeCaseInsenstivity',
    provider: 'The resource answers a DPoP nonce error whose WWW-Authenticate scheme is in odd case.',
    rule: 'Retry with the nonce (the scheme is case-insensitive) and complete the flow.',
    step: 'login',
    outcome: 'accept',
    fault: 'userinfo_dpop_challenge_odd_case',
    // Without server nonces at the token endpoint, the first userinfo proof has none: the challenge comes.
    tenant: 'fapi-no-nonce',
    checks: ['userinfoDpopRetry'],
  },
  'fapi2-security-profile-final-client-test-ensure-jarm-without-iss-fails': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestEnsureJarmWithoutIssFails',
    provider: 'The JARM response has no iss.',
    rule: FAPI_AUTH_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'jarm_iss_mismatch',
    fault: 'jarm_missing_iss',
    needs: { node: ['node.jarm'] },
  },
  'fapi2-security-profile-final-client-test-ensure-jarm-with-invalid-iss-fails': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestEnsureJarmWithInvalidIssFails',
    provider: 'The JARM response has another iss.',
    rule: FAPI_AUTH_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'jarm_iss_mismatch',
    fault: 'jarm_wrong_iss',
    needs: { node: ['node.jarm'] },
  },
  'fapi2-security-profile-final-client-test-ensure-jarm-without-aud-fails': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestEnsureJarmWithoutAudFails',
    provider: 'The JARM response has no aud.',
    rule: FAPI_AUTH_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'jarm_aud_mismatch',
    fault: 'jarm_missing_aud',
    needs: { node: ['node.jarm'] },
  },
  'fapi2-security-profile-final-client-test-ensure-jarm-with-invalid-aud-fails': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestEnsureJarmWithInvalidAudFails',
    provider: 'The JARM response has another aud.',
    rule: FAPI_AUTH_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'jarm_aud_mismatch',
    fault: 'jarm_wrong_aud',
    needs: { node: ['node.jarm'] },
  },
  'fapi2-security-profile-final-client-test-ensure-jarm-without-exp-fails': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestEnsureJarmWithoutExpFails',
    provider: 'The JARM response has no exp.',
    rule: FAPI_AUTH_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'jarm_exp_missing',
    fault: 'jarm_missing_exp',
    needs: { node: ['node.jarm'] },
  },
  'fapi2-security-profile-final-client-test-ensure-jarm-with-expired-exp-fails': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestEnsureJarmWithExpiredExpFails',
    provider: 'The JARM response expired.',
    rule: FAPI_AUTH_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'jarm_expired',
    fault: 'jarm_expired',
    needs: { node: ['node.jarm'] },
  },
  'fapi2-security-profile-final-client-test-ensure-jarm-with-invalid-sig-fails': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestEnsureJarmWithInvalidSigFails',
    provider: 'The JARM response signature is altered.',
    rule: FAPI_AUTH_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'jarm_signature_invalid',
    fault: 'jarm_bad_signature',
    needs: { node: ['node.jarm'] },
  },
  'fapi2-security-profile-final-client-test-ensure-jarm-signature-is-not-none': {
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestEnsureJarmSignatureAlgIsNotNone',
    provider: 'The JARM response is unsecured (alg none).',
    rule: FAPI_AUTH_REJECTED,
    step: 'login',
    outcome: 'reject',
    code: 'jarm_alg_not_allowed',
    fault: 'jarm_alg_none',
    needs: { node: ['node.jarm'] },
  },
};

/** Every module, by the suite's test name. */
export const MODULES: Record<string, CertModule> = { ...OIDCC_MODULES, ...LOGOUT_MODULES, ...FAPI2_MODULES };

/** The tenant a module's provider runs in. */
export function tenantOf(name: string): Tenant {
  const module = MODULES[name];
  if (!module) throw new Error(`unknown module ${name}`);
  return module.tenant ?? (name.startsWith('fapi2-') ? 'fapi' : 'oidcc');
}
