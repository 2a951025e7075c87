/**
 * Token introspection (RFC 7662): a resource server asking the provider about an opaque access
 * token, authenticated as the provider's client. The verifier built on it is
 * `introspection-verifier.ts`.
 */

import { type ClientAuth, authenticate } from '../provider/client-auth';
import { DEV } from '../dev';
import { type DiscoveredProvider, assertSecureUrl, providerMetadata } from '../provider/discovery';
import { OidcError } from '../errors';
import { formHeaders, isJsonObject, readJson, sendRequest } from '../http/transport';
import { requireString } from '../options';
import type { ClientConfig, HttpOptions, ProviderMetadata } from '../types';

/** An introspection answer (RFC 7662 §2.2): `active`, and for an active token its claims. */
export interface IntrospectionResponse {
  active: boolean;
  scope?: string;
  client_id?: string;
  username?: string;
  token_type?: string;
  exp?: number;
  iat?: number;
  nbf?: number;
  sub?: string;
  aud?: string | string[];
  iss?: string;
  jti?: string;
  cnf?: { jkt?: string };
  [claim: string]: unknown;
}

/** Input of {@link introspectToken}: the resource server's own client registration and authentication. */
export interface IntrospectTokenParams {
  /** The provider's metadata, or `discovery(issuer)`: its `introspection_endpoint` is used. */
  provider: ProviderMetadata | DiscoveredProvider;
  client: ClientConfig;
  /** How the resource server authenticates: `clientSecretBasic(secret)`, `clientSecretPost(secret)`, … */
  clientAuth: ClientAuth;
  token: string;
  /** Default `access_token`. */
  tokenTypeHint?: 'access_token' | 'refresh_token';
  http?: HttpOptions;
}

/**
 * Asks the provider's `introspection_endpoint` about a token. Resolves the answer (check
 * `active`); `introspection_failed` when the provider has no such endpoint, refuses the resource
 * server's credentials or answers something that is not an introspection answer; transport
 * failures are `network_error` / `request_timeout`.
 *
 * @example
 * ```ts
 * const answer = await introspectToken({ provider, client: { clientId: 'api' }, clientAuth: clientSecretBasic(secret), token });
 * if (answer.active) console.log(answer.scope);
 * ```
 */
export async function introspectToken(params: IntrospectTokenParams): Promise<IntrospectionResponse> {
  const { client, token } = params;
  const provider = await providerMetadata(params.provider, params.http);
  const endpoint = provider.introspection_endpoint;
  if (endpoint === undefined) {
    throw new OidcError('introspection_failed', DEV && 'The provider has no introspection_endpoint; use a JWT access-token verifier, or configure the endpoint.');
  }
  assertSecureUrl(endpoint, DEV && "The provider's introspection_endpoint");
  requireString(token, DEV && 'token');
  const body = new URLSearchParams({ token, token_type_hint: params.tokenTypeHint ?? 'access_token' });
  const headers = formHeaders();
  await authenticate(params.clientAuth, { clientId: client?.clientId, provider, body, headers });
  return sendRequest(endpoint, { method: 'POST', headers, body, redirect: 'manual' }, params.http, DEV && 'The introspection endpoint', processIntrospectionResponse);
}

/**
 * Reads an introspection endpoint's response: the JSON answer of a 200, else `introspection_failed`
 * (a 401 means the resource server's own credentials were refused).
 *
 * @example
 * ```ts
 * const answer = await processIntrospectionResponse(await fetch(endpoint, init));
 * ```
 */
export async function processIntrospectionResponse(response: Response): Promise<IntrospectionResponse> {
  const body = await readJson(response);
  if (response.status !== 200) {
    throw new OidcError(
      'introspection_failed',
      DEV && `The introspection endpoint answered ${response.status}${response.status === 401 ? ": it refused the resource server's client credentials" : ''}.`,
    );
  }
  if (!body.ok || !isJsonObject(body.value) || typeof body.value.active !== 'boolean') {
    throw new OidcError('introspection_failed', DEV && 'The introspection endpoint did not answer a JSON object with a boolean active member.');
  }
  return body.value as IntrospectionResponse;
}
