/**
 * Client assertion faults (RFC 7523): a valid `private_key_jwt` or `client_secret_jwt`
 * assertion refused as if one of its checks had failed, so a client's handling of
 * `invalid_client` can be tested. Consulted only for a client with faults.
 */
import type { Fault } from '../config/fault-names';

/** The check a fault pretends the assertion failed. */
export type FaultyAssertionCheck = 'replayed' | 'wrongAud' | 'expired' | 'unknownKey';

/**
 * The check the client's faults pretend an assertion that passed every check failed, or
 * undefined when they pretend none. The first fault that applies wins, so a counted fault is
 * spent only by the request it refuses.
 *
 * @example
 * const failed = faultyAssertionCheck(client.faults);
 * if (failed) throw refuse(describe(failed));
 */
export function faultyAssertionCheck(faults: ReadonlySet<Fault>): FaultyAssertionCheck | undefined {
  if (faults.has('client_assertion_replayed')) return 'replayed';
  if (faults.has('client_assertion_wrong_aud')) return 'wrongAud';
  if (faults.has('client_assertion_expired')) return 'expired';
  if (faults.has('client_assertion_unknown_key')) return 'unknownKey';
  return undefined;
}
