/**
 * The misbehaving mode. A client's `"fault"` (one name or a list) makes the server break one
 * rule of the protocol for that client, like the negative tests of the OpenID relying-party
 * certification, so a client library's defences can be proven over real HTTP. Each fault
 * hands the client something it must refuse, except `jwks_key_rotated` and
 * `token_response_token_type_lowercase`, which a correct client accepts. Test use only.
 *
 * The endpoints call in here at the one spot each fault changes; clients without faults take
 * the normal path untouched.
 */
import { SignJWT, exportSPKI, importJWK, type JWK } from 'jose';
import type { Tenant } from '../config/config';
import type { Fault } from '../config/fault-names';
import type { RequestContext } from '../request/context';
import { jsonResponse, NO_STORE } from '../http/errors';
import { createSigningKey, type SigningKey } from '../keys/keys';
import { leftHalfHash, randomToken } from '../crypto/secrets';

const NONE: ReadonlySet<Fault> = new Set();
/** A client id no registration uses, for `aud` / `azp` faults. */
const OTHER_CLIENT = 'another-client';
/** How many keys of `jwks_key_rotated` stay published (each ID token gets a new one). */
const ROTATED_KEYS_KEPT = 3;

/**
 * The faults of a client of the request's tenant (none for an unknown or absent client).
 *
 * @example
 * if (clientFaults(ctx, clientId).has('userinfo_wrong_sub')) ...
 */
export function clientFaults(ctx: RequestContext, clientId: string | undefined): ReadonlySet<Fault> {
  return (clientId !== undefined && ctx.tenant.clients.get(clientId)?.faults) || NONE;
}

/** An issuer that is not this tenant's, on the same origin. */
function impostorIssuer(ctx: RequestContext): string {
  return `${ctx.url.origin}/impostor-of-${ctx.tenant.id}`;
}

// ---------------------------------------------------------------------------------------
// ID tokens

/**
 * Signs the ID token `payload` with the client's faults applied: claims changed or removed,
 * then a broken signature, `alg: none`, HS256 keyed with the public key, or a key the JWKS
 * does not publish (yet).
 *
 * @example
 * const faults = clientFaults(ctx, clientId);
 * if (faults.size > 0) return faultyIdToken(ctx, faults, payload);
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
      : key;
  const jwt = await new SignJWT(claims).setProtectedHeader({ alg: signer.alg, kid: signer.kid, typ: 'JWT' }).sign(signer.privateKey);
  return faults.has('id_token_bad_signature') ? breakSignature(jwt) : jwt;
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
  return claims;
}

function part(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** An unsecured JWT (RFC 7519 6): `alg: none` and an empty signature. */
function unsecuredJwt(claims: Record<string, unknown>): string {
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}

/** The key-confusion attack: HS256 with the PEM of the published public key as the secret. */
async function hmacWithPublicKey(claims: Record<string, unknown>, key: SigningKey): Promise<string> {
  const publicKey = await importJWK(key.publicJwk, key.alg);
  const pem = await exportSPKI(publicKey as CryptoKey);
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: key.kid, typ: 'JWT' }).sign(new TextEncoder().encode(pem));
}

/** A valid token with one bit pattern of its signature flipped. */
function breakSignature(jwt: string): string {
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
  /** Keys of `jwks_key_rotated`, newest first; published from the moment they sign. */
  rotated: SigningKey[];
}

// Keyed by the validated tenant, which each server creates once and keeps.
const faultKeys = new WeakMap<Tenant, FaultKeys>();

function keysOf(ctx: RequestContext): FaultKeys {
  let keys = faultKeys.get(ctx.tenant);
  if (!keys) {
    keys = { rotated: [] };
    faultKeys.set(ctx.tenant, keys);
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
 * Public keys the JWKS publishes for `jwks_key_rotated`, besides the tenant's own.
 *
 * @example
 * return jsonResponse({ keys: [...(await ctx.keys()).jwks().keys, ...faultJwks(ctx)] });
 */
export function faultJwks(ctx: RequestContext): JWK[] {
  return faultKeys.get(ctx.tenant)?.rotated.map((key) => key.publicJwk) ?? [];
}

// ---------------------------------------------------------------------------------------
// Responses

/**
 * The parameters of an authorization response (success or error) to the client, with
 * `state` and `iss` removed or replaced as its faults say.
 *
 * @example
 * const sent = redirectParams(ctx, target.clientId, { code, state, iss });
 */
export function redirectParams(ctx: RequestContext, clientId: string | undefined, params: Record<string, string>): Record<string, string> {
  const faults = clientFaults(ctx, clientId);
  if (faults.size === 0) return params;
  const out = { ...params };
  if (faults.has('redirect_missing_state')) delete out.state;
  if (faults.has('redirect_wrong_state')) out.state = randomToken(16);
  if (faults.has('redirect_missing_iss')) delete out.iss;
  if (faults.has('redirect_wrong_iss')) out.iss = impostorIssuer(ctx);
  return out;
}

/**
 * A successful token response for the client: JSON `body`, or what its faults make of it
 * (an HTML page, no `access_token`, another `token_type`, no `id_token`).
 *
 * @example
 * return tokenResponse(ctx, client.client_id, { access_token, token_type: 'Bearer' });
 */
export function tokenResponse(ctx: RequestContext, clientId: string, body: Record<string, string | number>): Response {
  const faults = clientFaults(ctx, clientId);
  if (faults.has('token_response_not_json')) {
    return new Response('<!doctype html><title>Signed in</title><p>Welcome back.</p>', {
      status: 200,
      headers: { ...ctx.corsHeaders, 'Content-Type': 'text/html; charset=utf-8', ...NO_STORE },
    });
  }
  const out = { ...body };
  if (faults.has('token_response_missing_access_token')) delete out.access_token;
  if (faults.has('token_response_token_type_lowercase') && out.token_type !== undefined) out.token_type = 'bearer';
  if (faults.has('token_response_unknown_token_type') && out.token_type !== undefined) out.token_type = 'mac';
  if (faults.has('id_token_missing')) delete out.id_token;
  return jsonResponse(out, 200, ctx.corsHeaders);
}

/**
 * The issuer the discovery document names. Discovery requests do not say which client asks,
 * so `discovery_issuer_mismatch` on any client changes the document of its whole tenant.
 *
 * @example
 * const issuer = discoveryIssuer(ctx);
 */
export function discoveryIssuer(ctx: RequestContext): string {
  for (const client of ctx.tenant.clients.values()) {
    if (client.faults.has('discovery_issuer_mismatch')) return impostorIssuer(ctx);
  }
  return ctx.issuer;
}

/**
 * The userinfo claims for a token of `clientId`; `userinfo_wrong_sub` names another subject.
 *
 * @example
 * return jsonResponse(userinfoClaims(ctx, record.clientId, releasedClaims(user, record.scopes)));
 */
export function userinfoClaims(ctx: RequestContext, clientId: string, claims: Record<string, unknown>): Record<string, unknown> {
  if (!clientFaults(ctx, clientId).has('userinfo_wrong_sub')) return claims;
  return { ...claims, sub: `${String(claims.sub)}-impostor` };
}
