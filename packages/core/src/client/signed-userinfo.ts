/**
 * Signed userinfo (OIDC Core 5.3.2): a client registered with `userinfo_signed_response_alg`
 * gets its claims as a JWT (`application/jwt`) signed by the provider. Verified like an ID token
 * with the one pinned algorithm: the provider's JWKS key, `iss` and `aud` when present, and then
 * `sub` against the ID token's (by `fetchUserInfo`, which this wraps). Encrypted userinfo (a JWE) is refused: this
 * client holds no decryption key. An app that never asks for signed userinfo bundles none of this.
 */

import { DEV } from '../dev';
import { OidcError, type OidcErrorCode } from '../errors';
import { fromUtf8 } from '../http/encoding';
import { MAX_JSON_BYTES, discardBody, readBoundedBody } from '../http/transport';
import { findJwksKey, selectVerificationKey } from '../jose/jwks';
import { verifyCompactJws } from '../jose/jws';
import { decodeUnverifiedJwt } from '../jose/jwt';
import { requireString } from '../options';
import type { HttpOptions, ProviderMetadata } from '../types';
import { type UserInfo, type UserInfoParams, fetchUserInfo } from './userinfo';
import { checkSigningAlgorithm, show } from './id-token';

/** Input of {@link fetchSignedUserInfo}: `fetchUserInfo`'s, plus the client and its registered algorithm. */
export interface SignedUserInfoParams extends UserInfoParams {
  /** The client the userinfo JWT must be addressed to (`aud`). */
  clientId: string;
  /** The client's registered `userinfo_signed_response_alg` (e.g. `'RS256'`): a JWT signed with any other is refused. */
  signingAlgorithm: string;
  /** Seconds between JWKS refetches caused by an unknown `kid`. Default 30. */
  jwksRefetchCooldown?: number;
}

/**
 * `fetchUserInfo` for a client registered with `userinfo_signed_response_alg`: the answer must
 * be `application/jwt`, signed with `signingAlgorithm` by a key of the provider's JWKS
 * (`userinfo_alg_not_allowed`, `userinfo_signature_invalid`), with `iss` the provider's issuer
 * (`userinfo_iss_mismatch`) and `aud` including the client (`userinfo_aud_mismatch`) when
 * present, and `sub` the expected subject (`userinfo_sub_mismatch`). A plain JSON answer is
 * refused (`userinfo_jwt_invalid`: it would skip the signature), and an encrypted one too
 * (`userinfo_encrypted_unsupported`). The JWT is verified inside the request (its `fetch`), so
 * DPoP, the timeout and the error answers work as for `fetchUserInfo`.
 *
 * @example
 * ```ts
 * const user = await fetchSignedUserInfo({
 *   provider,
 *   accessToken: tokens.accessToken,
 *   expectedSubject: tokens.claims!.sub,
 *   clientId: 'web',
 *   signingAlgorithm: 'RS256',
 * });
 * ```
 */
export function fetchSignedUserInfo(params: SignedUserInfoParams): Promise<UserInfo> {
  requireString(params?.clientId, DEV && 'clientId');
  const signingAlgorithm = checkSigningAlgorithm(params.signingAlgorithm);
  const { clientId, provider, http } = params;
  const cooldown = params.jwksRefetchCooldown ?? 30;
  const send = http?.fetch ?? globalThis.fetch;
  const verifying: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('Accept', 'application/jwt');
    const response = await send(input, { ...init, headers });
    // Errors (a 401 with a DPoP nonce challenge among them) go back to fetchUserInfo as they came.
    if (!response.ok) return response;
    const claims = await readSignedUserInfo(response, { provider, clientId, signingAlgorithm, http, cooldown });
    return new Response(JSON.stringify(claims), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return fetchUserInfo({ ...params, http: { ...http, fetch: verifying } });
}

async function readSignedUserInfo(
  response: Response,
  { provider, clientId, signingAlgorithm, http, cooldown }: { provider: ProviderMetadata; clientId: string; signingAlgorithm: string; http: HttpOptions | undefined; cooldown: number },
): Promise<Record<string, unknown>> {
  const type = response.headers.get('content-type') ?? '';
  if (!/^application\/jwt\s*(;|$)/i.test(type)) {
    await discardBody(response);
    fail('userinfo_jwt_invalid', DEV && `the answer is ${show(type.slice(0, 60))}, not application/jwt, though the client is registered for signed userinfo`);
  }
  const bytes = await readBoundedBody(response, MAX_JSON_BYTES);
  if (!bytes) fail('userinfo_jwt_invalid', DEV && 'the answer is larger than 1 MiB');
  const jwt = fromUtf8(bytes).trim();
  if (jwt.split('.').length === 5) {
    fail('userinfo_encrypted_unsupported', DEV && 'the answer is encrypted (JWE), which this client does not support; register the client without userinfo_encrypted_response_alg');
  }
  const token = decodeUnverifiedJwt(jwt);
  if (!token) fail('userinfo_jwt_invalid', DEV && 'the answer is not a JWS of three base64url JSON parts');
  const { alg, kid, crit } = token.header;
  if (crit !== undefined || (kid !== undefined && typeof kid !== 'string')) fail('userinfo_jwt_invalid', DEV && 'the header has "crit" or a non-string "kid"');
  if (alg !== signingAlgorithm) {
    fail('userinfo_alg_not_allowed', DEV && `"alg" is ${show(alg)}, but the client is registered for ${show(signingAlgorithm)}`);
  }
  const jwksUri = provider.jwks_uri;
  if (typeof jwksUri !== 'string') throw new OidcError('invalid_provider_metadata', DEV && 'The provider has no jwks_uri: add it to verify signed userinfo.');
  const key = await findJwksKey(jwksUri, (keys) => selectVerificationKey(keys, signingAlgorithm, kid as string | undefined), {
    http,
    refetchCooldown_: cooldown,
  });
  const valid = key ? await verifyCompactJws(jwt, key, signingAlgorithm).catch(() => false) : false;
  if (!valid) fail('userinfo_signature_invalid', DEV && (key ? 'the signature does not verify' : `the JWKS has no ${signingAlgorithm} key with "kid" ${show(kid)}`));
  const { iss, aud } = token.payload;
  if (iss !== undefined && iss !== provider.issuer) fail('userinfo_iss_mismatch', DEV && `"iss" is ${show(iss)}, not ${show(provider.issuer)}`);
  if (aud !== undefined && (typeof aud === 'string' ? aud !== clientId : !Array.isArray(aud) || !aud.includes(clientId))) {
    fail('userinfo_aud_mismatch', DEV && `"aud" is ${show(aud)}, not ${show(clientId)}`);
  }
  return token.payload;
}

// "Invalid signed userinfo: <problem>; ...". Never the JWT or a claim value beyond show()'s.
function fail(code: OidcErrorCode, problem: string): never {
  throw new OidcError(code, DEV && `Invalid signed userinfo: ${problem}; check the client's userinfo_signed_response_alg and the provider.`);
}
