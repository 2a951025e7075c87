/**
 * JARM faults, one per JARM module of the FAPI 2.0 Message Signing client plan: the response
 * JWT without or with a wrong `iss` or `aud`, without `exp` or long expired, with a broken
 * signature, unsigned (`alg: none`); and the plain parameters sent instead of the JWT (a
 * downgrade the client must refuse). Only clients configured with a fault get here: the
 * healthy path signs in oauth/jarm.ts.
 */
import { SignJWT } from 'jose';
import type { Fault } from '../config/fault-names';
import type { SigningKey } from '../keys/keys';
import type { RequestContext } from '../request/context';
import { breakSignature, unsecuredJwt } from './id-token';
import { impostorIssuer } from './responses';

/** A client id no registration uses, for the `aud` fault. */
const OTHER_CLIENT = 'another-client';

/**
 * The parameters a client with faults receives for a JARM response: `{ response }` with the
 * claims and signature broken as its faults say, or `plain` itself for `jarm_plain_response`.
 *
 * @example
 * if (faults) return faultyJarm(ctx, faults, claims, key, params);
 */
export async function faultyJarm(
  ctx: RequestContext,
  faults: ReadonlySet<Fault>,
  payload: Record<string, unknown>,
  key: SigningKey,
  plain: Record<string, string>,
): Promise<Record<string, string>> {
  if (faults.has('jarm_plain_response')) return plain;
  const claims = { ...payload };
  if (faults.has('jarm_missing_iss')) delete claims.iss;
  if (faults.has('jarm_wrong_iss')) claims.iss = impostorIssuer(ctx);
  if (faults.has('jarm_missing_aud')) delete claims.aud;
  if (faults.has('jarm_wrong_aud')) claims.aud = OTHER_CLIENT;
  if (faults.has('jarm_missing_exp')) delete claims.exp;
  // Far beyond any clock tolerance a client may allow.
  if (faults.has('jarm_expired')) claims.exp = Math.floor(ctx.server.now() / 1000) - 3600;
  if (faults.has('jarm_alg_none')) return { response: unsecuredJwt(claims) };
  const jwt = await new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(await key.privateKey());
  return { response: faults.has('jarm_bad_signature') ? breakSignature(jwt) : jwt };
}
