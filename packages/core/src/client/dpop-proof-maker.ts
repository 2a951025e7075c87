/**
 * DPoP (RFC 9449): sender-constrained tokens. A {@link DpopHandle} is one value carrying a key
 * pair, its public JWK and thumbprint, and the nonces servers sent, per origin. Passed as `dpop`
 * to a token call, userinfo or {@link protectedResourceRequest}, it signs a fresh proof for
 * every request and retries exactly once when the server asks for a nonce. An app that never
 * calls {@link dpop} bundles none of this module: the token endpoint reaches it only through
 * the handle it is given.
 */

import { DEV } from '../dev';
import { type Clock, systemClock } from '../clock';
import { base64url, digest, randomBase64url, utf8 } from '../http/encoding';
import { OidcError } from '../errors';
import { discardBody, fetchWithoutRedirects, isJsonObject, readJson, sendRequest, type Send } from '../http/transport';
import { tryParseUrl } from '../provider/discovery';
import { CURVES } from '../jose/jwks';
import { paramsFor } from '../jose/jws';
import { invalidOptions, requireString } from '../options';
import type { HttpOptions } from '../types';

/** The JWS algorithms a DPoP key may use. `ES256` is the default and the one every server supports. */
export type DpopAlgorithm = 'ES256' | 'ES384' | 'PS256' | 'RS256' | 'EdDSA';

/** The public members of a DPoP key (RFC 7638 order: what the thumbprint hashes). */
export type DpopPublicJwk =
  | { crv: string; kty: 'EC'; x: string; y: string }
  | { e: string; kty: 'RSA'; n: string }
  | { crv: string; kty: 'OKP'; x: string };

/**
 * A DPoP key with what goes with it, made by {@link dpop}. Give the same handle to every call
 * for one token: the token endpoint binds the token to `jkt`, and only this key's proofs make it
 * usable. Holds the last `DPoP-Nonce` of each origin (at most 100 origins).
 */
export interface DpopHandle {
  readonly alg: DpopAlgorithm;
  /** The private key may be non-extractable (the default for {@link generateDpopKeyPair}). */
  readonly keyPair: CryptoKeyPair;
  /** The public key as sent in every proof's header. */
  readonly publicJwk: Readonly<DpopPublicJwk>;
  /** The key's JWK SHA-256 thumbprint (RFC 7638), base64url: `dpop_jkt`, and `cnf.jkt` of a bound token. */
  readonly jkt: string;
  /** The nonce `origin` last sent in `DPoP-Nonce`, if any. */
  nonceFor(origin: string): string | undefined;
  /** Remembers a nonce an origin sent (done for every response a handle's request receives). */
  rememberNonce(origin: string, nonce: string): void;
}

/** Input of {@link dpop}. */
export interface DpopOptions {
  /** The key pair; default a new non-extractable one for `alg`. */
  keyPair?: CryptoKeyPair;
  /** Default: the key pair's algorithm, or `ES256` for a new key. */
  alg?: DpopAlgorithm;
  /** The clock of each proof's `iat`. Default {@link systemClock}. */
  now?: Clock;
}

/** Input of {@link createDpopProof}. */
export interface DpopProofParams {
  /** The request's method, e.g. `POST`. */
  htm: string;
  /** The request's URL; its query and fragment are left out of the proof. */
  htu: string | URL;
  /** The access token the request carries: its hash goes in `ath`. */
  accessToken?: string;
  /** Default: the nonce the handle holds for the URL's origin. */
  nonce?: string;
}

// What the token endpoint and userinfo call on a handle; not part of the public type.
export interface DpopInternals extends DpopHandle {
  /** `sendRequest` with a proof (and `Authorization: DPoP <token>` when given one) and one nonce retry. */
  sender_(accessToken?: string): typeof sendRequest;
  now_: Clock;
  /** The error for a token endpoint that answers a DPoP request with another token type. */
  downgrade_(): OidcError;
}

const MAX_ORIGINS = 100;
const JTI_BYTES = 16; // 128 bits, RFC 9449 section 11.1
// RFC 9449 section 8.1: nonce = 1*NQCHAR; a longer one than this is not a nonce worth keeping.
const NONCE = /^[\x21\x23-\x5B\x5D-\x7E]{1,1024}$/;

