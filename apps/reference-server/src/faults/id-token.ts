/**
 * ID token faults: claims changed or removed, a broken signature, `alg: none`, HS256 keyed with
 * the public key, a key the JWKS does not publish (yet), or a published key of another
 * algorithm (shared with the logout-token fault). Only clients configured with a
 * fault get here: the healthy path signs in oauth/issue.ts.
 */
import { SignJWT, exportSPKI, importJWK, type JWK } from 'jose';
import type { Fault } from '../config/fault-names';
import { leftHalfHash, randomToken } from '../crypto/secrets';
import { createSigningKey, type SigningKey } from '../keys/keys';
import type { RequestContext, ServerContext } from '../request/context';
import { impostorIssuer } from './responses';

/** A client id no registration uses, for `aud` / `azp` faults. */
const OTHER_CLIENT = 'another-client';
/** How many keys of `jwks_key_rotated` stay published (each ID token gets a new one). */
const ROTATED_KEYS_KEPT = 3;

/**
 * Signs the ID token `payload` with the client's faults applied: claims changed or removed,
 * then a broken signature, `alg: none`, HS256 keyed with the public key, or a key the JWKS
 * does not publish (yet).
 *
 * @example
 * const faults = clientFaults(ctx.tenant, clientId);
 * if (faults) return faultyIdToken(ctx, faults, payload);
 */
export async function faultyIdToken(ctx: RequestContext, faults: ReadonlySet<Fault>, payload: Record<string, unknown>): Promise<string> {
  const claims = faultyClaims(ctx, faults, payload);
  const key = (await ctx.keys()).current;
  if (faults.has('id_token_alg_none')) return unsecuredJwt(claims);
  if (faults.has('id_token_hs256_with_public_key')) return hmacWithPublicKey(claims, key);
  const signer = faults.has('id_token_unknown_kid')
    ? await unpublishedKey(ctx)
    : faults.has('jwks_key_rotated')
      ? await rotatedKey(ctx)
      : faults.has('id_token_wrong_alg')
        ? await otherAlgorithmKey(ctx)
        : faults.has('id_token_bad_signature_es256')
          ? await keyFor(ctx, 'ES256')
          : faults.has('id_token_alternate_alg_rs256')
            ? await keyFor(ctx, 'RS256')
            : key;
  // Without `kid`, a client must pick the key by algorithm: one fits (accepted), or several (`kidlessKeys`) do.
  const kidless = faults.has('id_token_no_kid') || faults.has('id_token_no_kid_multiple_keys');
  const header = kidless ? { alg: signer.alg, typ: 'JWT' } : { alg: signer.alg, kid: signer.kid, typ: 'JWT' };
  const jwt = await new SignJWT(claims).setProtectedHeader(header).sign(await signer.privateKey());
  return faults.has('id_token_bad_signature') || faults.has('id_token_bad_signature_es256') ? breakSignature(jwt) : jwt;
}

/** The tenant's own key when it signs with `alg`, else the published key of the other algorithm. */
async function keyFor(ctx: RequestContext, alg: 'RS256' | 'ES256'): Promise<SigningKey> {
  return ctx.tenant.signing_alg === alg ? (await ctx.keys()).current : otherAlgorithmKey(ctx);
}

