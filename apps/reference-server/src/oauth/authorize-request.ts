/**
 * Validation of an authorize request, in the contract's order: until the client and its
 * redirect URI are known the answer is a 400 page; after that every problem is an error
 * redirect to that URI.
 */
import { canonicalResponseType, type Client, isConfidential, type ResponseType } from '../config/model';
import { OAuthError } from '../http/errors';
import { describeInvalid, type Params } from '../http/params';
import type { AuthorizationRequest, ResponseMode } from '../store/store';
import { responseDelivery } from './jarm';
import { requestedResources, resourcesRefusal } from './resource';

/** Where an authorization response (success or error) goes. */
export interface ResponseTarget {
  /** The client the response is for. */
  clientId: string;
  redirectUri: string;
  mode: ResponseMode;
  state?: string;
  /** JARM: the parameters go inside a signed `response` JWT (oauth/jarm.ts). */
  jarm?: boolean;
}

/** What validation concluded. */
export type AuthorizeValidation =
  | { kind: 'page'; message: string }
  | { kind: 'error'; target: ResponseTarget; error: OAuthError }
  | { kind: 'ok'; client: Client; request: AuthorizationRequest };

const PROMPTS = new Set(['none', 'login', 'consent', 'select_account']);
const PKCE_CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * The default response mode of a response type: query for `code`, fragment otherwise.
 *
 * @example
 * defaultMode('code id_token'); // 'fragment'
 */
export function defaultMode(type: ResponseType | undefined): ResponseMode {
  return type === undefined || type === 'code' ? 'query' : 'fragment';
}

function fail(error: string, description: string): OAuthError {
  return new OAuthError(error, description);
}

/**
 * Validates the query of `GET /oidc/authorize` against a tenant's clients.
 *
 * @example
 * const result = validateAuthorizeRequest(queryParams(request), tenant.clients);
 * if (result.kind === 'page') return errorPage(400, result.message);
 */
