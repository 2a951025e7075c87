/**
 * JWT client authentication (RFC 7523 2.2, OpenID Connect Core 9): `private_key_jwt`, checked
 * against the keys registered for the client (`jwks`, or `jwks_uri`: client-jwks.ts), and
 * `client_secret_jwt`, an HMAC keyed with the client secret. The algorithm decides which: HS* needs a secret, anything else registered keys, so a public key never serves as an
 * HMAC secret. Checks run in a fixed order; the `jti` is spent last, on the shared store, so an
 * assertion refused for another reason can be corrected and one that passed is never accepted again.
 */
import { type JWK, compactVerify, importJWK } from 'jose';
import type { Client, ClientJwk } from '../config/model';
import { storageKey } from '../crypto/secrets';
import { hmacSecretProblem } from '../crypto/secret-strength';
import { faultyAssertionCheck } from '../faults/client-assertion';
import { invalidClient } from '../http/errors';
import { clientKeys } from './client-jwks';
import { nowSeconds, type RequestContext } from '../request/context';

/** `client_assertion_type` of a JWT assertion. */
export const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** Algorithms of `private_key_jwt` (never `none`, never HMAC). */
export const PRIVATE_KEY_JWT_ALGS: readonly string[] = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512', 'EdDSA'];
/** Algorithms of `client_secret_jwt`. */
export const CLIENT_SECRET_JWT_ALGS: readonly string[] = ['HS256', 'HS384', 'HS512'];

/** How far ahead of the server's clock an assertion's `exp` may be: a long-lived assertion is a reusable credential. */
export const MAX_ASSERTION_LIFETIME = 300;
/** Seconds of clock skew accepted on `exp`, `iat` and `nbf`. */
const SKEW = 60;
const MAX_ASSERTION_LENGTH = 8192;
/** At most this many candidate keys are tried for an assertion without `kid`. */
const MAX_CANDIDATES = 10;

/**
 * What the client is told when its assertion is refused for being replayed, having another
 * audience, having expired, or being signed by a key not registered for it: one wording for the
 * checks below and for the faults that imitate them (faults/client-assertion.ts).
 */
const ASSERTION_REFUSALS = {
  replayed: 'the client assertion has been used before; make a new one (a new jti) for every request',
  wrongAud: (issuer: string) => `the client assertion aud must be the issuer ${issuer}, as a string`,
  wrongAudLegacy: (issuer: string) => `the client assertion aud must be the issuer ${issuer} or the token endpoint URL`,
  expired: 'the client assertion has expired',
  unknownKey: 'the client assertion signature does not verify with the keys registered for the client',
} as const;

/** What an assertion proved: the client, and which method it used. */
export interface AssertedClient {
  client: Client;
  method: 'private_key_jwt' | 'client_secret_jwt';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readJson(segment: string | undefined): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment ?? '', 'base64url').toString('utf8'));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Authenticates the client of a request carrying `client_assertion`: the assertion names the
 * client (`iss` = `sub`), which must match a `client_id` in the body, and must be signed by its
 * key (or secret). `aud` is the issuer, or under the tenant's `client_assertion_audience` rule a
 * token endpoint URL (`endpointUrl` is the URL it was sent to). Throws 401
 * `invalid_client` for every refusal, saying why.
 *
 * @example
 * const { client } = await authenticateAssertion(ctx, form, `${ctx.issuer}/oauth/revoke`);
 */
