// The FAPI 2.0 preset of @oidc-rp/node against oidc-provider configured for the FAPI 2.0
// Security Profile (its fapi feature, PAR required, private_key_jwt, DPoP-bound tokens, PS256
// ID tokens), over real HTTP on 127.0.0.1. The provider enforces the profile: a login that broke
// a rule of it would fail here.
import { generateKeyPairSync } from 'node:crypto';
import { createNodeClient, dpop, fapi2, type Fapi2Options } from '@oidc-rp/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningOidcProvider, startOidcProvider } from './support/oidc-provider';

const REDIRECT = 'http://127.0.0.1:3000/callback';
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const privateJwk = { ...privateKey.export({ format: 'jwk' }), kid: 'fapi-k1' } as JsonWebKey & { kid: string };
const publicJwk = { ...publicKey.export({ format: 'jwk' }), kid: 'fapi-k1', alg: 'ES256', use: 'sig' } as Record<string, unknown>;

let op: RunningOidcProvider;
let plain: RunningOidcProvider;
beforeAll(async () => {
  const registration = {
    client_id: 'fapi-rp',
    token_endpoint_auth_method: 'private_key_jwt' as const,
    jwks: { keys: [publicJwk] },
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    dpop_bound_access_tokens: true,
  };
  op = await startOidcProvider([registration], { fapi2: true });
  // The same client on a provider with its defaults: RS256 ID tokens, no PAR required.
  plain = await startOidcProvider([{ ...registration, dpop_bound_access_tokens: false }], { issParameter: false });
});
afterAll(async () => {
  await op?.close();
  await plain?.close();
});

async function options(issuer: string): Promise<Fapi2Options> {
  return { issuer, clientId: 'fapi-rp', privateKey: privateJwk, dpop: await dpop(), redirectUri: REDIRECT, scope: 'openid email offline_access' };
}

describe('fapi2() against oidc-provider with FAPI 2.0', () => {
  it('logs in through PAR with PKCE, private_key_jwt and DPoP, and gets DPoP-bound tokens and a PS256 ID token', async () => {
    const client = createNodeClient(fapi2(await options(op.issuer)));
    const provider = await client.getProvider();
    expect(provider.require_pushed_authorization_requests).toBe(true);
    const { url, transaction } = await client.startLogin();
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    expect(transaction.codeVerifier).toEqual(expect.any(String));
    const callback = await op.signIn(url);
    if (callback.type !== 'redirect') throw new Error('expected a redirect');
    expect(new URL(callback.location).searchParams.get('iss')).toBe(op.issuer);
    const tokens = await client.finishLogin(callback.location, transaction);
    expect(tokens.tokenType).toBe('DPoP');
    expect(tokens.claims).toMatchObject({ sub: 'alice', iss: op.issuer });
    expect(JSON.parse(Buffer.from(tokens.idToken?.split('.')[0] ?? '', 'base64url').toString()).alg).toBe('PS256');
    const refreshed = await client.refresh(tokens.refreshToken as string);
    expect(refreshed.tokenType).toBe('DPoP');
  });

  it('refuses a provider that does not meet the profile (no RFC 9207 iss, RS256 ID tokens) before any redirect', async () => {
    const client = createNodeClient(fapi2(await options(plain.issuer)));
    await expect(client.startLogin()).rejects.toMatchObject({ code: 'invalid_provider_metadata', message: expect.stringMatching(/FAPI 2.0: .*RFC 9207/) });
  });
});
