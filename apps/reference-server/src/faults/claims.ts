/**
 * Aggregated and distributed claims (OIDC Core 5.6.2) in userinfo, as the certification's
 * claims tests serve them: `_claim_names` naming a source in `_claim_sources`, either a JWT of
 * claims (aggregated; signed by the tenant's key, unsigned, or with a broken signature) or an
 * endpoint with its own access token (distributed; this tenant's claims source, the same on
 * another origin, or a plain-http URL). Only clients configured with such a fault get here.
 */
import { SignJWT } from 'jose';
import type { Fault } from '../config/fault-names';
import type { RequestContext } from '../request/context';
import { breakSignature } from './id-token';

/** The claims the aggregated source asserts (the certification test's, from OIDC Core 5.6.2.1). */
export const AGGREGATED_CLAIMS = {
  address: { street_address: '1234 Hollywood Blvd.', locality: 'Los Angeles', region: 'CA', postal_code: '90210', country: 'US' },
  phone_number: '+1 (310) 123-4567',
} as const;

/** The claim the distributed source answers (the certification test's). */
export const DISTRIBUTED_CLAIMS = { credit_score: 650 } as const;

/** Where the tenant's distributed-claims source answers, relative to the issuer. */
export const CLAIMS_SOURCE_PATH = '/oidc/claims-source';

/**
 * The userinfo `claims` with the client's aggregated or distributed claims added;
 * `accessToken` (the one userinfo was called with) is the distributed source's token.
 *
 * @example
 * const body = faults ? await withClaimSources(ctx, faults, claims, presented.token) : claims;
 */
export async function withClaimSources(
  ctx: RequestContext,
  faults: ReadonlySet<Fault>,
  claims: Record<string, unknown>,
  accessToken: string,
): Promise<Record<string, unknown>> {
  const aggregated = await aggregatedSource(ctx, faults, claims.sub);
  if (aggregated) {
    return { ...claims, _claim_names: { address: 'src1', phone_number: 'src1' }, _claim_sources: { src1: { JWT: aggregated } } };
  }
  const endpoint = distributedEndpoint(ctx, faults);
  if (endpoint) {
    return { ...claims, _claim_names: { credit_score: 'src1' }, _claim_sources: { src1: { endpoint, access_token: accessToken } } };
  }
  return claims;
}

async function aggregatedSource(ctx: RequestContext, faults: ReadonlySet<Fault>, sub: unknown): Promise<string | undefined> {
  const payload = { iss: ctx.issuer, sub, ...AGGREGATED_CLAIMS };
  // As the certification suite signs them: `alg: none`.
  if (faults.has('userinfo_aggregated_claims_unsigned')) {
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    return `${part({ alg: 'none' })}.${part(payload)}.`;
  }
  const bad = faults.has('userinfo_aggregated_claims_bad_signature');
  if (!bad && !faults.has('userinfo_aggregated_claims')) return undefined;
  const jwt = await signedClaims(ctx, payload);
  return bad ? breakSignature(jwt) : jwt;
}

function distributedEndpoint(ctx: RequestContext, faults: ReadonlySet<Fault>): string | undefined {
  const own = `${ctx.issuer}${CLAIMS_SOURCE_PATH}`;
  if (faults.has('userinfo_distributed_claims')) return own;
  if (faults.has('userinfo_distributed_claims_other_origin')) {
    // The same server under its other loopback name: another origin a client must not call unasked.
    const url = new URL(own);
    url.hostname = url.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
    return url.href;
  }
  if (faults.has('userinfo_distributed_claims_insecure_endpoint')) return `http://claims.example.com/${ctx.tenant.id}${CLAIMS_SOURCE_PATH}`;
  return undefined;
}

/**
 * A JWT of `payload` signed with the tenant's current key: the aggregated source, and the
 * distributed source's answer.
 *
 * @example
 * const jwt = await signedClaims(ctx, { iss: ctx.issuer, sub, credit_score: 650 });
 */
export async function signedClaims(ctx: RequestContext, payload: Record<string, unknown>): Promise<string> {
  const key = (await ctx.keys()).current;
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(await key.privateKey());
}
