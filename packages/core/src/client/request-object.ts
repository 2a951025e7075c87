/**
 * Request objects (RFC 9101, JWT-Secured Authorization Request): the parameters of an
 * authorization request signed by the client as one JWT, so nothing on the front channel can
 * change them and the provider can prove who asked for what. Sent by value (`request`), inside a
 * pushed request (the FAPI 2.0 Message Signing way) or by reference (`request_uri`, a URL the app
 * hosts). An app that never names these functions bundles none of this module.
 */

import { DEV } from '../dev';
import { type Clock, systemClock } from '../clock';
import { OidcError } from '../errors';
import { base64url, randomBase64url, utf8 } from '../http/encoding';
import { invalidOptions, requireString } from '../options';
import { assertSecureUrl } from '../provider/discovery';
import type { ProviderMetadata } from '../types';
import type { AuthorizationRequest } from './authorization-request';
import { type PrivateKeyJwtAlgorithm, checkKeyFits, keyKind, paramsFor } from './client-assertion';

/** The algorithms a request object is signed with; `none` only by explicit choice (see {@link requestObjectSigner}). */
export type RequestObjectAlgorithm = PrivateKeyJwtAlgorithm | 'none';

/** Options of {@link requestObjectSigner}. */
export interface RequestObjectSignerOptions {
  /**
   * The client's private key: a private JWK (with `d`) or a private `CryptoKey`, whose public half
   * is registered for the client (`jwks` or `jwks_uri`). Often the `private_key_jwt` key. Not
   * allowed with `alg: 'none'`.
   */
  key?: (JsonWebKey & { kid?: string }) | CryptoKey;
  /**
   * Default: the JWK's `alg`, else what the key's type allows (ES256/ES384/ES512 by curve, EdDSA for
   * Ed25519; for RSA the first RSA algorithm of the provider's
   * `request_object_signing_alg_values_supported`, PS256 when it lists none). `'none'` sends an
   * unsigned request object, and only to a provider whose metadata lists `none` there.
   */
  alg?: RequestObjectAlgorithm;
  /** The key's id in the client's registered JWKS. Default: the JWK's `kid`. */
  kid?: string;
  /** Seconds from `nbf` to `exp`. Default 300; at most 3600 (FAPI 2.0 allows 60 minutes). */
  lifetime?: number;
  /** The clock of `iat`, `nbf` and `exp`. Default `systemClock`. */
  now?: Clock;
}

/** Signs request objects; made by `requestObjectSigner`, given to `withRequestObject` (or node's `requestObject` option). */
export interface RequestObjectSigner {
  /** The algorithm chosen, when known before the provider's metadata is (`none`, a JWK's `alg`, the option). */
  readonly alg: string | undefined;
}

/** What a {@link RequestObjectSigner} is inside this module. */
interface SignerInternals extends RequestObjectSigner {
  readonly sign_: (claims: Record<string, unknown>, provider: ProviderMetadata) => Promise<string>;
}

/** How {@link withRequestObject} sends the request object. */
export type RequestObjectDelivery =
  /** `request=<jwt>` in the authorization URL (RFC 9101 5.1). */
  | 'value'
  /** Only `client_id` and `request` stay in the URL, for `pushAuthorizationRequest` to push (RFC 9126 3, FAPI 2.0 Message Signing). */
  | 'par'
  /**
   * By reference (RFC 9101 5.2): the function stores the JWT where the provider can fetch it and
   * returns that absolute https URL (e.g. `RequestObjectStore.put` of `@oidc-rp/node`).
   */
  | ((requestObject: string) => string | Promise<string>);

/** Input of {@link withRequestObject}. */
export interface WithRequestObjectParams {
  provider: ProviderMetadata;
  /** What `buildAuthorizationRequest` returned: its URL's parameters become the request object's claims. */
  request: AuthorizationRequest;
  signer: RequestObjectSigner;
  /** Default `'value'`. */
  delivery?: RequestObjectDelivery;
}

/** The media type of a request object (RFC 9101 4, 10.2): its JOSE `typ`. */
export const REQUEST_OBJECT_TYPE = 'oauth-authz-req+jwt';

const MAX_LIFETIME = 3600;
const RSA = ['PS256', 'RS256', 'PS384', 'PS512', 'RS384', 'RS512'] as const;

/**
 * A request-object signer for the client's key. The key is checked when the signer is made
 * (`request_object_key_unsupported` for a public or symmetric key); the algorithm when the first
 * object is signed, against the key and the provider's `request_object_signing_alg_values_supported`
 * (an algorithm it does not list is `request_object_alg_not_supported`). `alg: 'none'` (no key)
 * makes unsigned objects: for providers that list `none`, such as test providers of the Dynamic
 * RP certification plan; never use it where a signature protects anything.
 *
 * @example
 * ```ts
 * const signer = requestObjectSigner({ key: JSON.parse(process.env.CLIENT_PRIVATE_JWK!) });
 * ```
 */
