/**
 * DPoP faults: a valid proof answered as if it were bad, so a client's handling of the server's
 * refusals can be tested. Consulted only for a client with faults.
 */
import type { Fault } from '../config/fault-names';
import type { RequestContext } from '../request/context';

/** A refusal a fault makes of a proof that passed every check. */
export interface FaultyRefusal {
  error: 'invalid_dpop_proof' | 'use_dpop_nonce';
  description: string;
  headers: Record<string, string>;
}

/**
 * How the client's faults refuse a valid proof carrying `nonce`, or undefined when they do
 * not: `dpop_proof_replayed` reports its `jti` as used; `dpop_nonce_required` demands a server
 * nonce (the tenant's current one, sent in `DPoP-Nonce`) as if the server had just started to.
 *
 * @example
 * const refusal = faultyProofRefusal(ctx, faults, proof.nonce);
 */
export function faultyProofRefusal(ctx: RequestContext, faults: ReadonlySet<Fault>, nonce: string | undefined): FaultyRefusal | undefined {
  if (faults.has('dpop_proof_replayed')) {
    return { error: 'invalid_dpop_proof', description: 'the DPoP proof has been used before; make a new proof for every request', headers: {} };
  }
  const nonces = ctx.server.dpopNonces;
  if (!(nonce !== undefined && nonces.accepted(ctx.tenant.id).includes(nonce)) && faults.has('dpop_nonce_required')) {
    return {
      error: 'use_dpop_nonce',
      description: 'the DPoP proof must carry the server nonce of the DPoP-Nonce header',
      headers: { 'DPoP-Nonce': nonces.current(ctx.tenant.id) },
    };
  }
  return undefined;
}

/**
 * `userinfo_dpop_challenge_odd_case` at a resource (userinfo): a valid proof without the
 * current server nonce is answered 401 with the challenge scheme spelled `dPoP` (auth schemes
 * are case-insensitive, RFC 9110 11.1) and a `DPoP-Nonce`; a correct client retries once with
 * it. Undefined when the proof carries an accepted nonce or the client has no such fault.
 *
 * @example
 * const odd = oddCaseNonceChallenge(ctx, faults, proof.nonce);
 */
export function oddCaseNonceChallenge(ctx: RequestContext, faults: ReadonlySet<Fault>, nonce: string | undefined): FaultyRefusal | undefined {
  const nonces = ctx.server.dpopNonces;
  if (nonce !== undefined && nonces.accepted(ctx.tenant.id).includes(nonce)) return undefined;
  if (!faults.has('userinfo_dpop_challenge_odd_case')) return undefined;
  const description = 'the DPoP proof must carry the server nonce of the DPoP-Nonce header';
  return {
    error: 'use_dpop_nonce',
    description,
    headers: { 'DPoP-Nonce': nonces.current(ctx.tenant.id), 'WWW-Authenticate': `dPoP error="use_dpop_nonce", error_description="${description}"` },
  };
}
