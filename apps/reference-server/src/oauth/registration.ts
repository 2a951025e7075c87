/**
 * Dynamic client registration (RFC 7591): client metadata read into a client config, held to the
 * tenant's registration policy and then to exactly the rules a config file's client is held to
 * (validated the same way), so a registered client can do nothing a configured one could not.
 * The policy is stricter than a config file: redirect URIs are https or http on a loopback host
 * (no custom schemes, no http elsewhere even in a development tenant), only the code flow, and
 * public clients use PKCE (the authorize endpoint requires it of every public client).
 */
import type { Client, RegistrationPolicy, SigningAlg, Tenant } from '../config/model';
import { REQUEST_OBJECT_ALGS } from './request-object';
import { ConfigError, type ClientConfig, validateConfig } from '../config/schema';
import { OAuthError } from '../http/errors';

/** `token_endpoint_auth_method` values a client may register with (RFC 7591 2). */
const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt'] as const;
type AuthMethod = (typeof AUTH_METHODS)[number];
const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'] as const;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The metadata a registration (or an update) asked for, read and checked. */
export interface RequestedClient {
  config: Omit<ClientConfig, 'client_id' | 'client_secret'>;
  /** The client gets a secret (a `client_secret_*` method). */
  needsSecret: boolean;
  /** What the client reads back: the metadata as registered, defaults filled in. */
  metadata: Record<string, unknown>;
}

/**
 * The RFC 7591 error `invalid_client_metadata` (or `invalid_redirect_uri`) with `description`.
 *
 * @example
 * throw invalidMetadata('grant_types: implicit is not offered');
 */
export function invalidMetadata(description: string, error: 'invalid_client_metadata' | 'invalid_redirect_uri' = 'invalid_client_metadata'): OAuthError {
  return new OAuthError(error, description);
}

function stringList(value: unknown, name: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v === '')) {
    throw invalidMetadata(`${name} must be an array of non-empty strings`, name === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata');
  }
  if (value.length > 20) throw invalidMetadata(`${name} may list at most 20 values`);
  return [...new Set(value as string[])];
}

function optionalString(value: unknown, name: string, max = 200): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '' || value.length > max || [...value].some((ch) => ch < ' ' || ch === '\u007f')) {
    throw invalidMetadata(`${name} must be a string of 1 to ${max} printable characters`);
  }
  return value;
}

// https anywhere, http on a loopback host only (RFC 8252 7.3); never a fragment.
function redirectUriProblem(uri: string): string | undefined {
  if (!URL.canParse(uri) || uri.includes('#')) return 'must be an absolute URI without a fragment';
  const url = new URL(uri);
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return undefined;
  return 'must be https, or http on localhost, 127.0.0.1 or [::1]';
}

/**
 * Reads RFC 7591 client metadata against a tenant's registration policy. Metadata this server
 * does not understand is ignored (RFC 7591 2); a known field with a wrong value is refused.
 *
 * @example
 * const requested = readClientMetadata(await request.json(), tenant.registration);
 */