export function requestObjectSigner(options: RequestObjectSignerOptions): RequestObjectSigner {
  if (typeof options !== 'object' || options === null) throw invalidOptions(DEV && 'requestObjectSigner() needs { key } or { alg: "none" }.');
  const { key, kid } = options;
  const lifetime = options.lifetime ?? 300;
  if (!(Number.isInteger(lifetime) && lifetime > 0 && lifetime <= MAX_LIFETIME)) {
    throw invalidOptions(DEV && `lifetime must be a whole number of seconds from 1 to ${MAX_LIFETIME}.`);
  }
  if (kid !== undefined) requireString(kid, DEV && 'kid');
  const now = options.now ?? systemClock;
  const claimsAt = (claims: Record<string, unknown>, issuer: string): Record<string, unknown> => {
    const iat = now();
    return { ...claims, iss: claims.client_id, aud: issuer, iat, nbf: iat, exp: iat + lifetime, jti: randomBase64url(16) };
  };

  if (options.alg === 'none') {
    if (key !== undefined) throw invalidOptions(DEV && 'alg "none" signs nothing: leave key out, or choose a signing alg.');
    const unsigned: SignerInternals = {
      alg: 'none',
      sign_: async (claims, provider) => {
        checkOffered(provider, 'none');
        return `${segment({ alg: 'none', typ: REQUEST_OBJECT_TYPE })}.${segment(claimsAt(claims, provider.issuer))}.`;
      },
    };
    return unsigned;
  }
  const isCryptoKey = typeof CryptoKey !== 'undefined' && key instanceof CryptoKey;
  if (!isCryptoKey && (typeof key !== 'object' || key === null || typeof (key as JsonWebKey).d !== 'string' || (key as JsonWebKey).kty === 'oct')) {
    throw unsupportedKey(DEV && 'key must be a private JWK (with "d", not a symmetric key) or a private CryptoKey.');
  }
  if (isCryptoKey && ((key as CryptoKey).type !== 'private' || !(key as CryptoKey).usages.includes('sign'))) {
    throw unsupportedKey(DEV && 'The CryptoKey must be a private key allowing "sign".');
  }
  const jwk = isCryptoKey ? undefined : (key as JsonWebKey & { kid?: string });
  const keyId = kid ?? (typeof jwk?.kid === 'string' ? jwk.kid : undefined);
  const fixedAlg = options.alg ?? (typeof jwk?.alg === 'string' ? jwk.alg : undefined);
  const imported = new Map<string, Promise<CryptoKey>>();

  const signer: SignerInternals = {
    alg: fixedAlg,
    sign_: async (claims, provider) => {
      const alg = fixedAlg ?? defaultAlg(keyKind(key as JsonWebKey | CryptoKey, jwk), provider);
      const params = alg && !alg.startsWith('HS') ? paramsFor(alg) : undefined;
      if (!alg || !params) throw unsupportedKey(DEV && 'alg must be RS256-512, PS256-512, ES256-512 or EdDSA, and fit the key.');
      checkOffered(provider, alg);
      let pending = imported.get(alg);
      if (!pending) {
        if (isCryptoKey) pending = Promise.resolve(key as CryptoKey);
        else {
          const { kty, crv, n, e, d, p, q, dp, dq, qi, x, y } = jwk as JsonWebKey;
          pending = crypto.subtle.importKey('jwk', { kty, crv, n, e, d, p, q, dp, dq, qi, x, y } as JsonWebKey, params as RsaHashedImportParams, false, ['sign']);
        }
        imported.set(alg, pending);
      }
      let cryptoKey: CryptoKey;
      try {
        cryptoKey = await pending;
      } catch (cause) {
        imported.delete(alg);
        throw new OidcError('request_object_key_unsupported', DEV && `The key cannot be used for ${alg}: check the JWK or pass another alg.`, { cause });
      }
      try {
        checkKeyFits(cryptoKey, params, alg);
      } catch (cause) {
        throw unsupportedKey((cause as Error).message);
      }
      const header = { alg, typ: REQUEST_OBJECT_TYPE, ...(keyId !== undefined ? { kid: keyId } : {}) };
      const input = `${segment(header)}.${segment(claimsAt(claims, provider.issuer))}`;
      const signature = new Uint8Array(await crypto.subtle.sign(params as EcdsaParams, cryptoKey, utf8(input)));
      return `${input}.${base64url(signature)}`;
    },
  };
  return signer;
}

/**
 * The request object of an authorization request: every parameter of its URL as a claim, plus
 * `iss` (the client), `aud` (the provider's issuer), `iat`, `nbf`, `exp` and a random `jti`.
 *
 * @example
 * ```ts
 * const jwt = await createRequestObject({ provider, request, signer });
 * ```
 */
