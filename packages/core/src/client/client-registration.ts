/**
 * Dynamic client registration (RFC 7591), and managing the registration afterwards (RFC 7592):
 * a client that meets an authorization server for the first time registers itself from its
 * metadata and gets a `client_id` (and a secret for a confidential client). The answer is checked
 * before it is used — a `client_id`, the metadata the client asked for kept (a server that changed
 * the redirect URIs or the authentication method would break or weaken the login) — and the
 * server's refusals carry the RFC's `error` (`invalid_redirect_uri`, `invalid_client_metadata`).
 */

import { DEV } from '../dev';
import { type ClientAuth, clientSecretBasic, clientSecretPost, none } from '../provider/client-auth';
import { isSecure, tryParseUrl } from '../provider/discovery';
import { OidcError } from '../errors';
import { safeErrorValue } from '../error-text';
import { discardBody, isJsonObject, readJson, sendRequest } from '../http/transport';
import { invalidOptions } from '../options';
import type { HttpOptions, ProviderMetadata } from '../types';

/** RFC 7591 §2 client metadata (the fields this SDK knows; any other is sent as given). */
export interface ClientMetadata {
  redirect_uris?: string[];
  /** `none` for a public client (PKCE); `client_secret_basic` (the RFC's default) or `client_secret_post` for a confidential one. */
  token_endpoint_auth_method?: 'none' | 'client_secret_basic' | 'client_secret_post' | (string & {});
  grant_types?: string[];
  response_types?: string[];
  client_name?: string;
  /** Space-separated scopes the client will ask for. */
  scope?: string;
  post_logout_redirect_uris?: string[];
  jwks_uri?: string;
  jwks?: { keys: Record<string, unknown>[] };
  /** RFC 9449 §5.2: the client always uses DPoP. */
  dpop_bound_access_tokens?: boolean;
  [extension: string]: unknown;
}

/** A registered client: its credentials, its registration's management handle, and the metadata the server holds. */
export interface RegisteredClient {
  clientId: string;
  /** For a confidential client (a `client_secret_*` method). */
  clientSecret?: string;
  /** Epoch seconds; 0 when the secret does not expire. */
  clientSecretExpiresAt?: number;
  /** RFC 7592: the Bearer token that reads, updates and deletes this registration. Keep it secret. */
  registrationAccessToken?: string;
  /** RFC 7592: where the registration is read, updated and deleted. */
  registrationClientUri?: string;
  /** The metadata as the server registered it. */
  metadata: ClientMetadata;
}

/** Options of {@link registerClient}. */
export interface RegisterClientParams {
  /** The provider (its `registration_endpoint` is used) or the registration endpoint's URL. */
  provider: ProviderMetadata | string;
  metadata: ClientMetadata;
  /** RFC 7591 §3: the initial access token, when the server requires one. */
  initialAccessToken?: string;
  http?: HttpOptions;
}

/**
 * The server refused a registration request (RFC 7591 §3.2.2) or a management request (RFC 7592):
 * `error` is the RFC's value (`invalid_redirect_uri`, `invalid_client_metadata`, `invalid_token`…).
 */
export class ClientRegistrationError extends OidcError {
  declare readonly status: number;
  declare readonly error: string;
  declare readonly error_description: string | undefined;

  constructor(params: { status: number; error: string; error_description?: string | undefined }) {
    super(
      'client_registration_failed',
      DEV
        ? `The registration endpoint answered HTTP ${params.status} "${safeErrorValue(params.error)}"` +
            (params.error_description ? `: ${params.error_description.slice(0, 200).replace(/[^\x20-\x7e]/g, '?')}` : '') +
            `; ${hint(params.error)}`
        : `client_registration_failed ${safeErrorValue(params.error)}`,
    );
    this.name = 'ClientRegistrationError';
    this.status = params.status;
    this.error = params.error;
    this.error_description = params.error_description;
  }
}

function hint(error: string): string {
  if (error === 'invalid_redirect_uri') return 'register https redirect URIs (http only on localhost or 127.0.0.1).';
  if (error === 'invalid_client_metadata') return 'change the metadata the description names.';
  if (error === 'invalid_token') return 'send the initial access token (or the registration access token) the server issued.';
  return 'check the metadata and the registration endpoint.';
}

