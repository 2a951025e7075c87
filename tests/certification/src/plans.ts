/**
 * The relying-party test plans of the OpenID Foundation's conformance suite, written as data
 * from their Java classes (`...TestPlan.java`): each plan's variants (response type, response
 * mode, client authentication) and the module list of each, in the plan's order. The suite drops
 * a module from a variant it marks not applicable (`@VariantNotApplicable`, in modules.ts);
 * so does this suite. Each variant names the packages that run it and, where a capability of
 * the variant is missing, what (`pending`).
 */
import type { ResponseType, Runner } from './modules';

/** `default`: the response type's own (query for code, fragment otherwise). */
export type ResponseMode = 'default' | 'form_post';
export type ClientAuth = 'client_secret_basic' | 'private_key_jwt';

export interface PlanVariant {
  responseType: ResponseType;
  responseMode: ResponseMode;
  clientAuth: ClientAuth;
  /** The plan's module list for this variant (the suite's test names). */
  modules: readonly string[];
  /** The packages that run this variant; `pending` says what the variant lacks on that runner. */
  runners: Partial<Record<Runner, { pending?: string }>>;
  /** Extra variant settings of the plan, as the suite names them (e.g. sender_constrain: dpop). */
  settings?: Record<string, string>;
}

export interface Plan {
  /** The suite's testPlanName. */
  id: string;
  /** The plan's name in this suite's tables. */
  name: string;
  javaClass: string;
  /** The certification profile it earns, or why it earns none. */
  certification: string;
  variants: readonly PlanVariant[];
  /** What the table should say about the plan beyond its counts. */
  note?: string;
}

const BASIC_MODULES = [
  'oidcc-client-test',
  'oidcc-client-test-invalid-iss',
  'oidcc-client-test-missing-sub',
  'oidcc-client-test-invalid-aud',
  'oidcc-client-test-missing-iat',
  'oidcc-client-test-kid-absent-single-jwks',
  'oidcc-client-test-kid-absent-multiple-jwks',
  'oidcc-client-test-idtoken-sig-rs256',
  'oidcc-client-test-idtoken-sig-none',
  'oidcc-client-test-invalid-sig-rs256',
  'oidcc-client-test-userinfo-invalid-sub',
  'oidcc-client-test-nonce-invalid',
  'oidcc-client-test-scope-userinfo-claims',
  'oidcc-client-test-client-secret-basic',
] as const;

const IMPLICIT_ID_TOKEN_MODULES = [
  'oidcc-client-test',
  'oidcc-client-test-invalid-iss',
  'oidcc-client-test-missing-sub',
  'oidcc-client-test-invalid-aud',
  'oidcc-client-test-missing-iat',
  'oidcc-client-test-kid-absent-single-jwks',
  'oidcc-client-test-kid-absent-multiple-jwks',
  'oidcc-client-test-idtoken-sig-rs256',
  'oidcc-client-test-invalid-sig-rs256',
  'oidcc-client-test-nonce-unless-code-flow',
  'oidcc-client-test-nonce-invalid',
  'oidcc-client-test-scope-userinfo-claims',
] as const;

const IMPLICIT_ID_TOKEN_TOKEN_MODULES = [
  'oidcc-client-test',
  'oidcc-client-test-invalid-iss',
  'oidcc-client-test-missing-sub',
  'oidcc-client-test-invalid-aud',
  'oidcc-client-test-missing-iat',
  'oidcc-client-test-kid-absent-single-jwks',
  'oidcc-client-test-kid-absent-multiple-jwks',
  'oidcc-client-test-invalid-athash',
  'oidcc-client-test-missing-athash',
  'oidcc-client-test-idtoken-sig-rs256',
  'oidcc-client-test-invalid-sig-rs256',
  'oidcc-client-test-userinfo-invalid-sub',
  'oidcc-client-test-nonce-unless-code-flow',
  'oidcc-client-test-nonce-invalid',
  'oidcc-client-test-scope-userinfo-claims',
] as const;

