/**
 * DPoP (RFC 9449): checking a proof a client sends in the `DPoP` header at the token endpoints
 * and userinfo. One straight line of small checks, each returning why the proof is refused; the
 * first refusal wins. `htu` is compared with the issuer's origin (the configured public origin,
 * never a client-supplied `Host`), and each `jti` is accepted once per key on the shared store.
 */
import { calculateJwkThumbprint, compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { nodeCrypto } from '../crypto/node-crypto';
import { storageKey } from '../crypto/secrets';
import type { RequestContext } from '../request/context';

/** Proof signing algorithms the server accepts (and announces): asymmetric only, never `none` or HMAC. */
export const DPOP_ALGORITHMS: readonly string[] = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512', 'EdDSA'];

/** How far (seconds) a proof's `iat` may lie before or after the server's clock. */
export const IAT_WINDOW_SECONDS = 60;

/** JWK members that only a private (or symmetric) key has. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** Longest `DPoP` header accepted; a proof with an RSA 4096 key is well below. */
const MAX_PROOF_LENGTH = 8192;

/** A proof that passed every check: the thumbprint of its key (RFC 7638, the `jkt`). */
export interface ValidProof {
  ok: true;
  jkt: string;
  /** The server nonce the proof carried, if any. */
  nonce?: string;
}

/** Why a proof was refused: `use_dpop_nonce` when only the server nonce is missing or stale. */
export interface RefusedProof {
  ok: false;
  error: 'invalid_dpop_proof' | 'use_dpop_nonce';
  description: string;
}

export type ProofResult = ValidProof | RefusedProof;

/** What the proof must match: the request's method and endpoint, and at userinfo the access token. */
export interface ProofExpectation {
  method: string;
  /** The endpoint's path under the tenant, e.g. `/oidc/token`. */
  path: string;
  accessToken?: string;
  /** Server nonces the proof may carry; undefined when the tenant asks for none. */
  nonces?: readonly string[];
}

function refuse(description: string): RefusedProof {
  return { ok: false, error: 'invalid_dpop_proof', description };
}

/**
 * The `ath` of an access token: base64url SHA-256 of its ASCII (RFC 9449 4.2).
 *
 * @example
 * accessTokenHash(token) === payload.ath;
 */
export function accessTokenHash(token: string): string {
  return nodeCrypto().createHash('sha256').update(token, 'ascii').digest('base64url');
}

/** `htu` without query and fragment (RFC 9449 4.3), or undefined when it is no URL. */
function normalizedHtu(value: unknown): string | undefined {
  if (typeof value !== 'string' || !URL.canParse(value)) return undefined;
  const url = new URL(value);
  return `${url.origin}${url.pathname}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The request's single `DPoP` header, undefined when absent; a header sent twice (joined with
 * a comma, which no compact JWS contains) counts as malformed.
 *
 * @example
 * const proof = dpopHeader(ctx.request);
 */
export function dpopHeader(request: Request): string | undefined {
  const value = request.headers.get('dpop');
  return value === null ? undefined : value.trim();
}

/**
 * Checks `proof` against the request it came with. On success its `jti` is spent: the same
 * proof is refused from then on, by every instance sharing the store.
 *
 * @example
 * const result = await checkProof(ctx, header, { method: 'POST', path: '/oidc/token' });
 * if (!result.ok) throw dpopError(result);
 */
export async function checkProof(ctx: RequestContext, proof: string, expected: ProofExpectation): Promise<ProofResult> {
  if (proof === '' || proof.length > MAX_PROOF_LENGTH || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(proof)) {
    return refuse('the DPoP header must hold one compact JWS');
  }
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(proof) as Record<string, unknown>;
  } catch {
    return refuse('the DPoP proof header is not readable JSON');
  }
  if (header.typ !== 'dpop+jwt') return refuse('the DPoP proof must have typ "dpop+jwt"');
  const alg = header.alg;
  if (typeof alg !== 'string' || !DPOP_ALGORITHMS.includes(alg)) {
    return refuse(`the DPoP proof must be signed with one of ${DPOP_ALGORITHMS.join(', ')}`);
  }
  const jwk = header.jwk;
  if (!isRecord(jwk) || typeof jwk.kty !== 'string') return refuse('the DPoP proof header must carry the public key as "jwk"');
  if (PRIVATE_MEMBERS.some((member) => member in jwk)) return refuse('the DPoP proof "jwk" must be a public key; it carries private key material');

  let payload: Record<string, unknown>;
  try {
    const key = await importJWK(jwk as JWK, alg);
    const verified = await compactVerify(proof, key, { algorithms: [alg] });
    const parsed: unknown = JSON.parse(new TextDecoder().decode(verified.payload));
    if (!isRecord(parsed)) return refuse('the DPoP proof payload must be a JSON object');
    payload = parsed;
  } catch {
    return refuse('the DPoP proof signature does not verify with its "jwk"');
  }

  if (payload.htm !== expected.method) return refuse(`the DPoP proof "htm" must be ${expected.method}`);
  const htu = `${ctx.issuer}${expected.path}`;
  if (normalizedHtu(payload.htu) !== htu) return refuse(`the DPoP proof "htu" must be ${htu}`);
  const now = Math.floor(ctx.server.now() / 1000);
  if (typeof payload.iat !== 'number' || !Number.isFinite(payload.iat)) return refuse('the DPoP proof must have a numeric "iat"');
  if (Math.abs(payload.iat - now) > IAT_WINDOW_SECONDS) {
    return refuse(`the DPoP proof "iat" must be within ${IAT_WINDOW_SECONDS} seconds of the server's time`);
  }
  if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > 256) {
    return refuse('the DPoP proof must have a "jti" of 1 to 256 characters');
  }
  if (expected.accessToken !== undefined && payload.ath !== accessTokenHash(expected.accessToken)) {
    return refuse('the DPoP proof "ath" must be the hash of the access token it is sent with');
  }
  if (expected.nonces !== undefined && (typeof payload.nonce !== 'string' || !expected.nonces.includes(payload.nonce))) {
    return { ok: false, error: 'use_dpop_nonce', description: 'the DPoP proof must carry the server nonce of the DPoP-Nonce header' };
  }

  let jkt: string;
  try {
    jkt = await calculateJwkThumbprint(jwk as JWK, 'sha256');
  } catch {
    return refuse('the DPoP proof "jwk" is not a usable public key');
  }
  // Last, so a proof refused for another reason does not spend its jti. The entry lives as long
  // as the proof could still pass the iat check.
  const first = await ctx.server.store.rememberProof(storageKey(`${jkt}.${payload.jti}`), 2 * IAT_WINDOW_SECONDS + 1);
  if (!first) return refuse('the DPoP proof has been used before; make a new proof for every request');
  return { ok: true, jkt, ...(typeof payload.nonce === 'string' ? { nonce: payload.nonce } : {}) };
}

/**
 * The server nonces a proof to this tenant must carry one of, or undefined when the tenant
 * demands none (config `dpop_nonce`).
 *
 * @example
 * const result = await checkProof(ctx, proof, { method: 'POST', path, nonces: demandedNonces(ctx) });
 */
export function demandedNonces(ctx: RequestContext): readonly string[] | undefined {
  return ctx.tenant.dpop_nonce ? ctx.server.dpopNonces.accepted(ctx.tenant.id) : undefined;
}

/**
 * The `DPoP-Nonce` header to send: the current nonce when the tenant demands nonces and the
 * client does not have it yet (none, or one that has since rotated); else none.
 *
 * @example
 * return jsonResponse(body, 200, { ...nonceHeader(ctx, proof?.nonce) });
 */
export function nonceHeader(ctx: RequestContext, used: string | undefined): Record<string, string> {
  if (!ctx.tenant.dpop_nonce) return {};
  const current = ctx.server.dpopNonces.current(ctx.tenant.id);
  return used === current ? {} : { 'DPoP-Nonce': current };
}
