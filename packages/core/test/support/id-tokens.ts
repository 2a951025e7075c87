/**
 * A local "provider" for ID-token tests: signing keys made with jose, tokens signed with
 * them, and an msw JWKS endpoint that counts its requests.
 */

import { HttpResponse, http } from 'msw';
import type { SetupServer } from 'msw/node';
import { type JWK, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { base64url, utf8 } from '../../src/http/encoding';
import type { ProviderMetadata } from '../../src/types';

export const ISSUER = 'https://op.example.test';
export const JWKS_URI = `${ISSUER}/oidc/jwks`;
export const CLIENT_ID = 'client-123';
/** 2030-01-01T00:00:00Z, in epoch seconds: "now" in every time-dependent test. */
export const NOW = 1_893_456_000;

export function testProvider(overrides: Partial<ProviderMetadata> = {}): ProviderMetadata {
  return {
    issuer: ISSUER,
    authorization_endpoint: `${ISSUER}/oidc/authorize`,
    token_endpoint: `${ISSUER}/oidc/token`,
    jwks_uri: JWKS_URI,
    id_token_signing_alg_values_supported: ['RS256', 'ES256'],
    ...overrides,
  };
}

export interface TestKey {
  alg: string;
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** The public JWK as the provider publishes it. */
  jwk: JWK;
}

let keyCount = 0;

export async function createTestKey(alg = 'RS256', jwkExtras: JWK = {}): Promise<TestKey> {
  const kid = `key-${++keyCount}`;
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig', ...jwkExtras };
  return { alg, kid, privateKey, publicKey, jwk };
}

/** Claims of a token that passes every check at {@link NOW}. */
export function validClaims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    iss: ISSUER,
    sub: 'user-42',
    aud: CLIENT_ID,
    exp: NOW + 300,
    iat: NOW - 10,
    ...overrides,
  };
}

/** Signs `claims` (undefined values dropped) with the key; header fields may be overridden. */
export async function signIdToken(
  key: TestKey,
  claims: Record<string, unknown> = validClaims(),
  header: Record<string, unknown> = {},
): Promise<string> {
  const payload = Object.fromEntries(Object.entries(claims).filter(([, value]) => value !== undefined));
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, ...header }).sign(key.privateKey);
}

/** A JWKS endpoint serving `keys()` at the moment of each request, counting the requests. */
export function serveJwks(server: SetupServer, keys: () => JWK[], uri = JWKS_URI): { fetches: () => number } {
  let fetches = 0;
  server.use(
    http.get(uri, () => {
      fetches++;
      return HttpResponse.json({ keys: keys() });
    }),
  );
  return { fetches: () => fetches };
}

export function base64urlJson(value: unknown): string {
  return base64url(utf8(JSON.stringify(value)));
}
