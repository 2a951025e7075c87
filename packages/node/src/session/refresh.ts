/**
 * Refreshing a session's access token, once per refresh token in this process. Requests of
 * one browser arrive in parallel with the same cookie; with rotating refresh tokens, a second
 * refresh with the same (now spent) token would make the provider revoke the whole family. So
 * concurrent callers share one refresh, and callers that still carry the old cookie shortly
 * after get the same new tokens. Internal.
 */

import type { TokenSet } from '@oidc-rp/core';
import type { NodeClient } from '../client-types';

// How long a finished refresh is remembered for requests that still carry the old cookie.
const GRACE_MS = 30_000;

export function createRefresher(client: NodeClient) {
  const flights = new Map<string, { tokens: Promise<TokenSet>; settledAt?: number }>();

  function prune(now: number): void {
    for (const [token, flight] of flights) {
      if (flight.settledAt !== undefined && now - flight.settledAt > GRACE_MS) flights.delete(token);
    }
  }

  return function refresh(refreshToken: string, expectedSubject: string): Promise<TokenSet> {
    const now = Date.now();
    prune(now);
    const existing = flights.get(refreshToken);
    if (existing) return existing.tokens;
    const flight: { tokens: Promise<TokenSet>; settledAt?: number } = {
      tokens: client.refresh(refreshToken, { expectedSubject }),
    };
    flights.set(refreshToken, flight);
    flight.tokens.then(
      () => {
        flight.settledAt = Date.now();
      },
      // A failure is not remembered: the next request may try again (e.g. after a network error).
      () => flights.delete(refreshToken),
    );
    return flight.tokens;
  };
}