/**
 * Registers a client (RFC 7591): POSTs its metadata as JSON to the provider's
 * `registration_endpoint` (with `initialAccessToken` as a Bearer token when given) and checks the
 * answer: a `client_id`; a `client_secret` when the method needs one and none otherwise; the same
 * `redirect_uris`, `token_endpoint_auth_method` and `grant_types` as asked (when asked), else
 * `client_registration_invalid`. A refusal is a {@link ClientRegistrationError}.
 *
 * @example
 * ```ts
 * const registered = await registerClient({
 *   provider,
 *   metadata: { redirect_uris: ['http://127.0.0.1:8976/callback'], token_endpoint_auth_method: 'none', client_name: 'My agent' },
 * });
 * registered.clientId; // use it to log in, with registeredClientAuth(registered)
 * ```
 */
export async function registerClient(params: RegisterClientParams): Promise<RegisteredClient> {
  const endpoint = registrationEndpoint(params.provider);
  if (!isJsonObject(params.metadata)) throw invalidOptions(DEV && 'metadata must be an object of RFC 7591 client metadata.');
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
  if (params.initialAccessToken !== undefined) headers.Authorization = `Bearer ${params.initialAccessToken}`;
  const body = await call(endpoint, { method: 'POST', headers, body: JSON.stringify(params.metadata) }, params.http, 201);
  return checkRegistration(body, params.metadata);
}

/**
 * Reads a registration (RFC 7592 §2.1) with its registration access token.
 *
 * @example
 * ```ts
 * const current = await readClientRegistration(registered);
 * ```
 */
export async function readClientRegistration(registered: RegisteredClient, http?: HttpOptions): Promise<RegisteredClient> {
  const { uri, token } = management(registered);
  const body = await call(uri, { method: 'GET', headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } }, http, 200);
  return { ...checkRegistration(body, {}), registrationAccessToken: stringOr(body.registration_access_token, token) };
}

/**
 * Replaces a registration's metadata (RFC 7592 §2.2): the whole metadata, with the client's id
 * (and its current secret, which the server checks).
 *
 * @example
 * ```ts
 * const updated = await updateClientRegistration(registered, { ...registered.metadata, client_name: 'Renamed' });
 * ```
 */
export async function updateClientRegistration(registered: RegisteredClient, metadata: ClientMetadata, http?: HttpOptions): Promise<RegisteredClient> {
  const { uri, token } = management(registered);
  const request = { ...metadata, client_id: registered.clientId, ...(registered.clientSecret !== undefined ? { client_secret: registered.clientSecret } : {}) };
  const body = await call(uri, { method: 'PUT', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify(request) }, http, 200);
  return { ...checkRegistration(body, metadata), registrationAccessToken: stringOr(body.registration_access_token, token) };
}

/**
 * Deletes a registration (RFC 7592 §2.3): the client's credentials stop working.
 *
 * @example
 * ```ts
 * await deleteClientRegistration(registered);
 * ```
 */
export async function deleteClientRegistration(registered: RegisteredClient, http?: HttpOptions): Promise<void> {
  const { uri, token } = management(registered);
  await call(uri, { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } }, http, 204);
}

/**
 * The client authentication a registered client logs in with: `none()` for a public client, the
 * secret by HTTP Basic or in the body as registered.
 *
 * @example
 * ```ts
 * const tokens = await exchangeCode({ provider, client: { clientId: registered.clientId }, clientAuth: registeredClientAuth(registered), ... });
 * ```
 */
export function registeredClientAuth(registered: RegisteredClient): ClientAuth {
  const method = registered.metadata.token_endpoint_auth_method ?? 'client_secret_basic';
  if (method === 'none') return none();
  if (registered.clientSecret === undefined) throw invalidOptions(DEV && `The client was registered with ${method} but has no client_secret.`);
  return method === 'client_secret_post' ? clientSecretPost(registered.clientSecret) : clientSecretBasic(registered.clientSecret);
}

function registrationEndpoint(provider: ProviderMetadata | string): string {
  const value = typeof provider === 'string' ? provider : provider?.registration_endpoint;
  if (value === undefined) {
    throw new OidcError('registration_not_supported', DEV && 'The provider publishes no registration_endpoint: it does not offer dynamic client registration; register the client with its administrator.');
  }
  const url = tryParseUrl(value);
  if (!url || !isSecure(url)) throw invalidOptions(DEV && 'The registration endpoint must be an https URL (http only on loopback).');
  return url.href;
}

