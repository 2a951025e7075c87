/**
 * Verifying a provider-signed JWT (a logout token, a JARM response) with a key of the
 * provider's JWKS: the cached set, one refetch for an unknown `kid`, WebCrypto. The caller has
 * already checked `alg` against what it accepts, and turns the outcome into its own error code.
 * Internal.
 */

import type { JWK } from 'jose';
import type { HttpOptions, ProviderMetadata } from '../types';
import { findJwksKey, selectVerificationKey } from './jwks';
import { verifyCompactJws } from './jws';

/** Why a provider signature did not verify, for the caller's error; `cause` is WebCrypto's refusal, if any. */
export type ProviderSignatureOutcome = { ok: true } | { ok: false; reason: 'no_jwks_uri' | 'unknown_kid' | 'invalid'; cause?: unknown };

/**
 * Whether `token`'s signature verifies under `alg` with the provider's key named `kid` (any
 * key of the algorithm when `kid` is absent and there is one).
 */
export async function verifyProviderSignature(
  token: string,
  alg: string,
  kid: string | undefined,
  options: { provider: ProviderMetadata; http?: HttpOptions | undefined; refetchCooldown: number },
): Promise<ProviderSignatureOutcome> {
  const jwksUri = options.provider.jwks_uri;
  if (typeof jwksUri !== 'string') return { ok: false, reason: 'no_jwks_uri' };
  const key: JWK | undefined = await findJwksKey(jwksUri, (keys) => selectVerificationKey(keys, alg, kid), {
    http: options.http,
    refetchCooldown_: options.refetchCooldown,
  });
  if (!key) return { ok: false, reason: 'unknown_kid' };
  let cause: unknown;
  const valid = await verifyCompactJws(token, key, alg).catch((error: unknown) => {
    cause = error;
    return false;
  });
  return valid ? { ok: true } : { ok: false, reason: 'invalid', cause };
}