const HYBRID_HEAD = [
  'oidcc-client-test',
  'oidcc-client-test-invalid-iss',
  'oidcc-client-test-missing-sub',
  'oidcc-client-test-invalid-aud',
  'oidcc-client-test-missing-iat',
  'oidcc-client-test-kid-absent-single-jwks',
  'oidcc-client-test-kid-absent-multiple-jwks',
] as const;
const HYBRID_TAIL = [
  'oidcc-client-test-idtoken-sig-rs256',
  'oidcc-client-test-invalid-sig-rs256',
  'oidcc-client-test-userinfo-invalid-sub',
  'oidcc-client-test-nonce-unless-code-flow',
  'oidcc-client-test-nonce-invalid',
  'oidcc-client-test-scope-userinfo-claims',
  'oidcc-client-test-client-secret-basic',
] as const;
const C_HASH = ['oidcc-client-test-invalid-chash', 'oidcc-client-test-missing-chash'] as const;
const AT_HASH = ['oidcc-client-test-invalid-athash', 'oidcc-client-test-missing-athash'] as const;
const HYBRID_MODULES: Record<'code id_token' | 'code token' | 'code id_token token', readonly string[]> = {
  'code id_token': [...HYBRID_HEAD, ...C_HASH, ...HYBRID_TAIL],
  'code token': [...HYBRID_HEAD, ...HYBRID_TAIL],
  'code id_token token': [...HYBRID_HEAD, ...C_HASH, ...AT_HASH, ...HYBRID_TAIL],
};

const CONFIG_MODULES = [
  'oidcc-client-test-discovery-openid-config',
  'oidcc-client-test-discovery-jwks-uri-keys',
  'oidcc-client-test-discovery-issuer-mismatch',
  'oidcc-client-test-idtoken-sig-none',
  'oidcc-client-test-signing-key-rotation-just-before-signing',
  'oidcc-client-test-signing-key-rotation',
] as const;

const DYNAMIC_MODULES = [
  'oidcc-client-test-discovery-webfinger-acct',
  'oidcc-client-test-discovery-webfinger-url',
  'oidcc-client-test-discovery-openid-config',
  'oidcc-client-test-discovery-jwks-uri-keys',
  'oidcc-client-test-discovery-issuer-mismatch',
  'oidcc-client-test-dynamic-registration',
  'oidcc-client-test-request-uri-signed-rs256',
  'oidcc-client-test-request-uri-signed-none',
  'oidcc-client-test-idtoken-sig-none',
  'oidcc-client-test-signing-key-rotation-just-before-signing',
  'oidcc-client-test-signing-key-rotation',
  'oidcc-client-test-userinfo-signed',
] as const;

const BACKCHANNEL_MODULES = [
  'oidcc-client-test-rp-backchannel-rpinitlogout',
  'oidcc-client-test-rp-backchannel-rpinitlogout-alg-none',
  'oidcc-client-test-rp-backchannel-rpinitlogout-no-event',
  'oidcc-client-test-rp-backchannel-rpinitlogout-with-nonce',
  'oidcc-client-test-rp-backchannel-rpinitlogout-wrong-alg',
  'oidcc-client-test-rp-backchannel-rpinitlogout-wrong-aud',
  'oidcc-client-test-rp-backchannel-rpinitlogout-wrong-event',
  'oidcc-client-test-rp-backchannel-rpinitlogout-wrong-iss',
] as const;
const RP_INITIATED_MODULES = ['oidcc-client-test-rp-init-logout', 'oidcc-client-test-rp-init-logout-other-state', 'oidcc-client-test-rp-init-logout-no-state'] as const;

const COMPREHENSIVE_MODULES = [
  'oidcc-client-test',
  'oidcc-client-test-nonce-invalid',
  'oidcc-client-test-client-secret-basic',
  'oidcc-client-test-scope-userinfo-claims',
  'oidcc-client-test-kid-absent-single-jwks',
  'oidcc-client-test-kid-absent-multiple-jwks',
  'oidcc-client-test-missing-iat',
  'oidcc-client-test-missing-aud',
  'oidcc-client-test-invalid-aud',
  'oidcc-client-test-idtoken-sig-none',
  'oidcc-client-test-idtoken-sig-rs256',
  'oidcc-client-test-missing-sub',
  'oidcc-client-test-invalid-sig-rs256',
  'oidcc-client-test-invalid-iss',
  'oidcc-client-test-userinfo-invalid-sub',
  'oidcc-client-test-userinfo-bearer-header',
  'oidcc-client-test-userinfo-bearer-body',
  'oidcc-client-test-nonce-unless-code-flow',
  'oidcc-client-test-missing-chash',
  'oidcc-client-test-invalid-chash',
  'oidcc-client-test-invalid-athash',
  'oidcc-client-test-missing-athash',
  'oidcc-client-test-form-post-error',
  'oidcc-client-test-invalid-sig-hs256',
  'oidcc-client-test-invalid-sig-es256',
  'oidcc-client-test-aggregated-claims',
  'oidcc-client-test-distributed-claims',
  'oidcc-client-test-mtls-endpoint-aliases',
  'oidcc-client-test-discovery-openid-config',
  'oidcc-client-test-discovery-jwks-uri-keys',
  'oidcc-client-test-discovery-issuer-mismatch',
  'oidcc-client-test-signing-key-rotation-just-before-signing',
  'oidcc-client-test-signing-key-rotation',
  'oidcc-client-test-discovery-webfinger-acct',
  'oidcc-client-test-discovery-webfinger-url',
  'oidcc-client-test-dynamic-registration',
  'oidcc-client-test-request-uri-signed-rs256',
  'oidcc-client-test-request-uri-signed-none',
  'oidcc-client-test-userinfo-signed',
] as const;

