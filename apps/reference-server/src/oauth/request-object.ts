/**
 * Request objects (RFC 9101, OpenID Connect Core 6): an authorization request as a JWT the
 * client signed, sent by value (`request`, at authorize or in a PAR body) or by reference
 * (`request_uri`, fetched here). Once verified, its claims ARE the request: parameters sent
 * beside it are ignored (RFC 9101 6.3), except `client_id`, which must match. Checks, in order:
 * `request` and `request_uri` exclusive; the client known; the object no larger than the
 * server reads; `alg` the client registered (`none` only when it registered `none`, never when
 * it requires signed objects); the signature by the client's registered keys; `iss` the client,
 * `aud` this issuer, `exp` not passed, `nbf` not ahead; no nested `request`/`request_uri`;
 * `client_id` the client; and last, `jti` not seen before (spent on the shared store, so a
 * refused object can be fixed and resent).
 */
import type { Client } from '../config/model';
import { privateAddressProblem } from '../config/private-address';
import { storageKey } from '../crypto/secrets';
import { faultyRequestObjectRefusal } from '../faults/request-object';
import { OAuthError } from '../http/errors';
import type { Params } from '../http/params';
import { nowSeconds, type RequestContext } from '../request/context';
import { PRIVATE_KEY_JWT_ALGS, candidateKeys, verifyWith } from './client-assertion';
import { readCapped } from './client-jwks';

/** Algorithms a request object may be signed with; `none` only for a client registered with it. */
export const REQUEST_OBJECT_ALGS: readonly string[] = [...PRIVATE_KEY_JWT_ALGS, 'none'];
/** The most of a request object read, by value or from a `request_uri`. */
export const MAX_REQUEST_OBJECT_BYTES = 16 * 1024;
/** How long a `request_uri` fetch may take. */
const FETCH_TIMEOUT_MS = 5000;
/** Seconds of clock skew on `exp` and `nbf`. */
const SKEW = 60;
/** How far ahead `exp` may be: a request object is not a long-lived credential. */
const MAX_LIFETIME = 3600;
/** JWT claims of the object that are not authorization parameters. */
const JWT_CLAIMS = new Set(['iss', 'aud', 'exp', 'iat', 'nbf', 'jti', 'sub']);

/** `invalid_request_object` (RFC 9101 6.2), or `invalid_request_uri` for a reference that cannot be fetched. */
function refuse(description: string, error = 'invalid_request_object'): OAuthError {
  return new OAuthError(error, description);
}

/**
 * Whether the parameters carry a request object (`request`, or a `request_uri` that is not one
 * of this server's PAR URNs).
 *
 * @example
 * if (carriesRequestObject(params.values)) params = await resolveRequestObject(ctx, params, client);
 */
export function carriesRequestObject(values: ReadonlyMap<string, string>, parPrefix: string): boolean {
  return values.has('request') || (values.has('request_uri') && !(values.get('request_uri') as string).startsWith(parPrefix));
}

/**
 * The parameters of the authorization request a request object carries, verified for `client`.
 * `client_id` of the outer request, when sent, must be the client's. Throws an
 * {@link OAuthError} (`invalid_request_object`, `invalid_request_uri`, `invalid_request`) for
 * every refusal, saying why.
 *
 * @example
 * const inner = await resolveRequestObject(ctx, params, client);
 */
export async function resolveRequestObject(ctx: RequestContext, params: Params, client: Client): Promise<Params> {
  const { values } = params;
  if (values.has('request') && values.has('request_uri')) {
    throw new OAuthError('invalid_request', 'send request or request_uri, not both (RFC 9101 5)');
  }
  const jwt = values.has('request') ? (values.get('request') as string) : await fetchRequestObject(ctx, values.get('request_uri') as string, client);
  const claims = await verifyRequestObject(ctx, jwt, client);
  return paramsOf(claims, client);
}

// By reference: only a URL the server may fetch (https, or http on loopback; never a private
// network address), within the client's registered request_uris when it has any, bounded in time and size.
async function fetchRequestObject(ctx: RequestContext, requestUri: string, client: Client): Promise<string> {
  let url: URL;
  try {
    url = new URL(requestUri);
  } catch {
    throw refuse('request_uri must be an absolute https URL', 'invalid_request_uri');
  }
  const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (!(url.protocol === 'https:' || (url.protocol === 'http:' && loopback))) {
    throw refuse('request_uri must be https (http only on localhost, 127.0.0.1 or [::1])', 'invalid_request_uri');
  }
  const privateAddress = privateAddressProblem(url.hostname);
  if (privateAddress !== undefined) throw refuse(`request_uri points at ${privateAddress}, which this server never fetches`, 'invalid_request_uri');
  const withoutFragment = requestUri.split('#')[0] as string;
  if (client.request_uris.length > 0 && !client.request_uris.some((registered) => registered.split('#')[0] === withoutFragment)) {
    throw refuse('request_uri is not one of the request_uris registered for the client', 'invalid_request_uri');
  }
  try {
    const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { Accept: 'application/oauth-authz-req+jwt, application/jwt' } });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`HTTP ${response.status}`);
    }
    return (await readCapped(response, MAX_REQUEST_OBJECT_BYTES)).trim();
  } catch {
    ctx.server.logger.info(`tenant ${ctx.tenant.id}: request_uri of client ${client.client_id} could not be fetched`);
    throw refuse(`request_uri could not be fetched (a 2xx answer of at most ${MAX_REQUEST_OBJECT_BYTES / 1024} KB within ${FETCH_TIMEOUT_MS / 1000} s, no redirects)`, 'invalid_request_uri');
  }
}

