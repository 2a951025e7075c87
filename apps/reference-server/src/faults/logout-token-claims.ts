/**
 * Logout-token claim faults, as the OpenID conformance suite's back-channel logout modules send
 * them at RP-initiated logout: the token to a client with one of them is unsecured (`alg: none`),
 * has no `events`, carries a `nonce` (Back-Channel Logout 1.0 2.4 forbids one), names another
 * audience, an event other than back-channel logout, or another issuer. Each must be refused.
 */
import type { LogoutTokenTamper } from '../backchannel/backchannel';
import { clientFaults } from '../config/model';
import type { RequestContext } from '../request/context';

/**
 * How each client's logout token is bent, or undefined for a client without these faults.
 *
 * @example
 * backchannel.notify(ctx.tenant, signer, session, logoutTokenTamper(ctx));
 */
export function logoutTokenTamper(ctx: RequestContext): (clientId: string) => LogoutTokenTamper | undefined {
  return (clientId) => {
    const faults = clientFaults(ctx.tenant, clientId);
    if (!faults) return undefined;
    const changes: Array<(claims: Record<string, unknown>) => void> = [];
    if (faults.has('logout_token_missing_events')) changes.push((c) => delete c.events);
    if (faults.has('logout_token_wrong_events')) changes.push((c) => (c.events = { 'http://schemas.openid.net/event/foobar': {} }));
    if (faults.has('logout_token_with_nonce')) changes.push((c) => (c.nonce = 'logout-tokens-must-not-contain-a-nonce'));
    if (faults.has('logout_token_wrong_aud')) changes.push((c) => (c.aud = `${String(c.aud)}INVALID`));
    if (faults.has('logout_token_wrong_iss')) changes.push((c) => (c.iss = `${String(c.iss)}INVALID`));
    const unsigned = faults.has('logout_token_alg_none');
    if (changes.length === 0 && !unsigned) return undefined;
    return {
      claims: (claims) => {
        for (const change of changes) change(claims);
      },
      unsigned,
    };
  };
}