const LOGOUT_PLAN_MODULES = [
  'oidcc-client-test-session-management',
  ...RP_INITIATED_MODULES,
  'oidcc-client-test-rp-frontchannel-rpinitlogout',
  'oidcc-client-test-rp-frontchannel-opinitlogout',
  ...BACKCHANNEL_MODULES,
] as const;

const FAPI2_SP_MODULES = [
  'fapi2-security-profile-final-client-test-happy-path',
  'fapi2-security-profile-final-client-test-discovery-issuer-mismatch',
  'fapi2-security-profile-final-client-test-invalid-iss',
  'fapi2-security-profile-final-client-test-invalid-aud',
  'fapi2-security-profile-final-client-test-invalid-secondary-aud',
  'fapi2-security-profile-final-client-test-invalid-null-alg',
  'fapi2-security-profile-final-client-test-invalid-alternate-alg',
  'fapi2-security-profile-final-client-test-invalid-expired-exp',
  'fapi2-security-profile-final-client-test-invalid-missing-exp',
  'fapi2-security-profile-final-client-test-invalid-missing-aud',
  'fapi2-security-profile-final-client-test-invalid-missing-iss',
  'fapi2-security-profile-final-client-test-valid-aud-as-array',
  'fapi2-security-profile-final-client-test-invalid-nonce',
  'fapi2-security-profile-final-client-test-invalid-missing-nonce',
  'fapi2-security-profile-final-client-test-invalid-authorization-response-iss',
  'fapi2-security-profile-final-client-test-remove-authorization-response-iss',
  'fapi2-security-profile-final-client-test-ensure-authorization-response-with-invalid-state-fails',
  'fapi2-security-profile-final-client-test-ensure-authorization-response-with-invalid-missing-state-fails',
  'fapi2-security-profile-final-client-test-token-endpoint-response-without-expires_in',
  'fapi2-security-profile-final-client-test-token-type-case-insensitivity',
  'fapi2-security-profile-final-client-test-rs-dpop-auth-scheme-case-insensitivity',
  'fapi2-security-profile-final-client-test-happy-path-no-dpop-nonce',
] as const;
// Message Signing with JARM: the suite marks the two RFC 9207 iss modules not applicable to
// JARM responses (the response JWT carries iss), and adds the JARM ones.
const FAPI2_MS_MODULES = [
  ...FAPI2_SP_MODULES.filter((m) => !m.includes('authorization-response-iss')),
  'fapi2-security-profile-final-client-test-ensure-jarm-without-iss-fails',
  'fapi2-security-profile-final-client-test-ensure-jarm-with-invalid-iss-fails',
  'fapi2-security-profile-final-client-test-ensure-jarm-without-aud-fails',
  'fapi2-security-profile-final-client-test-ensure-jarm-with-invalid-aud-fails',
  'fapi2-security-profile-final-client-test-ensure-jarm-without-exp-fails',
  'fapi2-security-profile-final-client-test-ensure-jarm-with-expired-exp-fails',
  'fapi2-security-profile-final-client-test-ensure-jarm-with-invalid-sig-fails',
  'fapi2-security-profile-final-client-test-ensure-jarm-signature-is-not-none',
];


const basic = (responseType: ResponseType, responseMode: ResponseMode, modules: readonly string[], runners: PlanVariant['runners']): PlanVariant => ({
  responseType,
  responseMode,
  clientAuth: 'client_secret_basic',
  modules,
  runners,
});

/** For the logout and session plans, which pin the response type only: the RP picks the mode (form_post on node, the fragment in the browser). */
const logoutVariants = (modules: readonly string[], types: readonly ResponseType[], browser: boolean, nodePending?: string): PlanVariant[] =>
  types.map((responseType) => ({
    responseType,
    responseMode: responseType === 'code' ? 'default' : 'form_post',
    clientAuth: 'client_secret_basic',
    modules,
    runners: { node: nodePending ? { pending: nodePending } : {}, ...(browser ? { browser: {} } : {}) },
  }));
