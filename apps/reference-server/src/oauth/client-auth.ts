/**
 * Client authentication at every endpoint that authenticates clients (token, revocation, PAR,
 * and any other that calls `authenticateClient`): `client_secret_post` (the service's way),
 * `client_secret_basic` (RFC 6749 2.3.1, for standard clients), `private_key_jwt` and
 * `client_secret_jwt` (RFC 7523, client-assertion.ts), or none (public clients, and PKCE code
 * exchange). Secrets are compared in constant time. A client registered with a
 * `token_endpoint_auth_method` may use that method only.
 */
import { type Client, type ClientAuthMethod, isConfidential } from '../config/model';
import { safeEqual } from '../crypto/secrets';
import { OAuthError, invalidClient } from '../http/errors';
import { decodeComponent } from '../http/params';
import type { RequestContext } from '../request/context';
import { authenticateAssertion, hasAssertion } from './client-assertion';

/** Who is calling, and whether they proved it with the client secret. */
export interface ClientAuthentication {
  client: Client;
  /** True when the client proved itself: a correct client secret, or a valid client assertion. */
  secretVerified: boolean;
  usedBasic: boolean;
  /** The method the request used (`none` when nothing was proved). */
  method: ClientAuthMethod;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function basicCredentials(header: string | null, realm: string): { id: string; secret: string } | undefined {
  if (header === null) return undefined;
  const match = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(header.trim());
  if (!match?.[1]) throw invalidClient('the Authorization header must be HTTP Basic with the client credentials', true, realm);
  let decoded: string;
  try {
    decoded = utf8.decode(Buffer.from(match[1], 'base64'));
  } catch {
    throw invalidClient('the Basic credentials are not valid UTF-8', true, realm);
  }
  const colon = decoded.indexOf(':');
  if (colon === -1) throw invalidClient('the Basic credentials must be client_id:client_secret', true, realm);
  // RFC 6749 2.3.1: id and secret are form-urlencoded before being joined.
  const id = decodeComponent(decoded.slice(0, colon));
  const secret = decodeComponent(decoded.slice(colon + 1));
  if (!id || !secret) throw invalidClient('the Basic credentials are malformed', true, realm);
  return { id, secret };
}

/**
 * Identifies the client of a token-endpoint style request and checks any secret or client
 * assertion it sent. Throws 401 `invalid_client` for unknown clients, wrong secrets and refused
 * assertions, 400 `invalid_request` for contradictory credentials. Whether a credential was
 * *required* is the caller's decision (`requireSecretIfConfidential`).
 *
 * @example
 * const auth = await authenticateClient(ctx, form);
 * requireSecretIfConfidential(ctx, auth);
 */
export async function authenticateClient(ctx: RequestContext, form: ReadonlyMap<string, string>): Promise<ClientAuthentication> {
  const realm = ctx.tenant.id;
  const basic = basicCredentials(ctx.request.headers.get('authorization'), realm);
  const usedBasic = basic !== undefined;
  const bodyId = form.get('client_id');
  const bodySecret = form.get('client_secret');
  if (hasAssertion(form)) {
    // RFC 6749 2.3: one authentication method per request.
    if (basic || bodySecret !== undefined) {
      throw new OAuthError('invalid_request', 'send a client assertion or a client secret, not both');
    }
    // The URL this request was sent to, under the issuer (never built from a client-supplied Host).
    const endpointUrl = `${ctx.issuer}${ctx.url.pathname.slice(realm.length + 1)}`;
    const { client, method } = await authenticateAssertion(ctx, form, endpointUrl);
    return { client, secretVerified: true, usedBasic: false, method };
  }
  if (basic && bodySecret !== undefined) {
    throw new OAuthError('invalid_request', 'send the client secret either in the Authorization header or in the body, not both');
  }
  if (basic && bodyId !== undefined && bodyId !== basic.id) {
    throw new OAuthError('invalid_request', 'client_id in the body differs from the one in the Authorization header');
  }
  const clientId = basic?.id ?? bodyId;
  if (clientId === undefined) throw invalidClient('client_id is required', usedBasic, realm);
  const client = ctx.tenant.clients.get(clientId);
  if (!client) throw invalidClient('the client is not registered with this tenant', usedBasic, realm);
  const secret = basic?.secret ?? bodySecret;
  if (secret === undefined) return { client, secretVerified: false, usedBasic, method: 'none' };
  if (client.client_secret === undefined) {
    throw invalidClient('this client has no client secret and must not send one', usedBasic, realm);
  }
  const method = usedBasic ? 'client_secret_basic' : 'client_secret_post';
  const registered = client.token_endpoint_auth_method;
  if (registered !== undefined && registered !== method) {
    throw invalidClient(`this client is registered for ${registered}, not ${method}`, usedBasic, realm);
  }
  if (!safeEqual(secret, client.client_secret)) throw invalidClient('client authentication failed', usedBasic, realm);
  return { client, secretVerified: true, usedBasic, method };
}

/**
 * Throws 401 `invalid_client` unless a confidential client (one with a secret or registered
 * keys) proved itself (public clients pass).
 *
 * @example
 * requireSecretIfConfidential(ctx, auth);
 */
export function requireSecretIfConfidential(ctx: RequestContext, auth: ClientAuthentication): void {
  if (isConfidential(auth.client) && !auth.secretVerified) {
    const how = auth.client.client_secret === undefined ? 'a client assertion signed with its key (private_key_jwt)' : 'its client_secret';
    throw invalidClient(`this client must authenticate with ${how}`, auth.usedBasic, ctx.tenant.id);
  }
}