export async function createRequestObject(params: Omit<WithRequestObjectParams, 'delivery'>): Promise<string> {
  const { provider, request } = params;
  const signer = params.signer as SignerInternals;
  if (!(request?.url instanceof URL)) throw invalidOptions(DEV && 'request must come from buildAuthorizationRequest.');
  if (typeof signer?.sign_ !== 'function') throw invalidOptions(DEV && 'signer must come from requestObjectSigner().');
  requireString(provider?.issuer, DEV && "The provider's issuer (the request object's audience)");
  const claims: Record<string, unknown> = {};
  for (const [name, value] of request.url.searchParams) {
    // Never inside a request object (RFC 9101 4: no nesting; OIDC Core 6.1).
    if (name === 'request' || name === 'request_uri') throw invalidOptions(DEV && `The request already carries "${name}": build it without one.`);
    // OIDC Core 6.1: max_age is a number in a request object; claims is JSON.
    claims[name] = name === 'max_age' ? Number(value) : name === 'claims' ? parseJson(value) : value;
  }
  requireString(claims.client_id, DEV && 'The request\'s client_id');
  return signer.sign_(claims, provider);
}

/**
 * The authorization request with its parameters moved into a request object. The URL keeps
 * `client_id` (RFC 9101 5) and, for OpenID Connect and OAuth 2.0 compatibility, `response_type`
 * and `scope`, beside `request` or `request_uri`; with `delivery: 'par'` it keeps `client_id` and
 * `request` only, to be pushed. The transaction is unchanged: the callback is checked as always.
 *
 * @example
 * ```ts
 * const signer = requestObjectSigner({ key: privateJwk });
 * const request = await withRequestObject({
 *   provider,
 *   request: await buildAuthorizationRequest({ provider, clientId: 'web', redirectUri, scope: 'openid' }),
 *   signer,
 * });
 * // redirect to request.url
 * ```
 */
export async function withRequestObject(params: WithRequestObjectParams): Promise<AuthorizationRequest> {
  const { provider, request } = params;
  const delivery = params.delivery ?? 'value';
  if (delivery !== 'value' && delivery !== 'par' && typeof delivery !== 'function') {
    throw invalidOptions(DEV && 'delivery must be "value", "par" or a function that stores the request object and returns its URL.');
  }
  const jwt = await createRequestObject(params);
  const url = new URL(provider.authorization_endpoint);
  const kept = delivery === 'par' ? ['client_id'] : ['client_id', 'response_type', 'scope'];
  for (const name of kept) {
    const value = request.url.searchParams.get(name);
    if (value !== null) url.searchParams.set(name, value);
  }
  if (typeof delivery === 'function') {
    const requestUri = await delivery(jwt);
    requireString(requestUri, DEV && 'The request_uri the delivery function returned');
    assertSecureUrl(requestUri, DEV && 'The request_uri');
    url.searchParams.set('request_uri', requestUri);
  } else url.searchParams.set('request', jwt);
  return { url, transaction: request.transaction };
}

// The provider must accept the algorithm when it says which it accepts; `none` must be listed.
function checkOffered(provider: ProviderMetadata, alg: string): void {
  const listed = provider?.request_object_signing_alg_values_supported;
  if (Array.isArray(listed) ? listed.includes(alg) : alg !== 'none') return;
  throw new OidcError(
    'request_object_alg_not_supported',
    DEV &&
      (alg === 'none'
        ? 'The provider does not list "none" in request_object_signing_alg_values_supported: sign the request object with the client\'s key.'
        : `The provider does not list ${alg} in request_object_signing_alg_values_supported: pass an alg it lists, or another key.`),
  );
}

function defaultAlg(kind: { kty?: string; crv?: string; rsaHash?: string; pss?: boolean }, provider: ProviderMetadata): string | undefined {
  if (kind.kty === 'EC') return ({ 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' } as Record<string, string>)[kind.crv ?? ''];
  if (kind.kty === 'OKP') return kind.crv === 'Ed25519' ? 'EdDSA' : undefined;
  if (kind.kty !== 'RSA') return undefined;
  if (kind.rsaHash) return `${kind.pss ? 'PS' : 'RS'}${kind.rsaHash.slice(4)}`;
  const listed = provider?.request_object_signing_alg_values_supported;
  return (Array.isArray(listed) ? RSA.find((alg) => listed.includes(alg)) : undefined) ?? 'PS256';
}

function segment(value: Record<string, unknown>): string {
  return base64url(utf8(JSON.stringify(value)));
}

function parseJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw invalidOptions(DEV && 'The claims parameter is not JSON.');
  }
}

function unsupportedKey(message: string): OidcError {
  return new OidcError('request_object_key_unsupported', message);
}
