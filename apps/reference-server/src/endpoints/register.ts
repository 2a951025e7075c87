/**
 * Dynamic client registration: `POST {base}/oauth/register` (RFC 7591) and the client's own
 * management of its registration at `{base}/oauth/register/{client_id}` (RFC 7592: GET reads,
 * PUT replaces, DELETE removes), with the `registration_access_token` handed out at
 * registration. Only on tenants whose config has `registration`; who may register is its
 * `access` (open, or a Bearer initial access token).
 */
import { randomToken, safeEqual, storageKey } from '../crypto/secrets';
import { OAuthError, errorResponse, jsonResponse } from '../http/errors';
import { BodyError, MAX_BODY_BYTES, readLimited } from '../http/params';
import { registeredClients, type Registration } from '../oauth/registered-clients';
import { invalidMetadata, readClientMetadata, validatedClient } from '../oauth/registration';
import { nowSeconds, type RequestContext, type TenantEntry } from '../request/context';

/** The path of the registration endpoint under the tenant; a client's own URI adds `/{client_id}`. */
export const REGISTER_PATH = '/oauth/register';

function bearer(request: Request): string | undefined {
  const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(request.headers.get('authorization') ?? '');
  return match?.[1];
}

function invalidToken(description: string): OAuthError {
  return new OAuthError('invalid_token', description, 401, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
}

async function jsonBody(request: Request): Promise<unknown> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') throw invalidMetadata('send the client metadata as application/json (RFC 7591 3.1)');
  let bytes: Uint8Array;
  try {
    bytes = await readLimited(request, MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof BodyError) throw invalidMetadata(error.message);
    throw error;
  }
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw invalidMetadata('the body is not valid UTF-8 JSON');
  }
}

function entryOf(ctx: RequestContext): TenantEntry {
  const entry = ctx.server.tenants.get(ctx.tenant.id);
  if (!entry) throw new Error('the request has no tenant entry');
  return entry;
}

function policyOf(ctx: RequestContext) {
  const policy = ctx.tenant.registration;
  if (!policy) throw new OAuthError('invalid_request', 'this tenant does not offer dynamic client registration', 404);
  return policy;
}

function clientUri(ctx: RequestContext, clientId: string): string {
  return `${ctx.issuer}${REGISTER_PATH}/${encodeURIComponent(clientId)}`;
}

// RFC 7591 3.2.1 / RFC 7592 3: the metadata as registered, the client's id, secret and management URI.
function information(ctx: RequestContext, registration: Registration): Record<string, unknown> {
  const { client } = registration;
  return {
    client_id: client.client_id,
    client_id_issued_at: registration.issuedAt,
    ...(client.client_secret !== undefined ? { client_secret: client.client_secret, client_secret_expires_at: 0 } : {}),
    ...registration.metadata,
    registration_client_uri: clientUri(ctx, client.client_id),
  };
}

async function answer(run: () => Promise<Response>): Promise<Response> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof OAuthError) return errorResponse(error);
    throw error;
  }
}

/**
 * Handles `POST {base}/oauth/register`: 201 with the client's information, its secret (for a
 * `client_secret_*` method) and its `registration_access_token`.
 *
 * @example
 * // an entry of the endpoint table in app.ts
 * { path: '/oauth/register', kind: 'json', cors: false, methods: { POST: register } }
 */
export function register(ctx: RequestContext): Promise<Response> {
  return answer(async () => {
    const policy = policyOf(ctx);
    if (policy.access === 'initial_access_token') {
      const presented = bearer(ctx.request);
      if (presented === undefined) throw invalidToken('this tenant registers clients only with its initial access token, sent as a Bearer token (RFC 7591 3)');
      if (!safeEqual(storageKey(presented), storageKey(policy.initialAccessToken ?? ''))) throw invalidToken('the initial access token is not valid');
    }
    const clients = registeredClients(entryOf(ctx));
    if (clients.size >= policy.maxClients) {
      throw new OAuthError('access_denied', `this tenant holds its maximum of ${policy.maxClients} registered clients; delete one first`, 403);
    }
    const requested = readClientMetadata(await jsonBody(ctx.request), policy, ctx.tenant.signing_alg);
    const clientId = randomToken(16);
    const client = validatedClient(ctx.tenant, {
      client_id: clientId,
      ...requested.config,
      ...(requested.needsSecret ? { client_secret: randomToken(32) } : {}),
    });
    const accessToken = randomToken();
    const registration: Registration = { client, metadata: requested.metadata, accessTokenKey: storageKey(accessToken), issuedAt: nowSeconds(ctx.server) };
    clients.set(registration);
    ctx.server.logger.info(`tenant ${ctx.tenant.id}: registered client ${clientId} (${requested.metadata.token_endpoint_auth_method as string})`);
    return jsonResponse({ ...information(ctx, registration), registration_access_token: accessToken }, 201);
  });
}

// The registration a management request names, once its registration access token matches.
function ownRegistration(ctx: RequestContext): { registration: Registration; clients: ReturnType<typeof registeredClients> } {
  policyOf(ctx);
  const clientId = decodeURIComponent(ctx.url.pathname.slice(ctx.url.pathname.lastIndexOf('/') + 1));
  const clients = registeredClients(entryOf(ctx));
  const registration = clients.get(clientId);
  const presented = bearer(ctx.request);
  if (presented === undefined) throw invalidToken('send the registration_access_token as a Bearer token (RFC 7592)');
  // One answer for an unknown client and a wrong token: the URI reveals nothing without the token.
  if (!registration || !safeEqual(storageKey(presented), registration.accessTokenKey)) throw invalidToken('the registration access token is not valid for this client');
  return { registration, clients };
}

/**
 * Handles `GET`, `PUT` and `DELETE {base}/oauth/register/{client_id}` (RFC 7592).
 *
 * @example
 * { path: '/oauth/register/:client_id', kind: 'json', cors: false, methods: { GET: manageRegistration, PUT: manageRegistration, DELETE: manageRegistration } }
 */
export function manageRegistration(ctx: RequestContext): Promise<Response> {
  return answer(async () => {
    const { registration, clients } = ownRegistration(ctx);
    const { client } = registration;
    if (ctx.request.method === 'GET') return jsonResponse(information(ctx, registration), 200);
    if (ctx.request.method === 'DELETE') {
      clients.delete(client.client_id);
      ctx.server.logger.info(`tenant ${ctx.tenant.id}: client ${client.client_id} deleted its registration`);
      return new Response(null, { status: 204, headers: { 'Cache-Control': 'no-store' } });
    }
    const body = await jsonBody(ctx.request);
    const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    // RFC 7592 2.2: the request names the client, and a secret it sends must be the current one.
    if (fields.client_id !== client.client_id) throw new OAuthError('invalid_request', 'client_id in the body must be the client being updated (RFC 7592 2.2)');
    if (fields.client_secret !== undefined && (typeof fields.client_secret !== 'string' || client.client_secret === undefined || !safeEqual(fields.client_secret, client.client_secret))) {
      throw new OAuthError('invalid_request', 'client_secret in the body must be the current secret (RFC 7592 2.2)');
    }
    const requested = readClientMetadata(body, policyOf(ctx), ctx.tenant.signing_alg);
    const secret = requested.needsSecret ? (client.client_secret ?? randomToken(32)) : undefined;
    const updated = validatedClient(ctx.tenant, { client_id: client.client_id, ...requested.config, ...(secret !== undefined ? { client_secret: secret } : {}) });
    const next: Registration = { ...registration, client: updated, metadata: requested.metadata };
    clients.set(next);
    return jsonResponse(information(ctx, next), 200);
  });
}
