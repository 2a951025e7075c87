/**
 * How `loginAs` authenticates the client it signs in with, at the PAR endpoint and the code
 * exchange: the method the client is registered for (`token_endpoint_auth_method`), else what
 * its credentials allow: a secret in HTTP Basic, an assertion signed with the private key the
 * test passes (`private_key_jwt`), or nothing for a public client. Assertions are made with jose,
 * never with the SDK, on the server's clock (which a test may have moved).
 */
import { importJWK, type JWK, SignJWT } from 'jose';
import type { Client, ClientAuthMethod, Tenant } from '../config/model';
import { randomToken } from '../crypto/secrets';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** An assertion lives this long: enough for one request, well under the server's bound. */
const ASSERTION_SECONDS = 60;

/** The private key of a `private_key_jwt` client: a JWK (with `d`) or a `CryptoKey`. */
export type ClientKey = JsonWebKey | CryptoKey;

/** What a request of the client carries to authenticate it. */
export interface LoginClientAuth {
  /** Form parameters (`client_secret`, or `client_assertion` and its type). */
  form: Record<string, string>;
  headers: Record<string, string>;
}

/** The method `loginAs` uses for a client: one of the server's. */
export type LoginAuthMethod = ClientAuthMethod;

/**
 * The method the client is registered for, else: `private_key_jwt` when the test passed a key
 * (and the client has keys), HTTP Basic (contract profile) or the body (standard profile) for a
 * secret, `private_key_jwt` for a client with keys only, none for a public client.
 *
 * @example
 * const method = loginAuthMethod(tenant, client, options.clientKey !== undefined);
 */
export function loginAuthMethod(tenant: Tenant, client: Client, keyGiven: boolean): LoginAuthMethod {
  const hasKeys = client.jwks !== undefined || client.jwks_uri !== undefined;
  if (client.token_endpoint_auth_method !== undefined) return client.token_endpoint_auth_method;
  if (hasKeys && (keyGiven || client.client_secret === undefined)) return 'private_key_jwt';
  if (client.client_secret !== undefined) return tenant.profile === 'standard' ? 'client_secret_post' : 'client_secret_basic';
  return 'none';
}

/** The algorithm of a private key: its JWK `alg`, else what its type and curve (or hash) say. */
function algorithmOf(key: ClientKey): string {
  if (!isCryptoKey(key)) {
    if (typeof key.alg === 'string') return key.alg;
    if (key.kty === 'EC') return { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' }[key.crv ?? ''] ?? 'ES256';
    if (key.kty === 'OKP') return 'EdDSA';
    return 'RS256';
  }
  const algorithm = key.algorithm as { name: string; namedCurve?: string; hash?: { name: string } };
  const bits = (algorithm.hash?.name ?? 'SHA-256').slice(4);
  if (algorithm.name === 'ECDSA') return { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' }[algorithm.namedCurve ?? ''] ?? 'ES256';
  if (algorithm.name === 'RSA-PSS') return `PS${bits}`;
  if (algorithm.name === 'RSASSA-PKCS1-v1_5') return `RS${bits}`;
  return 'EdDSA';
}

function isCryptoKey(key: ClientKey): key is CryptoKey {
  return typeof CryptoKey !== 'undefined' && key instanceof CryptoKey;
}

/** A fresh assertion (new `jti`) naming the client, for the issuer, at `now` (epoch seconds). */
async function assertion(clientId: string, issuer: string, now: number, key: CryptoKey | Uint8Array, alg: string, kid: string | undefined): Promise<string> {
  return new SignJWT({ jti: randomToken(16) })
    .setProtectedHeader({ alg, ...(kid !== undefined ? { kid } : {}) })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(issuer)
    .setIssuedAt(now)
    .setExpirationTime(now + ASSERTION_SECONDS)
    .sign(key);
}

/**
 * The credentials of one request of `client` by `method` (a new assertion each time).
 *
 * @example
 * const auth = await loginClientAuth(method, client, { issuer, now, key: options.clientKey });
 */
export async function loginClientAuth(
  method: LoginAuthMethod,
  client: Client,
  context: { issuer: string; now: number; key: ClientKey | undefined },
): Promise<LoginClientAuth> {
  const id = client.client_id;
  const secret = client.client_secret;
  switch (method) {
    case 'none':
      return { form: {}, headers: {} };
    case 'client_secret_basic':
    case 'client_secret_post':
    case 'client_secret_jwt':
      if (secret === undefined) throw new Error(`loginAs: client "${id}" is registered for ${method} but has no client_secret`);
      if (method === 'client_secret_post') return { form: { client_secret: secret }, headers: {} };
      if (method === 'client_secret_basic') return { form: {}, headers: { authorization: `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}` } };
      return { form: { client_assertion_type: JWT_BEARER, client_assertion: await assertion(id, context.issuer, context.now, new TextEncoder().encode(secret), 'HS256', undefined) }, headers: {} };
    case 'private_key_jwt': {
      const key = context.key;
      if (key === undefined) {
        throw new Error(`loginAs: client "${id}" authenticates with private_key_jwt: pass its private key, loginAs(username, { client: '${id}', clientKey })`);
      }
      if (!isCryptoKey(key) && typeof key.d !== 'string') throw new Error(`loginAs: clientKey must be the private key of client "${id}" (a JWK with "d", or a CryptoKey)`);
      const alg = algorithmOf(key);
      const signer = isCryptoKey(key) ? key : ((await importJWK(key as JWK, alg)) as CryptoKey);
      const kid = isCryptoKey(key) ? undefined : (key as { kid?: string }).kid;
      return { form: { client_assertion_type: JWT_BEARER, client_assertion: await assertion(id, context.issuer, context.now, signer, alg, kid) }, headers: {} };
    }
  }
}