// What dpop() takes from elsewhere. Keys this module makes may be of any algorithm of the JWS
// table (jws.ts), which is all a bundle that never calls dpop() carries.
const ALGORITHMS: readonly DpopAlgorithm[] = ['ES256', 'ES384', 'PS256', 'RS256', 'EdDSA'];

// Key generation parameters, from the table that ID-token verification uses (jws.ts): an EC
// curve, an RSA hash (and size and exponent, which other algorithms ignore).
// `dpop_key_unsupported` for an algorithm that table does not know.
function keyParams(alg: string): EcKeyGenParams & RsaHashedKeyGenParams {
  const params = paramsFor(alg, CURVES[alg]);
  if (!params) throw unsupported(DEV && `alg must be ES256, ES384, PS256, RS256 or EdDSA.`);
  return { ...params, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) } as EcKeyGenParams & RsaHashedKeyGenParams;
}

// The algorithm a WebCrypto key signs with, or undefined for a key DPoP does not take (another
// curve, RSA under 2048 bits or with another hash).
function algorithmOf(key: CryptoKey): DpopAlgorithm | undefined {
  const algorithm = key.algorithm as Partial<EcKeyAlgorithm & RsaHashedKeyAlgorithm>;
  return ALGORITHMS.find((alg) => {
    const { name, namedCurve, hash } = keyParams(alg);
    return (
      name === algorithm.name &&
      namedCurve === algorithm.namedCurve &&
      (algorithm.modulusLength === undefined || (algorithm.modulusLength >= 2048 && algorithm.hash?.name === hash))
    );
  });
}

/**
 * A new key pair for DPoP, its private key non-extractable (a script that can run in the page
 * can use it while the page is open, but never copy it away).
 *
 * @example
 * ```ts
 * const keyPair = await generateDpopKeyPair(); // ES256
 * ```
 */
export async function generateDpopKeyPair(alg: DpopAlgorithm = 'ES256'): Promise<CryptoKeyPair> {
  const params = keyParams(alg);
  try {
    return (await crypto.subtle.generateKey(params, false, ['sign', 'verify'])) as CryptoKeyPair;
  } catch (cause) {
    throw new OidcError('dpop_key_unsupported', DEV && `This runtime cannot make ${alg} keys: use ES256.`, { cause });
  }
}

/**
 * Makes a DPoP handle: the given key pair (or a new non-extractable ES256 one), its public JWK
 * and thumbprint computed once, and an empty nonce cache. `dpop_key_unsupported` for a key DPoP
 * cannot use (another curve, RSA under 2048 bits or not SHA-256, a public key that cannot be
 * exported, an `alg` that does not match the key).
 *
 * @example
 * ```ts
 * const handle = await dpop(); // or: await dpop({ keyPair: await generateDpopKeyPair('EdDSA') })
 * const tokens = await clientCredentials({ provider, client, clientAuth, dpop: handle });
 * tokens.tokenType; // 'DPoP'
 * ```
 */
export async function dpop(options: DpopOptions = {}): Promise<DpopHandle> {
  const keyPair = options.keyPair ?? (await generateDpopKeyPair(options.alg));
  const { privateKey, publicKey } = keyPair ?? {};
  const alg = privateKey?.type === 'private' && publicKey?.type === 'public' ? algorithmOf(privateKey) : undefined;
  if (!alg || algorithmOf(publicKey) !== alg || (options.alg !== undefined && options.alg !== alg)) {
    throw unsupported(
      DEV && 'keyPair must be a private and public key for ES256, ES384, PS256 or RS256 (RSA of 2048 bits or more, SHA-256) or EdDSA (Ed25519), matching alg.',
    );
  }
  if (!privateKey.usages.includes('sign')) throw unsupported(DEV && 'The private key must allow "sign".');
  return handleFor(keyPair, alg, options.now);
}

/**
 * A DPoP handle for a key pair that {@link generateDpopKeyPair} made for `alg` (default
 * `ES256`), kept since, e.g. in IndexedDB: {@link dpop} without the checks a key made elsewhere
 * needs, so an app that only ever uses its own keys does not bundle them. Give a key from
 * anywhere else to `dpop({ keyPair })`, which refuses one DPoP cannot use. `dpop_key_unsupported`
 * for an unknown `alg` or a public key that cannot be exported.
 *
 * @example
 * ```ts
 * const keyPair = await generateDpopKeyPair('EdDSA');
 * // … kept in IndexedDB and read back later:
 * const handle = await dpopForGeneratedKey({ keyPair, alg: 'EdDSA' });
 * ```
 */