export async function authenticateAssertion(ctx: RequestContext, form: ReadonlyMap<string, string>, endpointUrl: string): Promise<AssertedClient> {
  const realm = ctx.tenant.id;
  const refuse = (description: string) => invalidClient(description, false, realm);
  if (form.get('client_assertion_type') !== JWT_BEARER) throw refuse(`client_assertion_type must be ${JWT_BEARER}`);
  const assertion = form.get('client_assertion') ?? '';
  if (assertion.length > MAX_ASSERTION_LENGTH || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(assertion)) {
    throw refuse('client_assertion must be one compact JWS');
  }
  const [headerPart, payloadPart] = assertion.split('.');
  const header = readJson(headerPart);
  const claims = readJson(payloadPart);
  if (!header || !claims) throw refuse('client_assertion is not readable JSON');

  const clientId = claims.sub;
  if (typeof clientId !== 'string' || clientId === '' || claims.iss !== clientId) {
    throw refuse('the client assertion must have iss and sub both equal to the client_id');
  }
  const bodyId = form.get('client_id');
  if (bodyId !== undefined && bodyId !== clientId) throw refuse('client_id differs from the client named by the assertion');
  const client = ctx.tenant.clients.get(clientId);
  if (!client) throw refuse('the client is not registered with this tenant');

  const alg = header.alg;
  const hmac = typeof alg === 'string' && CLIENT_SECRET_JWT_ALGS.includes(alg);
  if (typeof alg !== 'string' || (!hmac && !PRIVATE_KEY_JWT_ALGS.includes(alg))) {
    throw refuse(`the client assertion must be signed with one of ${[...PRIVATE_KEY_JWT_ALGS, ...CLIENT_SECRET_JWT_ALGS].join(', ')}`);
  }
  const method = hmac ? 'client_secret_jwt' : 'private_key_jwt';
  const registered = client.token_endpoint_auth_method;
  if (registered !== undefined && registered !== method) throw refuse(`this client is registered for ${registered}, not ${method}`);
  if (hmac && client.client_secret === undefined) {
    throw refuse('an HMAC (client_secret_jwt) assertion needs a client with a client_secret; sign with your private key');
  }
  if (!hmac && client.jwks === undefined && client.jwks_uri === undefined) {
    throw refuse('this client has no registered keys (jwks or jwks_uri) for private_key_jwt');
  }

  // Before the signature: a short secret proves nothing. The answer never says how long it is.
  if (hmac && hmacSecretProblem(client.client_secret as string, alg) !== undefined) {
    throw refuse(`the client_secret is too short for ${alg}: RFC 7518 3.2 needs at least ${Number(alg.slice(2)) / 8} bytes; sign with another method or register a longer secret`);
  }

  const verified = hmac
    ? await verifyWith(assertion, [{ secret: client.client_secret as string }], alg)
    : await verifyWith(assertion, await candidateKeys(ctx, client, header.kid, alg), alg);
  if (!verified) throw refuse(ASSERTION_REFUSALS.unknownKey);

  checkClaims(ctx, claims, endpointUrl, refuse);
  // A client with faults may have its valid assertion refused as if a check above had failed (jti unspent).
  const failed = client.faults.size > 0 ? faultyAssertionCheck(client.faults) : undefined;
  if (failed === 'wrongAud') throw refuse(wrongAudience(ctx));
  if (failed !== undefined) throw refuse(ASSERTION_REFUSALS[failed]);
  const jti = claims.jti as string;
  const exp = claims.exp as number;
  // Last, so a refusal above does not spend the jti; kept until the assertion has expired for good.
  const ttl = Math.max(1, exp - nowSeconds(ctx.server) + SKEW);
  const first = await ctx.server.store.rememberProof(storageKey(`client-assertion.${ctx.tenant.id}.${clientId}.${jti}`), ttl);
  if (!first) throw refuse(ASSERTION_REFUSALS.replayed);
  return { client, method };
}

function wrongAudience(ctx: RequestContext): string {
  const legacy = ctx.tenant.client_assertion_audience === 'issuer_or_token_endpoint';
  return legacy ? ASSERTION_REFUSALS.wrongAudLegacy(ctx.issuer) : ASSERTION_REFUSALS.wrongAud(ctx.issuer);
}

/**
 * Whether `aud` names this server under the tenant's rule. `issuer`: the issuer as a string, the
 * one value no other server accepts (RFC 7523bis, FAPI 2.0). `issuer_or_token_endpoint`: also a
 * token endpoint URL (RFC 7523 3) and, at the PAR endpoint, its URL (RFC 9126 2), alone or in an
 * array. Never the URL of another endpoint (revocation, introspection...): an assertion made for
 * one of those is not a token request's credential.
 */
