/**
 * Client authentication with a signed JWT (RFC 7523 2.2, OpenID Connect Core 9):
 * `private_key_jwt` (the client's own asymmetric key) and `client_secret_jwt` (an HMAC keyed
 * with the client secret). Both are {@link ClientAuth} values like `clientSecretBasic(...)`, so
 * an app that never names them bundles none of this module.
 *
 * The assertion's `aud` is the provider's issuer identifier, as a single string: the RFC 7523
 * clarification (draft-ietf-oauth-rfc7523bis, adopted by FAPI 2.0) closes the audience
 * confusion of sending the token endpoint URL, which another server could accept in its turn.
 * Every provider we know accepts the issuer.
 */

import { DEV } from '../dev';
import type { ClientAuth } from '../provider/client-auth';
import { type Clock, systemClock } from '../clock';
import { base64url, randomBase64url, utf8 } from '../http/encoding';
import { OidcError } from '../errors';
import { invalidOptions, requireString } from '../options';
import type { ProviderMetadata } from '../types';

/** The JWS algorithms `privateKeyJwt` signs with. */
export type PrivateKeyJwtAlgorithm = 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'ES512' | 'EdDSA';

/** The JWS algorithms `clientSecretJwt` signs with. */
export type ClientSecretJwtAlgorithm = 'HS256' | 'HS384' | 'HS512';

/** Options shared by {@link privateKeyJwt} and {@link clientSecretJwt}. */
export interface ClientAssertionOptions {
  /** Seconds the assertion is valid for (its `exp` minus `iat`). Default 60; at most 300. */
  lifetime?: number;
  /** The clock of `iat` and `exp`. Default {@link systemClock}. */
  now?: Clock;
}

/** Options of {@link privateKeyJwt}. */
export interface PrivateKeyJwtOptions extends ClientAssertionOptions {
  /** The key's id in the JWKS registered for the client. Default: the JWK's `kid`; none for a `CryptoKey`. */
  kid?: string;
  /**
   * Default: the JWK's `alg`, else what the key's type allows: ES256/ES384/ES512 by curve, EdDSA
   * for Ed25519, and for RSA the first of the provider's
   * `token_endpoint_auth_signing_alg_values_supported` that is RSA (PS256 when it lists none).
   */
  alg?: PrivateKeyJwtAlgorithm;
}

/** Options of {@link clientSecretJwt}. */
export interface ClientSecretJwtOptions extends ClientAssertionOptions {
  /** Default: the first HS* algorithm the provider lists in `token_endpoint_auth_signing_alg_values_supported`, else HS256. */
  alg?: ClientSecretJwtAlgorithm;
}

/** `client_assertion_type` of a JWT client assertion (RFC 7523 2.2). */
export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

const MAX_LIFETIME = 300;
const JTI_BYTES = 16;
const RSA = ['PS256', 'RS256', 'PS384', 'PS512', 'RS384', 'RS512'] as const;
const HMAC = ['HS256', 'HS384', 'HS512'] as const;

/** WebCrypto parameters of a JWS signing algorithm. Internal (shared with request-object.ts). */
export type SignParams = Algorithm | EcdsaParams | RsaPssParams | HmacImportParams;

/** WebCrypto import and sign parameters of a JWS algorithm; undefined for one this module does not sign with. Internal. */
export function paramsFor(alg: string): SignParams | undefined {
  if (alg === 'EdDSA') return { name: 'Ed25519' };
  const bits = Number(alg.slice(2));
  if (bits !== 256 && bits !== 384 && bits !== 512) return undefined;
  const hash = `SHA-${bits}`;
  switch (alg.slice(0, 2)) {
    case 'RS':
      return { name: 'RSASSA-PKCS1-v1_5', hash } as Algorithm;
    case 'PS':
      return { name: 'RSA-PSS', hash, saltLength: bits / 8 } as RsaPssParams;
    case 'ES':
      return { name: 'ECDSA', hash, namedCurve: bits === 512 ? 'P-521' : `P-${bits}` } as EcdsaParams;
    case 'HS':
      return { name: 'HMAC', hash };
    default:
      return undefined;
  }
}

