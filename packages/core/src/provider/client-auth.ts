/**
 * Client authentication (RFC 6749 2.3, OpenID Connect Core 9) as a value passed to every call
 * that authenticates the client (code exchange, refresh, client credentials, revocation), as
 * oauth4webapi does: `none()` for a public client, `clientSecretPost(secret)`,
 * `clientSecretBasic(secret)`, or `clientSecret(secret)` for the provider's preferred way. An
 * app bundles only the methods it names. `privateKeyJwt(key)` and `clientSecretJwt(secret)`
 * (client-assertion.ts) are values of the same kind: a method is a function of the request it
 * authenticates, and may be async (it signs).
 */

import { DEV } from '../dev';
import { OidcError } from '../errors';
import { invalidOptions, requireString } from '../options';
import type { ClientAuthMethod, ProviderMetadata } from '../types';

/** What a client authentication method is given: the request to the endpoint, before it is sent. */
export interface ClientAuthRequest {
  clientId: string;
  provider: ProviderMetadata;
  /** The form body; a method may add to it (e.g. `client_id`, `client_secret`). */
  body: URLSearchParams;
  /** The request headers; a method may add to them (e.g. `Authorization`). */
  headers: Headers;
}

/**
 * How the client authenticates at the provider's token, revocation and pushed authorization
 * request endpoints. Made by `none`, `clientSecretPost`, `clientSecretBasic`, `clientSecret`,
 * `privateKeyJwt` or `clientSecretJwt`.
 * Throws `invalid_options` (or `pkce_with_client_secret`) for a request it cannot authenticate,
 * before anything is sent.
 *
 * @example
 * ```ts
 * const clientAuth: ClientAuth = clientSecretBasic(process.env.CLIENT_SECRET!);
 * ```
 */
export type ClientAuth = (request: ClientAuthRequest) => void | Promise<void>;

/**
 * A public client (RFC 6749 2.1: a single-page or native app): its `client_id` in the body, no secret.
 *
 * @example
 * ```ts
 * await refreshTokens({ provider, client: { clientId: 'spa' }, clientAuth: none(), refreshToken });
 * ```
 */
export function none(): ClientAuth {
  return ({ clientId, body }) => {
    body.set('client_id', clientId);
  };
}

/**
 * `client_secret_post`: `client_id` and `client_secret` in the body. On a provider that takes the
 * secret *or* a PKCE verifier in the body, never both (`pkce_replaces_client_secret`, this
 * service), a code exchange with a verifier fails with `pkce_with_client_secret` before any
 * request: use Basic, or log in without PKCE.
 *
 * @example
 * ```ts
 * const clientAuth = clientSecretPost(process.env.CLIENT_SECRET!);
 * ```
 */
export function clientSecretPost(secret: string): ClientAuth {
  requireString(secret, DEV && 'The client secret');
  return ({ clientId, provider, body }) => {
    if (body.has('code_verifier') && provider.pkce_replaces_client_secret === true) {
      throw new OidcError(
        'pkce_with_client_secret',
        DEV && 'This provider takes client_secret or code_verifier in the body, never both: use clientSecretBasic, or log in with pkce: false.',
      );
    }
    body.set('client_id', clientId);
    body.set('client_secret', secret);
  };
}

/**
 * `client_secret_basic`: HTTP Basic with the form-encoded id and secret (RFC 6749 2.3.1).
 *
 * @example
 * ```ts
 * const clientAuth = clientSecretBasic(process.env.CLIENT_SECRET!);
 * ```
 */
export function clientSecretBasic(secret: string): ClientAuth {
  requireString(secret, DEV && 'The client secret');
  return ({ clientId, headers }) => {
    headers.set('Authorization', `Basic ${btoa(`${formEncode(clientId)}:${formEncode(secret)}`)}`);
  };
}

/**
 * The secret sent the provider's way ({@link secretAuthMethodFor}): Basic or in the body.
 *
 * @example
 * ```ts
 * const clientAuth = clientSecret(process.env.CLIENT_SECRET!);
 * ```
 */
export function clientSecret(secret: string): ClientAuth {
  const post = clientSecretPost(secret);
  const basic = clientSecretBasic(secret);
  return (request) => (secretAuthMethodFor(request.provider) === 'client_secret_basic' ? basic : post)(request);
}

/**
 * How a provider wants a client secret: from its `token_endpoint_auth_methods_supported`
 * (absent: `client_secret_basic`, the OpenID Connect Discovery default), `client_secret_post`
 * preferred, except where PKCE replaces the body secret (`pkce_replaces_client_secret`): there
 * Basic, when listed, keeps PKCE and authentication together.
 *
 * @example
 * ```ts
 * secretAuthMethodFor(await discover('https://id.example.com')); // e.g. 'client_secret_basic'
 * ```
 */
export function secretAuthMethodFor(provider: ProviderMetadata): Exclude<ClientAuthMethod, 'none'> {
  const listed = provider?.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  const basic = listed.includes('client_secret_basic');
  if (basic && (provider?.pkce_replaces_client_secret === true || !listed.includes('client_secret_post'))) {
    return 'client_secret_basic';
  }
  if (listed.includes('client_secret_post')) return 'client_secret_post';
  throw invalidOptions(
    DEV && 'The provider lists neither client_secret_post nor client_secret_basic: choose clientSecretPost or clientSecretBasic explicitly.',
  );
}

/** Runs `clientAuth` on a request; `invalid_options` when none was given. Internal. */
export async function authenticate(clientAuth: ClientAuth, request: ClientAuthRequest): Promise<void> {
  requireString(request.clientId, DEV && 'client.clientId');
  if (typeof clientAuth !== 'function') {
    throw invalidOptions(DEV && 'clientAuth is required: none() for a public client, clientSecretPost(secret) or clientSecretBasic(secret).');
  }
  await clientAuth(request);
}

// application/x-www-form-urlencoded encoding of one value (spaces become "+"); ASCII out.
function formEncode(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}