function faultyClaims(ctx: RequestContext, faults: ReadonlySet<Fault>, payload: Record<string, unknown>): Record<string, unknown> {
  const claims = { ...payload };
  const now = Math.floor(ctx.server.now() / 1000);
  const lifetime = ctx.tenant.lifetimes.id_token;
  if (faults.has('id_token_wrong_iss')) claims.iss = impostorIssuer(ctx);
  if (faults.has('id_token_wrong_aud')) claims.aud = OTHER_CLIENT;
  if (faults.has('id_token_multiple_aud_no_azp')) {
    claims.aud = [payload.aud, OTHER_CLIENT];
    delete claims.azp;
  }
  if (faults.has('id_token_azp_mismatch')) {
    claims.aud = [payload.aud, OTHER_CLIENT];
    claims.azp = OTHER_CLIENT;
  }
  // Far beyond any clock tolerance a client may allow (minutes, not seconds).
  if (faults.has('id_token_expired')) {
    claims.exp = now - 3600;
    claims.iat = now - 3600 - lifetime;
  }
  if (faults.has('id_token_iat_future')) {
    claims.iat = now + 3600;
    claims.exp = now + 3600 + lifetime;
  }
  if (faults.has('id_token_nonce_mismatch')) claims.nonce = randomToken(16);
  if (faults.has('id_token_missing_nonce')) delete claims.nonce;
  if (faults.has('id_token_missing_sub')) delete claims.sub;
  if (faults.has('id_token_bad_at_hash') && claims.at_hash !== undefined) claims.at_hash = leftHalfHash(randomToken());
  if (faults.has('id_token_bad_c_hash') && claims.c_hash !== undefined) claims.c_hash = leftHalfHash(randomToken());
  if (faults.has('id_token_missing_c_hash')) delete claims.c_hash;
  if (faults.has('id_token_missing_at_hash')) delete claims.at_hash;
  if (faults.has('id_token_missing_iat')) delete claims.iat;
  if (faults.has('id_token_missing_aud')) delete claims.aud;
  if (faults.has('id_token_missing_iss')) delete claims.iss;
  if (faults.has('id_token_missing_exp')) delete claims.exp;
  // RFC 7519 4.1.3: one audience may be an array of one; a correct client accepts it.
  if (faults.has('id_token_aud_single_array')) claims.aud = [payload.aud];
  return claims;
}

function part(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** An unsecured JWT (RFC 7519 6): `alg: none` and an empty signature. */
export function unsecuredJwt(claims: Record<string, unknown>): string {
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}

/** The key-confusion attack: HS256 with the PEM of the published public key as the secret. */
async function hmacWithPublicKey(claims: Record<string, unknown>, key: SigningKey): Promise<string> {
  const publicKey = await importJWK(key.publicJwk, key.alg);
  const pem = await exportSPKI(publicKey as CryptoKey);
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: key.kid, typ: 'JWT' }).sign(new TextEncoder().encode(pem));
}

/** A valid token with one byte of its signature flipped (also used for aggregated claims, faults/claims.ts). */
export function breakSignature(jwt: string): string {
  const dot = jwt.lastIndexOf('.');
  const signature = Buffer.from(jwt.slice(dot + 1), 'base64url');
  signature.writeUInt8(signature.readUInt8(0) ^ 0xff, 0);
  return `${jwt.slice(0, dot + 1)}${signature.toString('base64url')}`;
}

// ---------------------------------------------------------------------------------------
// Fault keys: kept beside the tenant's own keys, per tenant of a running server, in this process.

interface FaultKeys {
  /** Signs `id_token_unknown_kid` tokens; never published. */
  unpublished?: Promise<SigningKey>;
  /** Signs `id_token_wrong_alg` and `logout_token_wrong_alg` tokens; published. */
  otherAlgorithm?: Promise<SigningKey>;
  /** Keys of `jwks_key_rotated`, newest first; published from the moment they sign. */
  rotated: SigningKey[];
  /** Published without `kid` for `id_token_no_kid_multiple_keys`, of the tenant's algorithm. */
  kidless?: Promise<SigningKey[]>;
}

// Keyed by the tenant's server context, which the app builds once per tenant and keeps (the
// tenant object itself is replaced when users or clients change at runtime, and viewed per request).
const faultKeys = new WeakMap<ServerContext, FaultKeys>();

function keysOf(ctx: RequestContext): FaultKeys {
  let keys = faultKeys.get(ctx.server);
  if (!keys) {
    keys = { rotated: [] };
    faultKeys.set(ctx.server, keys);
  }
  return keys;
}

function unpublishedKey(ctx: RequestContext): Promise<SigningKey> {
  const keys = keysOf(ctx);
  keys.unpublished ??= createSigningKey(ctx.tenant.signing_alg);
  return keys.unpublished;
}

/** A brand-new key for every token: a client holding the earlier JWKS must fetch it again. */
async function rotatedKey(ctx: RequestContext): Promise<SigningKey> {
  const key = await createSigningKey(ctx.tenant.signing_alg);
  const keys = keysOf(ctx);
  keys.rotated = [key, ...keys.rotated].slice(0, ROTATED_KEYS_KEPT);
  return key;
}