export async function dpopForGeneratedKey({ keyPair, alg = 'ES256', now }: DpopOptions & { keyPair: CryptoKeyPair }): Promise<DpopHandle> {
  keyParams(alg);
  return handleFor(keyPair, alg, now);
}

// The handle of a key pair known to suit `alg`: its public JWK and thumbprint, a nonce cache.
async function handleFor(keyPair: CryptoKeyPair, alg: DpopAlgorithm, now: Clock = systemClock): Promise<DpopHandle> {
  let exported: JsonWebKey;
  try {
    exported = await crypto.subtle.exportKey('jwk', keyPair?.publicKey);
  } catch (cause) {
    throw new OidcError('dpop_key_unsupported', DEV && 'The public key must be extractable: generate the pair with generateDpopKeyPair.', { cause });
  }
  const { crv, e, kty, n, x, y } = exported;
  // The required members of EC, RSA and OKP keys, in lexicographic order (JSON leaves out the
  // absent ones): this JSON is what RFC 7638 hashes.
  const json = JSON.stringify({ crv, e, kty, n, x, y });
  const publicJwk = JSON.parse(json) as DpopPublicJwk;
  const jkt = base64url(await digest('SHA-256', json));

  const nonces = new Map<string, string>();
  const handle: DpopInternals = {
    alg,
    keyPair,
    publicJwk: Object.freeze(publicJwk),
    jkt,
    nonceFor: (origin) => nonces.get(origin),
    rememberNonce(origin, nonce) {
      if (!NONCE.test(nonce)) return; // not a nonce (RFC 9449 8.1): never sent back
      nonces.delete(origin); // most recent last, so the oldest origin goes first
      nonces.set(origin, nonce);
      if (nonces.size > MAX_ORIGINS) nonces.delete(nonces.keys().next().value as string);
    },
    sender_: (accessToken) => (url, init, http, what, read) => sendWithProof(handle, url, init, http, what, read, accessToken),
    now_: now,
    // RFC 9449 5: a Bearer token answered to a DPoP request is not bound to the key (a downgrade).
    downgrade_: () =>
      new OidcError(
        'dpop_token_type_mismatch',
        DEV && 'The provider answered a DPoP request with a token that is not DPoP-bound: check it supports DPoP for this client, or call without dpop.',
      ),
  };
  return handle;
}

/**
 * A DPoP proof JWT (RFC 9449 section 4) for one request: header `typ: dpop+jwt`, the handle's
 * `alg` and public `jwk`; claims `jti` (128 random bits, new for every proof), `htm`, `htu`
 * without query and fragment, `iat`, `ath` for an access token, and `nonce` when one is known.
 * The token calls make their own; this is for requests the app sends itself.
 *
 * @example
 * ```ts
 * const proof = await createDpopProof(handle, { htm: 'GET', htu: 'https://api.example.com/orders', accessToken });
 * await fetch('https://api.example.com/orders', { headers: { Authorization: `DPoP ${accessToken}`, DPoP: proof } });
 * ```
 */
export async function createDpopProof(handle: DpopHandle, params: DpopProofParams): Promise<string> {
  const { htm, accessToken } = params;
  requireString(htm, DEV && 'htm');
  if (accessToken !== undefined) requireString(accessToken, DEV && 'accessToken');
  const htu = targetUri(params.htu);
  const { alg, publicJwk: jwk, keyPair } = handle;
  const header = { alg, typ: 'dpop+jwt', jwk };
  const claims = {
    jti: randomBase64url(JTI_BYTES),
    htm,
    htu: htu.href,
    iat: ((handle as DpopInternals).now_ ?? systemClock)(),
    ath: accessToken === undefined ? undefined : base64url(await digest('SHA-256', accessToken)),
    nonce: params.nonce ?? handle.nonceFor(htu.origin),
  };
  const input = `${base64url(utf8(JSON.stringify(header)))}.${base64url(utf8(JSON.stringify(claims)))}`;
  // The verification table's parameters serve for signing: ECDSA reads the hash, RSA-PSS the salt length.
  const signature = await crypto.subtle.sign(paramsFor(alg, undefined) as EcdsaParams, keyPair.privateKey, utf8(input));
  return `${input}.${base64url(new Uint8Array(signature))}`;
}