// The algorithm a key of this type signs with, or for RSA the one the provider prefers.
function defaultAlg(kind: { kty?: string; crv?: string; rsaHash?: string; pss?: boolean }, provider: ProviderMetadata): string | undefined {
  if (kind.kty === 'EC') return ({ 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' } as Record<string, string>)[kind.crv ?? ''];
  if (kind.kty === 'OKP') return kind.crv === 'Ed25519' ? 'EdDSA' : undefined;
  if (kind.kty !== 'RSA') return undefined;
  if (kind.rsaHash) return `${kind.pss ? 'PS' : 'RS'}${kind.rsaHash.slice(4)}`; // a CryptoKey fixes its algorithm
  const listed = provider?.token_endpoint_auth_signing_alg_values_supported;
  const offered = Array.isArray(listed) ? RSA.find((alg) => listed.includes(alg)) : undefined;
  return offered ?? 'PS256';
}

/**
 * `private_key_jwt`: the client proves itself with a JWT it signs with its private key; the
 * provider checks it against the public key registered for the client (its `jwks` or
 * `jwks_uri`). No shared secret exists to leak. The key is a private JWK (with `d`) or a
 * private `CryptoKey` (it may be non-extractable). Every request gets a new assertion: `iss` and
 * `sub` the client id, `aud` the provider's issuer, `jti` 128 random bits, `iat`, and `exp` 60
 * seconds later. `client_assertion_key_unsupported` for a key it cannot sign with (a public or
 * symmetric key, RSA under 2048 bits, an `alg` that does not fit the key), when the client is
 * created or at the first request.
 *
 * @example
 * ```ts
 * const clientAuth = privateKeyJwt(JSON.parse(process.env.CLIENT_PRIVATE_JWK!)); // kid and alg from the JWK
 * const tokens = await clientCredentials({ provider, client: { clientId: 'batch' }, clientAuth });
 * ```
 */
export function privateKeyJwt(key: (JsonWebKey & { kid?: string }) | CryptoKey, options: PrivateKeyJwtOptions = {}): ClientAuth {
  const { kid, now } = checkedOptions(options);
  const isCryptoKey = typeof CryptoKey !== 'undefined' && key instanceof CryptoKey;
  if (!isCryptoKey && (typeof key !== 'object' || key === null || typeof (key as JsonWebKey).d !== 'string' || (key as JsonWebKey).kty === 'oct')) {
    throw unsupportedKey(DEV && 'key must be a private JWK (with "d", not a symmetric key) or a private CryptoKey: for a secret use clientSecretJwt.');
  }
  if (isCryptoKey && ((key as CryptoKey).type !== 'private' || !(key as CryptoKey).usages.includes('sign'))) {
    throw unsupportedKey(DEV && 'The CryptoKey must be a private key allowing "sign".');
  }
  const jwk = isCryptoKey ? undefined : (key as JsonWebKey & { kid?: string });
  const keyId = kid ?? (typeof jwk?.kid === 'string' ? jwk.kid : undefined);
  // Imported once per algorithm: an RSA JWK without `alg` can serve whichever the provider lists.
  const imported = new Map<string, Promise<CryptoKey>>();
  const signingKey = (alg: string, params: SignParams): Promise<CryptoKey> => {
    if (isCryptoKey) return Promise.resolve(key as CryptoKey);
    let pending = imported.get(alg);
    if (!pending) {
      const { kty, crv, n, e, d, p, q, dp, dq, qi, x, y } = jwk as JsonWebKey;
      pending = crypto.subtle.importKey('jwk', { kty, crv, n, e, d, p, q, dp, dq, qi, x, y } as JsonWebKey, params as RsaHashedImportParams, false, ['sign']);
      imported.set(alg, pending);
    }
    return pending;
  };

  return async ({ clientId, provider, body }) => {
    const alg = options.alg ?? (typeof jwk?.alg === 'string' ? jwk.alg : defaultAlg(keyKind(key, jwk), provider));
    const params = alg && !alg.startsWith('HS') ? paramsFor(alg) : undefined;
    if (!alg || !params) throw unsupportedKey(DEV && 'alg must be RS256-512, PS256-512, ES256-512 or EdDSA, and fit the key.');
    let cryptoKey: CryptoKey;
    try {
      cryptoKey = await signingKey(alg, params);
    } catch (cause) {
      throw new OidcError('client_assertion_key_unsupported', DEV && `The key cannot be used for ${alg}: check the JWK or pass another alg.`, { cause });
    }
    checkKeyFits(cryptoKey, params, alg);
    await addAssertion(body, provider, clientId, { alg, ...(keyId !== undefined ? { kid: keyId } : {}) }, cryptoKey, params, options, now);
  };
}

/**
 * `client_secret_jwt`: the client proves it knows its secret with an HMAC-signed JWT instead of
 * sending the secret itself (same claims as {@link privateKeyJwt}). RFC 7518 3.2 asks for a key
 * at least as long as the hash: a secret shorter than 32 bytes is refused with `invalid_options`
 * when the auth is made (shorter than 48 with `alg: 'HS384'`, 64 with `'HS512'`), and one too
 * short for the algorithm the provider lists is refused before the request is sent.
 *
 * @example
 * ```ts
 * const clientAuth = clientSecretJwt(process.env.CLIENT_SECRET!);
 * ```
 */
export function clientSecretJwt(secret: string, options: ClientSecretJwtOptions = {}): ClientAuth {
  requireString(secret, DEV && 'The client secret');
  const { now } = checkedOptions(options);
  if (options.alg !== undefined && !HMAC.includes(options.alg)) throw invalidOptions(DEV && 'alg must be HS256, HS384 or HS512.');
  const bytes = utf8(secret);
  // Refused when made, not at the first request: shorter than 32 bytes keys no HS algorithm.
  const shortest = options.alg ?? 'HS256';
  if (bytes.length < Number(shortest.slice(2)) / 8) throw secretTooShort(shortest);
  const imported = new Map<string, Promise<CryptoKey>>();
  return async ({ clientId, provider, body }) => {
    const listed = provider?.token_endpoint_auth_signing_alg_values_supported;
    const alg = options.alg ?? (Array.isArray(listed) ? HMAC.find((a) => listed.includes(a)) : undefined) ?? 'HS256';
    const params = paramsFor(alg) as HmacImportParams;
    if (bytes.length < Number(alg.slice(2)) / 8) throw secretTooShort(alg);
    let pending = imported.get(alg);
    if (!pending) {
      pending = crypto.subtle.importKey('raw', bytes, params, false, ['sign']);
      imported.set(alg, pending);
    }
    await addAssertion(body, provider, clientId, { alg }, await pending, params, options, now);
  };
}

function secretTooShort(alg: string): OidcError {
  const needed = Number(alg.slice(2)) / 8;
  return invalidOptions(DEV && `The client secret is too short for ${alg}: RFC 7518 3.2 needs at least ${needed} bytes. Ask the provider for a longer one.`);
}

function checkedOptions(options: PrivateKeyJwtOptions | ClientSecretJwtOptions): { kid?: string; now: Clock } {
  const lifetime = options?.lifetime;
  if (lifetime !== undefined && !(Number.isInteger(lifetime) && lifetime > 0 && lifetime <= MAX_LIFETIME)) {
    throw invalidOptions(DEV && `lifetime must be a whole number of seconds from 1 to ${MAX_LIFETIME}.`);
  }
  const kid = (options as PrivateKeyJwtOptions)?.kid;
  if (kid !== undefined) requireString(kid, DEV && 'kid');
  return { ...(kid !== undefined ? { kid } : {}), now: options?.now ?? systemClock };
}

/** What decides a key's default algorithm, from a JWK or a CryptoKey. Internal. */
export function keyKind(key: JsonWebKey | CryptoKey, jwk: JsonWebKey | undefined): { kty?: string; crv?: string; rsaHash?: string; pss?: boolean } {
  if (jwk) return { kty: jwk.kty, crv: jwk.crv };
  const algorithm = (key as CryptoKey).algorithm as Partial<EcKeyAlgorithm & RsaHashedKeyAlgorithm>;
  switch (algorithm.name) {
    case 'ECDSA':
      return { kty: 'EC', crv: algorithm.namedCurve };
    case 'Ed25519':
      return { kty: 'OKP', crv: 'Ed25519' };
    case 'RSA-PSS':
    case 'RSASSA-PKCS1-v1_5':
      return { kty: 'RSA', rsaHash: algorithm.hash?.name, pss: algorithm.name === 'RSA-PSS' };
    default:
      return {};
  }
}

/** A CryptoKey of another algorithm, curve or hash than `alg`, or RSA under 2048 bits, is refused. Internal. */
export function checkKeyFits(key: CryptoKey, params: SignParams, alg: string): void {
  const algorithm = key.algorithm as Partial<EcKeyAlgorithm & RsaHashedKeyAlgorithm>;
  const wanted = params as Partial<EcdsaParams & { namedCurve: string; hash: string }>;
  const fits =
    algorithm.name === params.name &&
    (wanted.namedCurve === undefined || algorithm.namedCurve === wanted.namedCurve) &&
    (algorithm.hash === undefined || algorithm.hash.name === wanted.hash) &&
    (algorithm.modulusLength === undefined || algorithm.modulusLength >= 2048);
  if (!fits) throw unsupportedKey(DEV && `The key does not fit ${alg} (RSA keys need 2048 bits or more): pass the alg the key was made for.`);
}

async function addAssertion(
  body: URLSearchParams,
  provider: ProviderMetadata,
  clientId: string,
  header: { alg: string; kid?: string },
  key: CryptoKey,
  params: SignParams,
  options: ClientAssertionOptions,
  now: Clock,
): Promise<void> {
  const issuer = provider?.issuer;
  requireString(issuer, DEV && "The provider's issuer (the assertion's audience)");
  const iat = now();
  const claims = { iss: clientId, sub: clientId, aud: issuer, jti: randomBase64url(JTI_BYTES), iat, exp: iat + (options.lifetime ?? 60) };
  const input = `${base64url(utf8(JSON.stringify({ ...header, typ: 'JWT' })))}.${base64url(utf8(JSON.stringify(claims)))}`;
  const signature = new Uint8Array(await crypto.subtle.sign(params as EcdsaParams, key, utf8(input)));
  body.set('client_id', clientId);
  body.set('client_assertion_type', JWT_BEARER_ASSERTION);
  body.set('client_assertion', `${input}.${base64url(signature)}`);
}

function unsupportedKey(message: string): OidcError {
  return new OidcError('client_assertion_key_unsupported', message);
}
