/**
 * Client authentication at the token and revocation endpoints: `client_secret_post` (the
 * service's way), `client_secret_basic` (RFC 6749 2.3.1, for standard clients) or none
 * (public clients, and PKCE code exchange). Secrets are compared in constant time.
 */
import type { Client } from '../config/model';
import { safeEqual } from '../crypto/secrets';
import { OAuthError, invalidClient } from '../http/errors';
import { decodeComponent } from '../http/params';
import type { RequestContext } from '../request/context';

/** Who is calling, and whether they proved it with the client secret. */
export interface ClientAuthentication {
  client: Client;
  /** True when a correct client secret was presented. */
  secretVerified: boolean;
  usedBasic: boolean;
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
 * Identifies the client of a token-endpoint style request and checks any secret it sent.
 * Throws 401 `invalid_client` for unknown clients and wrong secrets, 400 `invalid_request`
 * for contradictory credentials. Whether a secret was *required* is the caller's decision.
 *
 * @example
 * const auth = authenticateClient(ctx, form);
 * if (!auth.secretVerified && auth.client.client_secret) throw invalidClient(...);
 */
export function authenticateClient(ctx: RequestContext, form: ReadonlyMap<string, string>): ClientAuthentication {
  const realm = ctx.tenant.id;
  const basic = basicCredentials(ctx.request.headers.get('authorization'), realm);
  const usedBasic = basic !== undefined;
  const bodyId = form.get('client_id');
  const bodySecret = form.get('client_secret');
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
  if (secret === undefined) return { client, secretVerified: false, usedBasic };
  if (client.client_secret === undefined) {
    throw invalidClient('this is a public client; it has no client secret and must not send one', usedBasic, realm);
  }
  if (!safeEqual(secret, client.client_secret)) throw invalidClient('client authentication failed', usedBasic, realm);
  return { client, secretVerified: true, usedBasic };
}

/**
 * Throws 401 `invalid_client` unless a confidential client proved its secret (public clients pass).
 *
 * @example
 * requireSecretIfConfidential(ctx, auth);
 */
export function requireSecretIfConfidential(ctx: RequestContext, auth: ClientAuthentication): void {
  if (auth.client.client_secret !== undefined && !auth.secretVerified) {
    throw invalidClient('this client must authenticate with its client_secret', auth.usedBasic, ctx.tenant.id);
  }
}