/** Session Management 1.0 is an RP page framing the provider's check_session_iframe: the browser plays it. */
const SESSION_NODE_PENDING = 'cert-logout: @oidc-rp/node has no session management (an RP page polling check_session_iframe is the browser part)';

const HYBRID_TYPES = ['code id_token', 'code token', 'code id_token token'] as const;
const IMPLICIT_TYPES = ['id_token', 'id_token token'] as const;

export const PLANS: readonly Plan[] = [
  {
    id: 'oidcc-client-basic-certification-test-plan',
    name: 'Basic',
    javaClass: 'OIDCCClientBasicTestPlan',
    certification: 'Basic RP',
    variants: [basic('code', 'default', BASIC_MODULES, { node: {} })],
  },
  {
    id: 'oidcc-client-formpost-basic-certification-test-plan',
    name: 'Form Post Basic',
    javaClass: 'OIDCCClientFormPostBasicTestPlan',
    certification: 'Form Post RP',
    variants: [basic('code', 'form_post', BASIC_MODULES, { node: {} })],
  },
  {
    id: 'oidcc-client-config-certification-test-plan',
    name: 'Config',
    javaClass: 'OIDCCClientConfigTestPlan',
    certification: 'Config RP',
    variants: [basic('code', 'default', CONFIG_MODULES, { node: {}, browser: {} })],
  },
  {
    id: 'oidcc-client-implicit-certification-test-plan',
    name: 'Implicit',
    javaClass: 'OIDCCClientImplicitTestPlan',
    certification: 'Implicit RP',
    variants: [
      basic('id_token', 'default', IMPLICIT_ID_TOKEN_MODULES, { node: {}, browser: {} }),
      basic('id_token token', 'default', IMPLICIT_ID_TOKEN_TOKEN_MODULES, { node: {}, browser: {} }),
    ],
  },
  {
    id: 'oidcc-client-hybrid-certification-test-plan',
    name: 'Hybrid',
    javaClass: 'OIDCCClientHybridTestPlan',
    certification: 'Hybrid RP',
    variants: HYBRID_TYPES.map((t) => basic(t, 'default', HYBRID_MODULES[t], { node: {} })),
  },
  {
    id: 'oidcc-client-formpost-implicit-certification-test-plan',
    name: 'Form Post Implicit',
    javaClass: 'OIDCCClientFormPostImplicitTestPlan',
    certification: 'Form Post RP',
    variants: [
      basic('id_token', 'form_post', IMPLICIT_ID_TOKEN_MODULES, { node: {} }),
      basic('id_token token', 'form_post', IMPLICIT_ID_TOKEN_TOKEN_MODULES, { node: {} }),
    ],
  },
  {
    id: 'oidcc-client-formpost-hybrid-certification-test-plan',
    name: 'Form Post Hybrid',
    javaClass: 'OIDCCClientFormPostHybridTestPlan',
    certification: 'Form Post RP',
    variants: HYBRID_TYPES.map((t) => basic(t, 'form_post', HYBRID_MODULES[t], { node: {} })),
  },
  {
    id: 'oidcc-client-test-3rd-party-init-login-test-plan',
    name: '3rd Party-Init',
    javaClass: 'OIDCCClient3rdPartyInitiatedLoginTestPlan',
    certification: '3rd Party-Init RP',
    variants: [basic('code', 'default', ['oidcc-client-test-3rd-party-init-login'], { node: {} })],
  },
  ...(['basic', 'hybrid', 'implicit'] as const).flatMap((flavour): Plan[] => {
    const types: readonly ResponseType[] = flavour === 'basic' ? ['code'] : flavour === 'hybrid' ? HYBRID_TYPES : IMPLICIT_TYPES;
    const title = flavour[0]?.toUpperCase() + flavour.slice(1);
    return [
      {
        id: `oidcc-client-back-channel-logout-rp-${flavour}`,
        name: `Back-Channel Logout (${flavour})`,
        javaClass: `logout.plan.OIDCCClientBackChannelLogoutRP${title}TestPlan`,
        certification: 'Back-Channel RP',
        variants: logoutVariants(BACKCHANNEL_MODULES, types, false),
      },
      {
        id: `oidcc-client-front-channel-logout-rp-${flavour}`,
        name: `Front-Channel Logout (${flavour})`,
        javaClass: `logout.plan.OIDCCClientFrontChannelLogoutRP${title}TestPlan`,
        certification: 'Front-Channel RP',
        variants: logoutVariants(['oidcc-client-test-rp-frontchannel-rpinitlogout'], types, false),
      },
      {
        id: `oidcc-client-rp-initiated-logout-rp-${flavour}`,
        name: `RP-Initiated Logout (${flavour})`,
        javaClass: `logout.plan.OIDCCClientRPInitiatedLogoutRP${title}TestPlan`,
        certification: 'RP-Initiated RP',
        variants: logoutVariants(RP_INITIATED_MODULES, types, false),
      },
      {
        id: `oidcc-client-rp-session-management-rp-${flavour}`,
        name: `Session Management (${flavour})`,
        javaClass: `logout.plan.OIDCCClientSessionManagementRP${title}TestPlan`,
        certification: 'Session RP',
        variants: logoutVariants(['oidcc-client-test-session-management'], types, true, SESSION_NODE_PENDING),
      },
    ];
  }),
  {
    id: 'fapi2-security-profile-final-client-test-plan',
    name: 'FAPI 2.0 Security Profile Final',
    javaClass: 'fapi2spfinal.FAPI2SPFinalClientTestPlan',
    certification: 'FAPI2SP RP OpenID Connect, private key + DPoP',
    note: 'Variant plain_fapi, oidc client, private_key_jwt + DPoP, unsigned requests, plain responses. The mTLS client-authentication and mTLS sender-constraint variants do not apply (no mTLS in the SDK); the UK intent-id and Brazil refresh modules belong to other profiles.',
    variants: [
      {
        responseType: 'code',
        responseMode: 'default',
        clientAuth: 'private_key_jwt',
        modules: FAPI2_SP_MODULES,
        runners: { node: {} },
        settings: { fapi_profile: 'plain_fapi', fapi_client_type: 'oidc', sender_constrain: 'dpop', fapi_request_method: 'unsigned', fapi_response_mode: 'plain_response' },
      },
    ],
  },
  {
    id: 'fapi2-message-signing-final-client-test-plan',
    name: 'FAPI 2.0 Message Signing Final',
    javaClass: 'fapi2spfinal.FAPI2MessageSigningFinalClientTestPlan',
    certification: 'FAPI2MS RP JAR + JARM (issue 32)',
    note: 'Variant plain_fapi, oidc client, private_key_jwt + DPoP, signed request objects by PAR (JAR) and JARM responses; mTLS variants do not apply.',
    variants: [
      {
        responseType: 'code',
        responseMode: 'default',
        clientAuth: 'private_key_jwt',
        modules: FAPI2_MS_MODULES,
        runners: { node: {} },
        settings: { fapi_profile: 'plain_fapi', fapi_client_type: 'oidc', sender_constrain: 'dpop', fapi_request_method: 'signed_non_repudiation', fapi_response_mode: 'jarm' },
      },
    ],
  },
  {
    id: 'oidcc-client-dynamic-certification-test-plan',
    name: 'Dynamic',
    javaClass: 'OIDCCClientDynamicTestPlan',
    certification: 'Dynamic RP (issue 32)',
    note: 'Pinned to dynamic registration and request_uri: the plan cannot start without the whole chain, so every module waits for it.',
    variants: [
      {
        ...basic('code', 'default', DYNAMIC_MODULES, { node: {} }),
        settings: { client_registration: 'dynamic_client', request_type: 'request_uri' },
      },
    ],
  },
  {
    id: 'oidcc-client-refreshtoken-test-plan',
    name: 'Refresh token (outside certification)',
    javaClass: 'OIDCCClientRefreshTokenProfileTestPlan',
    certification: 'none (not part of the certification program)',
    variants: [basic('code', 'default', ['oidcc-client-test-refresh-token', 'oidcc-client-test-refresh-token-invalid-issuer', 'oidcc-client-test-refresh-token-invalid-sub'], { node: {}, browser: {} })],
  },
  {
    id: 'oidcc-client-test-plan',
    name: 'Comprehensive (outside certification)',
    javaClass: 'OIDCCClientTestPlan',
    certification: 'none (not part of the certification program)',
    note: 'Variants unpinned: run as code with client_secret_basic, by query and by form_post (the form_post error module needs form_post).',
    variants: [basic('code', 'default', COMPREHENSIVE_MODULES, { node: {} }), basic('code', 'form_post', COMPREHENSIVE_MODULES, { node: {} })],
  },
  {
    id: 'oidcc-client-logout-test-plan',
    name: 'Logout (outside certification)',
    javaClass: 'logout.plan.OIDCCClientLogoutTestPlan',
    certification: 'none (not part of the certification program)',
    variants: [
      ...logoutVariants(['oidcc-client-test-session-management'], ['code'], true, SESSION_NODE_PENDING),
      ...logoutVariants(LOGOUT_PLAN_MODULES.filter((m) => m !== 'oidcc-client-test-session-management'), ['code'], false),
    ],
  },
];
