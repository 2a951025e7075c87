/**
 * What both token endpoints share: reading the strict form, requiring `grant_type` and other
 * parameters, and answering every OAuthError as RFC 6749 5.2 JSON.
 */
import type { Client } from '../config/model';
import { faultyProofRefusal } from '../faults/dpop';
import { OAuthError, asInvalidRequest, errorResponse } from '../http/errors';
import { readStrictForm } from '../http/params';
import type { RequestContext } from '../request/context';
import { checkProof, demandedNonces, dpopHeader, nonceHeader, type ValidProof } from './dpop';

/** A token request's form: each parameter once. */
export type Form = ReadonlyMap<string, string>;

/**
 * The `invalid_grant` error (RFC 6749 5.2) with `description`.
 *
 * @example
 * throw invalidGrant('the authorization code has expired');
 */
export function invalidGrant(description: string): OAuthError {
  return new OAuthError('invalid_grant', description);
}

/**
 * The `invalid_dpop_proof` error (RFC 9449 5) of the token endpoints: 400 with `description`.
 *
 * @example
 * throw invalidDpopProof('the refresh token is bound to another DPoP key');
 */
export function invalidDpopProof(description: string): OAuthError {
  return new OAuthError('invalid_dpop_proof', description);
}

/**
 * The request's DPoP proof, checked against the endpoint at `path`; undefined when the request
 * carries none. A refused proof is the request's error: 400 `invalid_dpop_proof` (or
 * `use_dpop_nonce`).
 */
async function tokenProof(ctx: RequestContext, path: string): Promise<ValidProof | undefined> {
  const proof = dpopHeader(ctx.request);
  if (proof === undefined) return undefined;
  const nonces = demandedNonces(ctx);
  const result = await checkProof(ctx, proof, { method: 'POST', path, ...(nonces ? { nonces } : {}) });
  // A refusal hands out the current nonce, so the client can retry once with it (RFC 9449 8).
  if (!result.ok) throw new OAuthError(result.error, result.description, 400, nonceHeader(ctx, undefined));
  return result;
}

/**
 * The DPoP rules of the authenticated client: a token request without a proof is refused when
 * the tenant or the client requires one; a client with DPoP faults has its proof refused.
 *
 * @example
 * checkProofPolicy(ctx, client, proof);
 */
export function checkProofPolicy(ctx: RequestContext, client: Client, proof: ValidProof | undefined): void {
  if (proof === undefined && (ctx.tenant.require_dpop || client.require_dpop)) {
    throw invalidDpopProof('this client must send a DPoP proof (RFC 9449) with every token request');
  }
  if (proof === undefined || client.faults.size === 0) return;
  const refusal = faultyProofRefusal(ctx, client.faults, proof.nonce);
  if (refusal) throw new OAuthError(refusal.error, refusal.description, 400, refusal.headers);
}

/**
 * Reads the form and the DPoP proof, runs the grant, and turns every OAuthError into its JSON
 * response. `path` is the endpoint's path under the tenant, which the proof's `htu` must name.
 *
 * @example
 * return tokenEndpoint(ctx, '/oidc/token', async (form, grantType, proof) => tokenResponse(ctx, client, body));
 */
export async function tokenEndpoint(
  ctx: RequestContext,
  path: string,
  run: (form: Form, grantType: string, proof: ValidProof | undefined) => Promise<Response>,
): Promise<Response> {
  try {
    const form = await readStrictForm(ctx.request).catch(asInvalidRequest);
    const grantType = form.get('grant_type');
    if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required');
    const proof = await tokenProof(ctx, path);
    const response = await run(form, grantType, proof);
    if (proof) for (const [name, value] of Object.entries(nonceHeader(ctx, proof.nonce))) response.headers.set(name, value);
    return response;
  } catch (error) {
    if (error instanceof OAuthError) return errorResponse(error, ctx.corsHeaders);
    throw error;
  }
}

/**
 * A parameter the grant needs; `invalid_request` naming it when absent.
 *
 * @example
 * const code = required(form, 'code');
 */
export function required(form: Form, name: string): string {
  const value = form.get(name);
  if (value === undefined) throw new OAuthError('invalid_request', `${name} is required`);
  return value;
}
