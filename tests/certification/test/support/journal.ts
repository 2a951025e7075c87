/**
 * Judging a run as the conformance suite does: by what reached the provider. The reference
 * server's request journal (control API) is emptied before each run (runs of a file are
 * sequential, so every entry after that is the run's), and read after it.
 */
import type { JournalEntry, ReferenceServer } from '@oidc-rp/reference-server';
import { expect } from 'vitest';

export type EndpointKind = 'discovery' | 'jwks' | 'authorize' | 'par' | 'token' | 'userinfo' | 'logout';

const ENDPOINTS: Record<EndpointKind, readonly string[]> = {
  discovery: ['/.well-known/openid-configuration'],
  jwks: ['/oidc/jwks'],
  authorize: ['/oidc/authorize'],
  par: ['/oauth/par'],
  token: ['/oidc/token', '/oauth/token'],
  userinfo: ['/oidc/userinfo'],
  logout: ['/oidc/logout'],
};

/** The run's requests to the provider, by endpoint. */
export class RunJournal {
  constructor(readonly entries: readonly JournalEntry[]) {}

  /**
   * Requests of one kind: inbound (the provider's own back-channel POSTs are `outbound`), and
   * not a CORS preflight (OPTIONS asks whether a request may be made; it carries nothing).
   */
  calls(kind: EndpointKind): JournalEntry[] {
    return this.entries.filter((e) => !e.outbound && e.method !== 'OPTIONS' && e.endpoint !== undefined && ENDPOINTS[kind].includes(e.endpoint));
  }

  /** The logout tokens the provider POSTed to a client's back-channel URI. */
  backchannelDeliveries(): JournalEntry[] {
    return this.entries.filter((e) => e.outbound !== undefined);
  }

  /** Position of the first request of a kind (Infinity when none). */
  first(kind: EndpointKind): number {
    return this.calls(kind)[0]?.seq ?? Number.POSITIVE_INFINITY;
  }
}

/**
 * Empties the journal, runs `body`, and returns what reached the provider meanwhile.
 *
 * @example
 * const { journal } = await journalled(server, () => runNodeFlow(options));
 */
export async function journalled<T>(server: ReferenceServer, body: () => Promise<T>): Promise<{ value: T; journal: RunJournal }> {
  await server.control.requests.clear();
  const value = await body();
  return { value, journal: new RunJournal(await server.control.requests.list()) };
}

/**
 * An RP that must reject stopped: no token request after a bad authorization response (or a
 * front-channel ID token), no userinfo request after a bad token response, no authorization
 * request after a bad discovery document.
 *
 * @example
 * expectStoppedAfter('authorization', journal);
 */
export function expectStoppedAfter(where: 'discovery' | 'authorization' | 'token' | 'userinfo', journal: RunJournal): void {
  if (where === 'discovery') {
    expect(journal.calls('authorize'), 'an authorization request after a refused discovery document').toEqual([]);
    expect(journal.calls('par'), 'a pushed authorization request after a refused discovery document').toEqual([]);
  }
  if (where === 'discovery' || where === 'authorization') expect(journal.calls('token'), 'a token request after the refused response').toEqual([]);
  // A DPoP nonce retry (400 use_dpop_nonce, then the same grant again) is one redemption.
  if (where === 'token') expect(journal.calls('token').filter((c) => c.status !== 400).length, 'the code redeemed more than once').toBeLessThanOrEqual(1);
  if (where === 'userinfo') expect(journal.calls('userinfo'), 'userinfo asked again after its answer was refused').toHaveLength(1);
  else expect(journal.calls('userinfo'), 'a userinfo request after the refused response').toEqual([]);
}