function readSegment(segment: string | undefined): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment ?? '', 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

async function verifyRequestObject(ctx: RequestContext, jwt: string, client: Client): Promise<Record<string, unknown>> {
  if (jwt.length > MAX_REQUEST_OBJECT_BYTES || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(jwt)) {
    throw refuse(jwt.split('.').length === 5 ? 'encrypted request objects are not supported; sign it instead' : 'the request object must be one compact JWS');
  }
  const [headerPart, payloadPart, signature] = jwt.split('.');
  const header = readSegment(headerPart);
  const claims = readSegment(payloadPart);
  if (!header || !claims) throw refuse('the request object is not readable JSON');
  const { alg } = header;
  if (typeof alg !== 'string' || !REQUEST_OBJECT_ALGS.includes(alg)) throw refuse(`the request object must be signed with one of ${PRIVATE_KEY_JWT_ALGS.join(', ')}`);
  const registered = client.request_object_signing_alg;
  if (registered !== undefined && alg !== registered) throw refuse(`the client is registered for request objects signed with ${registered}, not ${alg}`);
  if (alg === 'none') {
    if (client.require_signed_request_object || registered !== 'none') {
      throw refuse(client.require_signed_request_object ? 'this client must sign its request objects' : 'unsigned request objects (alg none) are accepted only from a client registered with request_object_signing_alg none');
    }
    if (signature !== '') throw refuse('an alg none request object has an empty signature');
  } else {
    if (client.jwks === undefined && client.jwks_uri === undefined) throw refuse('the client has no registered keys (jwks or jwks_uri) to verify its request object with');
    let verified = false;
    try {
      verified = await verifyWith(jwt, await candidateKeys(ctx, client, header.kid, alg), alg);
    } catch {
      throw refuse("the client's jwks_uri could not be fetched to verify the request object");
    }
    if (!verified) throw refuse('the request object signature does not verify with the keys registered for the client');
  }
  checkClaims(ctx, claims, client, alg === 'none');
  const faulty = client.faults.size > 0 ? faultyRequestObjectRefusal(client.faults) : undefined;
  if (faulty) throw refuse(faulty);
  const { jti, exp } = claims;
  if (typeof jti === 'string') {
    const ttl = Math.max(1, (typeof exp === 'number' ? exp : nowSeconds(ctx.server) + MAX_LIFETIME) - nowSeconds(ctx.server) + SKEW);
    const first = await ctx.server.store.rememberProof(storageKey(`request-object.${ctx.tenant.id}.${client.client_id}.${jti}`), ttl);
    if (!first) throw refuse('the request object has been used before (its jti); make a new one for every request');
  }
  return claims;
}

function checkClaims(ctx: RequestContext, claims: Record<string, unknown>, client: Client, unsigned: boolean): void {
  const { iss, aud, exp, nbf, jti } = claims;
  // A signed object must say who made it and for whom; an unsigned one proves nothing either way, but what it says must fit.
  if ((!unsigned || iss !== undefined) && iss !== client.client_id) throw refuse('the request object iss must be the client_id');
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  if ((!unsigned || aud !== undefined) && !audiences.includes(ctx.issuer)) throw refuse(`the request object aud must be the issuer ${ctx.issuer}`);
  const now = nowSeconds(ctx.server);
  if (!unsigned || exp !== undefined) {
    if (typeof exp !== 'number' || !Number.isFinite(exp)) throw refuse('the request object must have a numeric exp');
    if (exp <= now - SKEW) throw refuse('the request object has expired');
    if (exp > now + MAX_LIFETIME + SKEW) throw refuse(`the request object exp must be at most ${MAX_LIFETIME} seconds ahead`);
  }
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > now + SKEW)) throw refuse('the request object is not valid yet (nbf)');
  if (jti !== undefined && (typeof jti !== 'string' || jti === '' || jti.length > 256)) throw refuse('the request object jti must be 1 to 256 characters');
  if (claims.request !== undefined || claims.request_uri !== undefined) throw refuse('a request object may not contain request or request_uri');
  if (claims.client_id !== undefined && claims.client_id !== client.client_id) throw refuse('the request object client_id differs from the client_id of the request');
  if (claims.sub === client.client_id) throw refuse('the request object sub may not be the client_id (RFC 9101 10.8: it is not a client assertion)');
}

// The object's claims as the request's parameters: strings as they are, max_age from a number,
// resource as a list; any other shape is refused rather than guessed at.
function paramsOf(claims: Record<string, unknown>, client: Client): Params {
  const values = new Map<string, string>([['client_id', client.client_id]]);
  const repeated = new Map<string, readonly string[]>();
  for (const [name, value] of Object.entries(claims)) {
    if (JWT_CLAIMS.has(name) || name === 'client_id') continue;
    if (name === 'max_age' && typeof value === 'number' && Number.isInteger(value) && value >= 0) values.set(name, String(value));
    else if (name === 'resource' && Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string')) {
      values.set(name, value[0] as string);
      if (value.length > 1) repeated.set(name, value as string[]);
    } else if (typeof value === 'string') {
      if (value !== '') values.set(name, value);
    } else throw refuse(`the request object claim ${JSON.stringify(name.slice(0, 40))} must be a string`);
  }
  return { values, invalid: new Map(), ...(repeated.size > 0 ? { repeated } : {}) };
}