export function readClientMetadata(input: unknown, policy: RegistrationPolicy, signingAlg: SigningAlg = 'RS256'): RequestedClient {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalidMetadata('the body must be a JSON object of client metadata');
  const m = input as Record<string, unknown>;

  const method = (m.token_endpoint_auth_method ?? 'client_secret_basic') as AuthMethod;
  if (!AUTH_METHODS.includes(method)) throw invalidMetadata(`token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`);

  const grantTypes = stringList(m.grant_types, 'grant_types') ?? ['authorization_code'];
  const unknownGrant = grantTypes.find((g) => !(GRANT_TYPES as readonly string[]).includes(g));
  if (unknownGrant !== undefined) throw invalidMetadata(`grant_types: only ${GRANT_TYPES.join(', ')} can be registered`);
  if (grantTypes.includes('client_credentials') && method === 'none') throw invalidMetadata('grant_types: client_credentials needs a confidential client (a token_endpoint_auth_method other than none)');

  const responseTypes = stringList(m.response_types, 'response_types') ?? (grantTypes.includes('authorization_code') ? ['code'] : []);
  if (responseTypes.some((t) => t !== 'code')) throw invalidMetadata('response_types: only "code" can be registered (the implicit and hybrid flows are not offered)');
  if (responseTypes.includes('code') !== grantTypes.includes('authorization_code')) {
    throw invalidMetadata('response_types "code" and grant_types "authorization_code" go together (RFC 7591 2.1)');
  }

  const redirectUris = stringList(m.redirect_uris, 'redirect_uris') ?? [];
  if (grantTypes.includes('authorization_code') && redirectUris.length === 0) {
    throw invalidMetadata('redirect_uris is required for the authorization_code grant', 'invalid_redirect_uri');
  }
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw invalidMetadata(`redirect_uris: ${JSON.stringify(uri.slice(0, 200))} ${problem}`, 'invalid_redirect_uri');
  }
  const postLogout = stringList(m.post_logout_redirect_uris, 'post_logout_redirect_uris');
  for (const uri of postLogout ?? []) {
    const problem = redirectUriProblem(uri);
    if (problem) throw invalidMetadata(`post_logout_redirect_uris: ${JSON.stringify(uri.slice(0, 200))} ${problem}`);
  }

  const initiateLoginUri = optionalString(m.initiate_login_uri, 'initiate_login_uri', 2000);
  const initiateProblem = initiateLoginUri === undefined ? undefined : redirectUriProblem(initiateLoginUri);
  if (initiateProblem) throw invalidMetadata(`initiate_login_uri: ${JSON.stringify(initiateLoginUri?.slice(0, 200))} ${initiateProblem}`);
  // Front-Channel Logout 1.0 §2: the page loaded in an iframe at logout; same URI rules.
  const frontchannelUri = optionalString(m.frontchannel_logout_uri, 'frontchannel_logout_uri', 2000);
  if (frontchannelUri !== undefined) {
    const problem = redirectUriProblem(frontchannelUri);
    if (problem) throw invalidMetadata(`frontchannel_logout_uri ${problem}`);
  }
  if (m.frontchannel_logout_session_required !== undefined && typeof m.frontchannel_logout_session_required !== 'boolean') {
    throw invalidMetadata('frontchannel_logout_session_required must be true or false (Front-Channel Logout 1.0 §2)');
  }
  const frontchannelSid = m.frontchannel_logout_session_required === true;

  const rawScope = optionalString(m.scope, 'scope', 1000);
  const scopes = rawScope === undefined ? [...policy.scopes] : [...new Set(rawScope.split(' ').filter((s) => s !== ''))];
  const refused = scopes.find((s) => !policy.scopes.includes(s));
  if (refused !== undefined) throw invalidMetadata(`scope: this tenant registers clients with ${policy.scopes.join(' ')} only`);

  const clientName = optionalString(m.client_name, 'client_name');
  if (m.dpop_bound_access_tokens !== undefined && typeof m.dpop_bound_access_tokens !== 'boolean') {
    throw invalidMetadata('dpop_bound_access_tokens must be true or false (RFC 9449 5.2)');
  }
  const dpop = m.dpop_bound_access_tokens === true;
  const jwksUri = optionalString(m.jwks_uri, 'jwks_uri', 2000);
  const jwks = m.jwks === undefined ? undefined : readJwks(m.jwks);
  if (method === 'private_key_jwt' && jwks === undefined && jwksUri === undefined) throw invalidMetadata('private_key_jwt needs jwks or jwks_uri');
  // RFC 9101 / OIDC Registration 2: request objects and signed userinfo.
  const requestObjectAlg = optionalString(m.request_object_signing_alg, 'request_object_signing_alg', 20);
  if (requestObjectAlg !== undefined && !REQUEST_OBJECT_ALGS.includes(requestObjectAlg)) {
    throw invalidMetadata(`request_object_signing_alg must be one of ${REQUEST_OBJECT_ALGS.join(', ')}`);
  }
  if (m.require_signed_request_object !== undefined && typeof m.require_signed_request_object !== 'boolean') {
    throw invalidMetadata('require_signed_request_object must be true or false (RFC 9101 10.5)');
  }
  const requireSigned = m.require_signed_request_object === true;
  const requestUris = stringList(m.request_uris, 'request_uris');
  const userinfoAlg = optionalString(m.userinfo_signed_response_alg, 'userinfo_signed_response_alg', 20);
  if (userinfoAlg !== undefined && userinfoAlg !== signingAlg) {
    throw invalidMetadata(`userinfo_signed_response_alg must be ${signingAlg}, the algorithm of this tenant's keys`);
  }
  if (m.userinfo_encrypted_response_alg !== undefined || m.request_object_encryption_alg !== undefined) {
    throw invalidMetadata('encrypted userinfo and request objects are not supported: leave out userinfo_encrypted_response_alg and request_object_encryption_alg');
  }
  // Keys serve private_key_jwt, or the signatures of request objects.
  const signsRequestObjects = requestObjectAlg !== undefined && requestObjectAlg !== 'none';
  if (method !== 'private_key_jwt' && !signsRequestObjects && (jwks !== undefined || jwksUri !== undefined)) {
    throw invalidMetadata('jwks and jwks_uri are for token_endpoint_auth_method private_key_jwt or a request_object_signing_alg');
  }
  if (signsRequestObjects && jwks === undefined && jwksUri === undefined) throw invalidMetadata('request_object_signing_alg needs jwks or jwks_uri');

  const jarmAlg = m.authorization_signed_response_alg;
  if (jarmAlg !== undefined && jarmAlg !== 'RS256' && jarmAlg !== 'ES256') {
    throw invalidMetadata('authorization_signed_response_alg must be the tenant\'s signing algorithm (RS256 or ES256; never none)');
  }
  const config: RequestedClient['config'] = {
    redirect_uris: redirectUris,
    grant_types: grantTypes as ClientConfig['grant_types'],
    response_types: responseTypes as ClientConfig['response_types'],
    scopes,
    token_endpoint_auth_method: method,
    resources: [...policy.resources],
    ...(postLogout ? { post_logout_redirect_uris: postLogout } : {}),
    ...(clientName !== undefined ? { client_name: clientName } : {}),
    ...(dpop ? { require_dpop: true } : {}),
    ...(jwks ? { jwks } : {}),
    ...(jwksUri !== undefined ? { jwks_uri: jwksUri } : {}),
    ...(initiateLoginUri !== undefined ? { initiate_login_uri: initiateLoginUri } : {}),
    ...(frontchannelUri !== undefined ? { frontchannel_logout_uri: frontchannelUri, frontchannel_logout_session_required: frontchannelSid } : {}),
    ...(jarmAlg !== undefined ? { authorization_signed_response_alg: jarmAlg } : {}),
    ...(requestObjectAlg !== undefined ? { request_object_signing_alg: requestObjectAlg } : {}),
    ...(requireSigned ? { require_signed_request_object: true } : {}),
    ...(requestUris ? { request_uris: requestUris } : {}),
    ...(userinfoAlg !== undefined ? { userinfo_signed_response_alg: userinfoAlg as ClientConfig['userinfo_signed_response_alg'] } : {}),
  };
  const metadata: Record<string, unknown> = {
    redirect_uris: redirectUris,
    token_endpoint_auth_method: method,
    grant_types: grantTypes,
    response_types: responseTypes,
    scope: scopes.join(' '),
    ...(postLogout ? { post_logout_redirect_uris: postLogout } : {}),
    ...(clientName !== undefined ? { client_name: clientName } : {}),
    ...(m.dpop_bound_access_tokens !== undefined ? { dpop_bound_access_tokens: dpop } : {}),
    ...(jwks ? { jwks } : {}),
    ...(jwksUri !== undefined ? { jwks_uri: jwksUri } : {}),
    ...(initiateLoginUri !== undefined ? { initiate_login_uri: initiateLoginUri } : {}),
    ...(frontchannelUri !== undefined ? { frontchannel_logout_uri: frontchannelUri, frontchannel_logout_session_required: frontchannelSid } : {}),
    ...(jarmAlg !== undefined ? { authorization_signed_response_alg: jarmAlg } : {}),
    ...(requestObjectAlg !== undefined ? { request_object_signing_alg: requestObjectAlg } : {}),
    ...(m.require_signed_request_object !== undefined ? { require_signed_request_object: requireSigned } : {}),
    ...(requestUris ? { request_uris: requestUris } : {}),
    ...(userinfoAlg !== undefined ? { userinfo_signed_response_alg: userinfoAlg } : {}),
  };
  return { config, needsSecret: method.startsWith('client_secret'), metadata };
}