function management(registered: RegisteredClient): { uri: string; token: string } {
  const uri = registered.registrationClientUri;
  const token = registered.registrationAccessToken;
  if (uri === undefined || token === undefined) {
    throw new OidcError('registration_not_supported', DEV && 'The server gave this client no registration_client_uri and registration_access_token: it does not offer RFC 7592 management.');
  }
  const url = tryParseUrl(uri);
  if (!url || !isSecure(url)) throw new OidcError('client_registration_invalid', DEV && 'The registration_client_uri is not an https URL.');
  return { uri: url.href, token };
}

async function call(url: string, init: RequestInit, http: HttpOptions | undefined, expected: number): Promise<Record<string, unknown>> {
  return sendRequest(url, { ...init, redirect: 'manual' }, http, DEV && 'The registration endpoint', async (response) => {
    if (response.status === expected) {
      if (expected === 204) {
        await discardBody(response);
        return {};
      }
      const body = await readJson(response);
      if (!body.ok || !isJsonObject(body.value)) {
        throw new OidcError('client_registration_invalid', DEV && `The registration endpoint answered ${expected} without a JSON object (${body.ok ? 'not an object' : body.problem_}).`);
      }
      return body.value;
    }
    const body = await readJson(response);
    const value = body.ok && isJsonObject(body.value) ? body.value : {};
    throw new ClientRegistrationError({
      status: response.status,
      error: typeof value.error === 'string' ? value.error : 'unexpected_status',
      error_description: typeof value.error_description === 'string' ? value.error_description : undefined,
    });
  });
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

// RFC 7591 §3.2.1: the answer holds the client's id and the metadata as registered.
function checkRegistration(body: Record<string, unknown>, asked: ClientMetadata): RegisteredClient {
  const invalid = (what?: string) => new OidcError('client_registration_invalid', DEV && `The registration answer ${what}; the client cannot use it.`);
  const clientId = body.client_id;
  if (typeof clientId !== 'string' || clientId === '') throw invalid(DEV && 'has no client_id');
  const method = (body.token_endpoint_auth_method ?? asked.token_endpoint_auth_method ?? 'client_secret_basic') as string;
  const secret = body.client_secret;
  if (secret !== undefined && typeof secret !== 'string') throw invalid(DEV && 'has a client_secret that is not a string');
  if (method.startsWith('client_secret') && (secret === undefined || secret === '')) throw invalid(DEV && `registers ${method} but gives no client_secret`);
  for (const field of ['redirect_uris', 'grant_types'] as const) {
    const wanted = asked[field];
    const got = body[field];
    if (wanted !== undefined && got !== undefined && !sameSet(wanted, got)) throw invalid(DEV && `changed the ${field} asked for`);
  }
  if (asked.token_endpoint_auth_method !== undefined && body.token_endpoint_auth_method !== undefined && body.token_endpoint_auth_method !== asked.token_endpoint_auth_method) {
    throw invalid(DEV && 'changed the token_endpoint_auth_method asked for');
  }
  const expiresAt = body.client_secret_expires_at;
  const metadata: ClientMetadata = {};
  for (const [name, value] of Object.entries(body)) {
    if (!['client_id', 'client_secret', 'client_secret_expires_at', 'client_id_issued_at', 'registration_access_token', 'registration_client_uri'].includes(name)) metadata[name] = value;
  }
  if (metadata.token_endpoint_auth_method === undefined) metadata.token_endpoint_auth_method = method;
  return {
    clientId,
    ...(typeof secret === 'string' ? { clientSecret: secret } : {}),
    ...(typeof expiresAt === 'number' ? { clientSecretExpiresAt: expiresAt } : {}),
    ...(typeof body.registration_access_token === 'string' ? { registrationAccessToken: body.registration_access_token } : {}),
    ...(typeof body.registration_client_uri === 'string' ? { registrationClientUri: body.registration_client_uri } : {}),
    metadata,
  };
}

function sameSet(a: readonly unknown[], b: unknown): boolean {
  return Array.isArray(b) && a.length === b.length && a.every((item) => b.includes(item));
}