/**
 * A request to a protected resource with a DPoP-bound access token: `Authorization: DPoP
 * <token>` and a proof with `ath`, never `Bearer`. When the server answers 401 with
 * `WWW-Authenticate: DPoP error="use_dpop_nonce"` and a `DPoP-Nonce`, the request is sent once
 * more with that nonce; a second challenge is the answer returned. Redirects are not followed
 * (a proof is bound to one URL). The body must be sendable twice (not a stream). Transport
 * failures are `network_error` / `request_timeout`, as everywhere in core.
 *
 * @example
 * ```ts
 * const response = await protectedResourceRequest(handle, tokens.accessToken, 'https://api.example.com/orders');
 * if (response.ok) console.log(await response.json());
 * ```
 */
export async function protectedResourceRequest(
  handle: DpopHandle,
  accessToken: string,
  url: string | URL,
  init: RequestInit = {},
  http?: HttpOptions,
): Promise<Response> {
  requireString(accessToken, DEV && 'accessToken');
  const headers = new Headers(init.headers);
  if (headers.has('authorization') || headers.has('dpop')) {
    throw invalidOptions(DEV && 'Leave out Authorization and DPoP: protectedResourceRequest sets both for the DPoP-bound token.');
  }
  if (init.body instanceof ReadableStream) {
    throw invalidOptions(DEV && 'The body must be sendable twice (a nonce retry): pass a string, bytes, Blob, FormData or URLSearchParams.');
  }
  const sender = (handle as DpopInternals).sender_?.(accessToken);
  if (!sender) throw invalidOptions(DEV && 'handle must come from dpop().');
  return sender(String(url), { ...init, headers, redirect: 'manual' }, http ?? (init.signal ? { signal: init.signal } : undefined), DEV && 'The resource server', async (response) => response);
}

// sendRequest whose transport signs a fresh proof for each attempt, keeps the nonce of every
// answer, and sends once more on a nonce challenge (within the one timeout of the call).
async function sendWithProof<T>(
  handle: DpopHandle,
  url: string,
  init: RequestInit,
  http: HttpOptions | undefined,
  what: string,
  read: (response: Response) => Promise<T>,
  accessToken: string | undefined,
): Promise<T> {
  const headers = new Headers(init.headers);
  if (accessToken !== undefined) headers.set('Authorization', `DPoP ${accessToken}`);
  // fetch sends the standard methods upper-case whatever the caller wrote; the proof must match.
  const method = init.method ?? 'GET';
  const htm = /^(delete|get|head|options|post|put)$/i.test(method) ? method.toUpperCase() : method;
  const origin = new URL(url).origin;
  const send: Send = async (fetchFn, target, options, where) => {
    for (let first = true; ; first = false) {
      headers.set('DPoP', await createDpopProof(handle, { htm, htu: url, accessToken }));
      const response = await fetchWithoutRedirects(fetchFn, target, { ...options, headers }, where);
      const nonce = response.headers.get('dpop-nonce');
      if (nonce !== null) handle.rememberNonce(origin, nonce);
      // Exactly one retry, and only with a nonce this answer brought.
      if (!first || nonce === null || handle.nonceFor(origin) !== nonce || !(await isNonceChallenge(response))) return response;
      await discardBody(response);
    }
  };
  return sendRequest(url, init, http, what, read, send);
}

/**
 * A server asking for a (new) nonce (RFC 9449 sections 8 and 9): a token endpoint's 400 with
 * `error: use_dpop_nonce`, or a resource's 401 with a DPoP challenge carrying that error.
 */
async function isNonceChallenge(response: Response): Promise<boolean> {
  if (response.status === 401) {
    return /(^|[\s,])DPoP\s(?:[^,]*,)*?\s*error\s*=\s*"?use_dpop_nonce"?/i.test(response.headers.get('www-authenticate') ?? '');
  }
  if (response.status !== 400) return false;
  const body = await readJson(response.clone());
  return body.ok && isJsonObject(body.value) && body.value.error === 'use_dpop_nonce';
}

// RFC 9449 4.2: htu is the target URI without query and fragment.
function targetUri(value: string | URL): URL {
  const url = tryParseUrl(String(value));
  if (!url) throw invalidOptions(DEV && 'htu must be an absolute URL.');
  url.search = '';
  url.hash = '';
  return url;
}

function unsupported(message: string): OidcError {
  return new OidcError('dpop_key_unsupported', message);
}