/**
 * The faults that may sign with a published key of the other type and algorithm (the ES256 and
 * RS256 ones do on a tenant of the other algorithm).
 */
const WRONG_ALG_FAULTS: readonly Fault[] = ['id_token_wrong_alg', 'logout_token_wrong_alg', 'id_token_bad_signature_es256', 'id_token_alternate_alg_rs256'];
/** How many kid-less keys `id_token_no_kid_multiple_keys` publishes besides the tenant's own. */
const KIDLESS_KEYS = 2;
/** The other algorithm of each the tenant may sign with: another key type too (RSA, EC). */
const OTHER_ALGORITHM = { RS256: 'ES256', ES256: 'RS256' } as const;

/**
 * A key of the other type and algorithm than the tenant's (ES256 for an RS256 tenant, RS256 for
 * an ES256 one), made once per tenant of a running server and published: a token it signs
 * verifies, and only a client pinned to its registered algorithm refuses it.
 *
 * @example
 * const signer = faults.has('logout_token_wrong_alg') ? await otherAlgorithmKey(ctx) : key;
 */
export function otherAlgorithmKey(ctx: RequestContext): Promise<SigningKey> {
  const keys = keysOf(ctx);
  keys.otherAlgorithm ??= createSigningKey(OTHER_ALGORITHM[ctx.tenant.signing_alg]);
  return keys.otherAlgorithm;
}

/**
 * Whether a client of the tenant has one of `faults`. Read without counting a use (iterating the
 * set does not; `has` would spend one of a runtime fault's `times`).
 */
function tenantHasAny(ctx: RequestContext, faults: readonly Fault[]): boolean {
  for (const client of ctx.tenant.clients.values()) {
    if ([...client.faults].some((fault) => faults.includes(fault))) return true;
  }
  return false;
}

const tenantHasWrongAlg = (ctx: RequestContext): boolean => tenantHasAny(ctx, WRONG_ALG_FAULTS);

/** Keys of the tenant's algorithm published without `kid`: with the tenant's own, several fit a kid-less token. */
function kidlessKeys(ctx: RequestContext): Promise<SigningKey[]> {
  const keys = keysOf(ctx);
  keys.kidless ??= Promise.all(Array.from({ length: KIDLESS_KEYS }, () => createSigningKey(ctx.tenant.signing_alg)));
  return keys.kidless;
}

/**
 * The ID token algorithms the discovery document lists: the tenant's, and the other one while a
 * client of the tenant has a wrong-algorithm fault, as a provider that signs with several does
 * (the client's registration, not the provider's list, then decides). Discovery requests do not
 * say which client asks, so this changes the document of the whole tenant.
 *
 * @example
 * const algs = ctx.tenant.hasFaults ? advertisedSigningAlgorithms(ctx) : [ctx.tenant.signing_alg];
 */
export function advertisedSigningAlgorithms(ctx: RequestContext): string[] {
  const own = ctx.tenant.signing_alg;
  return tenantHasWrongAlg(ctx) ? [own, OTHER_ALGORITHM[own]] : [own];
}

/**
 * Public keys the JWKS publishes for `jwks_key_rotated`, the wrong-algorithm faults and
 * `id_token_no_kid_multiple_keys` (keys without `kid`), besides the tenant's own. The other
 * algorithm's key and the kid-less ones are published from the moment a client of the tenant
 * has such a fault, before it signs anything.
 *
 * @example
 * const published = ctx.tenant.hasFaults ? [...keys, ...(await faultJwks(ctx))] : keys;
 */
export async function faultJwks(ctx: RequestContext): Promise<JWK[]> {
  const rotated = faultKeys.get(ctx.server)?.rotated.map((key) => key.publicJwk) ?? [];
  const other = tenantHasWrongAlg(ctx) ? [(await otherAlgorithmKey(ctx)).publicJwk] : [];
  const kidless = tenantHasAny(ctx, ['id_token_no_kid_multiple_keys'])
    ? (await kidlessKeys(ctx)).map(({ publicJwk: { kid: _kid, ...jwk } }) => jwk)
    : [];
  return [...rotated, ...other, ...kidless];
}
