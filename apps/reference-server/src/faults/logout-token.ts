/**
 * Logout-token faults: `logout_token_wrong_alg` signs the logout token sent to its client with a
 * published key of the other type and algorithm (ES256 for an RS256 tenant), as the OpenID
 * conformance suite's back-channel wrong-alg test does.
 */
import { clientFaults } from '../config/model';
import type { SigningKey } from '../keys/keys';
import type { RequestContext } from '../request/context';
import { otherAlgorithmKey } from './id-token';

/**
 * The key each client's logout token is signed with: the tenant's `key`, or the other
 * algorithm's for a client with `logout_token_wrong_alg`.
 *
 * @example
 * backchannel.notify(ctx.tenant, logoutTokenSigner(ctx, key), session);
 */
export function logoutTokenSigner(ctx: RequestContext, key: SigningKey): (clientId: string) => Promise<SigningKey> {
  return async (clientId) => (clientFaults(ctx.tenant, clientId)?.has('logout_token_wrong_alg') ? otherAlgorithmKey(ctx) : key);
}