export function validateAuthorizeRequest(params: Params, clients: ReadonlyMap<string, Client>): AuthorizeValidation {
  const { values, invalid } = params;
  const clientId = values.get('client_id');
  if (invalid.has('client_id')) return { kind: 'page', message: `The client_id parameter ${invalid.get('client_id')}.` };
  if (clientId === undefined) return { kind: 'page', message: 'The request has no client_id.' };
  const client = clients.get(clientId);
  if (!client) return { kind: 'page', message: 'The client_id is not registered with this service.' };
  const redirectUri = values.get('redirect_uri');
  if (invalid.has('redirect_uri')) return { kind: 'page', message: `The redirect_uri parameter ${invalid.get('redirect_uri')}.` };
  if (redirectUri === undefined) return { kind: 'page', message: 'The request has no redirect_uri.' };
  if (!client.redirect_uris.includes(redirectUri)) {
    return { kind: 'page', message: 'The redirect_uri is not registered for this client (it must match exactly).' };
  }

  const state = values.get('state');
  const rawType = values.get('response_type');
  const type = rawType === undefined ? undefined : canonicalResponseType(rawType);
  const delivery = responseDelivery(values.get('response_mode'), type, client);
  const { mode, jarm } = delivery;
  const target: ResponseTarget = { clientId, redirectUri, mode, ...(state !== undefined ? { state } : {}), ...(jarm ? { jarm } : {}) };
  const error = (e: OAuthError): AuthorizeValidation => ({ kind: 'error', target, error: e });

  const malformed = describeInvalid(params);
  if (malformed) return error(fail('invalid_request', malformed));
  if (values.has('request')) return error(fail('request_not_supported', 'request objects are not supported'));
  if (values.has('request_uri')) return error(fail('request_uri_not_supported', 'request_uri is not supported'));
  if (values.has('registration')) return error(fail('registration_not_supported', 'dynamic registration is not supported'));
  if (state === undefined) return error(fail('invalid_request', 'state is required'));
  if (rawType === undefined) return error(fail('invalid_request', 'response_type is required'));
  if (type === undefined) return error(fail('unsupported_response_type', 'the response_type is not supported'));
  if (!client.response_types.includes(type)) {
    return error(fail('unauthorized_client', `the client is not registered for response_type "${type}"`));
  }
  if (delivery.problem !== undefined) return error(fail('invalid_request', delivery.problem));

  const rawScope = values.get('scope');
  if (rawScope === undefined) return error(fail('invalid_request', 'scope is required'));
  const scopes = [...new Set(rawScope.split(' ').filter((s) => s !== ''))];
  if (scopes.length === 0) return error(fail('invalid_request', 'scope is required'));
  const unknown = scopes.find((s) => !client.scopes.includes(s));
  if (unknown !== undefined) return error(fail('invalid_scope', 'a requested scope is not allowed for this client'));
  const idToken = type.split(' ').includes('id_token');
  if (idToken && !scopes.includes('openid')) {
    return error(fail('invalid_scope', 'an ID token is only issued when the scope includes openid'));
  }

  const method = values.get('code_challenge_method');
  const challenge = values.get('code_challenge');
  if (method !== undefined && method !== 'S256') return error(fail('invalid_request', 'code_challenge_method must be S256'));
  if (method !== undefined && challenge === undefined) return error(fail('invalid_request', 'code_challenge is required with code_challenge_method'));
  if (challenge !== undefined && method === undefined) return error(fail('invalid_request', 'code_challenge_method=S256 is required with code_challenge'));
  if (challenge !== undefined && !PKCE_CHALLENGE.test(challenge)) {
    return error(fail('invalid_request', 'code_challenge must be 43-128 characters of A-Z a-z 0-9 - . _ ~'));
  }
  const code = type.includes('code');
  if (challenge !== undefined && !code) return error(fail('invalid_request', 'PKCE applies only to response types with a code'));
  if (code && challenge === undefined && !isConfidential(client)) {
    return error(fail('invalid_request', 'public clients must use PKCE: send code_challenge and code_challenge_method=S256'));
  }
  const nonce = values.get('nonce');
  if (idToken && nonce === undefined) return error(fail('invalid_request', 'nonce is required when an ID token is returned from the authorize endpoint'));

  const prompt = (values.get('prompt') ?? '').split(' ').filter((p) => p !== '');
  if (prompt.some((p) => !PROMPTS.has(p))) return error(fail('invalid_request', 'prompt must be none, login, consent or select_account'));
  if (prompt.includes('none') && prompt.length > 1) return error(fail('invalid_request', 'prompt=none cannot be combined with other values'));
  const rawMaxAge = values.get('max_age');
  if (rawMaxAge !== undefined && !/^\d{1,9}$/.test(rawMaxAge)) {
    return error(fail('invalid_request', 'max_age must be a whole number of seconds'));
  }
  const dpopJkt = values.get('dpop_jkt');
  if (dpopJkt !== undefined && !/^[A-Za-z0-9_-]{43}$/.test(dpopJkt)) {
    return error(fail('invalid_request', 'dpop_jkt must be the base64url SHA-256 JWK thumbprint of the DPoP key (RFC 9449 10)'));
  }
  if (dpopJkt !== undefined && !code) return error(fail('invalid_request', 'dpop_jkt applies only to response types with a code'));
  const loginHint = values.get('login_hint');
  const resources = requestedResources(params);
  const resourceRefusal = resourcesRefusal(resources, client);
  if (resourceRefusal) return error(resourceRefusal);

  const request: AuthorizationRequest = {
    clientId,
    redirectUri,
    responseType: type,
    responseMode: mode,
    ...(jarm ? { jarm } : {}),
    scopes,
    state,
    prompt,
    ...(nonce !== undefined ? { nonce } : {}),
    ...(challenge !== undefined ? { codeChallenge: challenge } : {}),
    ...(rawMaxAge !== undefined ? { maxAge: Number(rawMaxAge) } : {}),
    ...(loginHint !== undefined ? { loginHint } : {}),
    ...(resources.length > 0 ? { resources } : {}),
    ...(dpopJkt !== undefined ? { dpopJkt } : {}),
  };
  return { kind: 'ok', client, request };
}