function readJwks(value: unknown): { keys: Record<string, unknown>[] } {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (typeof value !== 'object' || value === null || !Array.isArray(keys) || keys.length > 10 || keys.some((k) => typeof k !== 'object' || k === null || Array.isArray(k))) {
    throw invalidMetadata('jwks must be a JWK Set: { "keys": [ ... ] } with at most 10 public keys');
  }
  return { keys: keys as Record<string, unknown>[] };
}

/**
 * The validated client of a registration: the config file's own rules (key types, private key
 * material, jwks_uri schemes, ...) applied through the same validation; a refusal is
 * `invalid_client_metadata` (`invalid_redirect_uri` for a redirect URI) naming the field.
 *
 * @example
 * const client = validatedClient(tenant, { client_id, ...requested.config });
 */
export function validatedClient(tenant: Tenant, config: ClientConfig): Client {
  try {
    const [validated] = validateConfig({
      tenants: [{ id: tenant.id, development: tenant.development, access_token_format: tenant.access_token_format, signing_alg: tenant.signing_alg, clients: [config] }],
    });
    const client = validated?.clients.get(config.client_id);
    if (!client) throw new Error('validation returned no client');
    return client;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const field = error.field.replace(/^tenants\[0\]\.clients\[0\]\.?/, '');
    const prefix = `invalid config at ${error.field}: `;
    const problem = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
    throw invalidMetadata(`${field}: ${problem}`, field.startsWith('redirect_uris') ? 'invalid_redirect_uri' : 'invalid_client_metadata');
  }
}