function audienceAccepted(ctx: RequestContext, aud: unknown, endpointUrl: string): boolean {
  const issuer = ctx.issuer;
  if (ctx.tenant.client_assertion_audience === 'issuer') return aud === issuer;
  const audiences = new Set([issuer, `${issuer}/oidc/token`, `${issuer}/oauth/token`]);
  if (endpointUrl === `${issuer}/oauth/par`) audiences.add(endpointUrl);
  const listed: unknown[] = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  return listed.some((value) => typeof value === 'string' && audiences.has(value));
}

function checkClaims(ctx: RequestContext, claims: Record<string, unknown>, endpointUrl: string, refuse: (description: string) => Error): void {
  if (!audienceAccepted(ctx, claims.aud, endpointUrl)) throw refuse(wrongAudience(ctx));
  const now = nowSeconds(ctx.server);
  const { exp, iat, nbf, jti } = claims;
  if (typeof exp !== 'number' || !Number.isFinite(exp)) throw refuse('the client assertion must have a numeric exp');
  if (exp <= now - SKEW) throw refuse(ASSERTION_REFUSALS.expired);
  if (exp > now + MAX_ASSERTION_LIFETIME + SKEW) {
    throw refuse(`the client assertion exp must be at most ${MAX_ASSERTION_LIFETIME} seconds ahead`);
  }
  if (iat !== undefined && (typeof iat !== 'number' || iat > now + SKEW)) throw refuse('the client assertion iat is in the future');
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > now + SKEW)) throw refuse('the client assertion is not valid yet (nbf)');
  if (typeof jti !== 'string' || jti === '' || jti.length > 256) throw refuse('the client assertion must have a jti of 1 to 256 characters');
}

type Candidate = { jwk: ClientJwk } | { secret: string };

export async function verifyWith(assertion: string, candidates: readonly Candidate[], alg: string): Promise<boolean> {
  for (const candidate of candidates.slice(0, MAX_CANDIDATES)) {
    try {
      const key = 'secret' in candidate ? new TextEncoder().encode(candidate.secret) : await importJWK(publicMembers(candidate.jwk), alg);
      await compactVerify(assertion, key, { algorithms: [alg] });
      return true;
    } catch {
      // Another candidate may verify it.
    }
  }
  return false;
}

// Key material only: a registered key's own `alg`, `use` and `key_ops` were matched when it was chosen.
function publicMembers(jwk: ClientJwk): JWK {
  const { kty, crv, n, e, x, y } = jwk as Record<string, string>;
  return { kty, crv, n, e, x, y } as JWK;
}

// The kty an algorithm needs.
function ktyFor(alg: string): string {
  return alg === 'EdDSA' ? 'OKP' : alg.startsWith('ES') ? 'EC' : 'RSA';
}

/** The registered keys that may have signed an assertion (or a request object) with this header. */
export async function candidateKeys(ctx: RequestContext, client: Client, kid: unknown, alg: string): Promise<Candidate[]> {
  const fits = (jwk: ClientJwk) =>
    jwk.kty === ktyFor(alg) &&
    (jwk.use === undefined || jwk.use === 'sig') &&
    (jwk.alg === undefined || jwk.alg === alg) &&
    (kid === undefined || jwk.kid === kid);
  if (client.jwks !== undefined) return client.jwks.filter(fits).map((jwk) => ({ jwk }));
  const uri = client.jwks_uri as string;
  let keys = await clientKeys(ctx, uri, false);
  // A key the cached set does not have may be a rotation: fetch again, at most every 30 s.
  if (!keys.some(fits)) keys = await clientKeys(ctx, uri, true);
  return keys.filter(fits).map((jwk) => ({ jwk }));
}

/**
 * Whether the request carries a client assertion (so the assertion, not a secret, authenticates it).
 *
 * @example
 * if (hasAssertion(form)) return authenticateAssertion(ctx, form, url);
 */
export function hasAssertion(form: ReadonlyMap<string, string>): boolean {
  return form.has('client_assertion') || form.has('client_assertion_type');
}
