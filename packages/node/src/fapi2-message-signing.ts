/**
 * FAPI 2.0 Message Signing for `fapi2({ messageSigning: true })`: the options it adds to the
 * Security Profile preset. The authorization request half (FAPI 2.0 Message Signing 5.3): every
 * login's parameters in a request object signed with the client's key (PS256, ES256 or EdDSA)
 * and pushed as the PAR body's `request`. The authorization response half (JARM, `responseMode:
 * 'query.jwt'`) is fixed by the preset in fapi2.ts.
 */

import { requestObjectSigner } from '@oidc-rp/core/signed';
import { invalidOptions } from '@oidc-rp/core/internal';
import type { NodeClientOptions } from './options';

const ALGORITHMS: readonly string[] = ['PS256', 'ES256', 'EdDSA'];

/**
 * The preset options of message signing for the client's private key. Internal.
 *
 * @example
 * ```ts
 * const extra = messageSigningOptions(privateKey, kid, alg); // { requestObject: { signer } }
 * ```
 */
export function messageSigningOptions(
  privateKey: (JsonWebKey & { kid?: string }) | CryptoKey,
  kid: string | undefined,
  alg: string | undefined,
): Pick<NodeClientOptions, 'requestObject'> {
  const isCryptoKey = typeof CryptoKey !== 'undefined' && privateKey instanceof CryptoKey;
  const jwk = isCryptoKey ? undefined : (privateKey as JsonWebKey);
  // RSA signs PS256 here, never RS256 (FAPI 2.0 5.4), whatever the provider lists first.
  const chosen = alg ?? jwk?.alg ?? (jwk?.kty === 'RSA' ? 'PS256' : undefined);
  if (chosen !== undefined && !ALGORITHMS.includes(chosen)) throw invalidOptions(`FAPI 2.0 signs request objects with PS256, ES256 or EdDSA, not ${chosen}: pass alg.`);
  if (isCryptoKey && (privateKey as CryptoKey).algorithm.name === 'RSASSA-PKCS1-v1_5') {
    throw invalidOptions('FAPI 2.0 signs request objects with PS256, ES256 or EdDSA: an RSASSA-PKCS1-v1_5 CryptoKey signs RS*; import the key for RSA-PSS.');
  }
  const signer = requestObjectSigner({ key: privateKey, ...(kid !== undefined ? { kid } : {}), ...(chosen !== undefined ? { alg: chosen as 'PS256' } : {}) });
  return { requestObject: { signer } };
}
