// Request objects (RFC 9101) and signed userinfo across implementations, over real HTTP on
// 127.0.0.1: openid-client v6 (certified) sends request objects to the reference server, by value
// and pushed, and reads its signed userinfo; @oidc-rp/node sends its request objects to
// oidc-provider (certified) with requestObjects and jwtUserinfo enabled, and reads its signed
// userinfo. Each side is the judge of the other: an object or a JWT it refuses fails these tests.
import { generateKeyPairSync } from 'node:crypto';
import { createNodeClient, privateKeyJwt, requestObjectSigner } from '@oidc-rp/node';
import { demoConfig, type ServerConfig } from '@oidc-rp/reference-server';
import { completeLogin, createTestServer, type TestServer } from '@oidc-rp/reference-server/testing';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningOidcProvider, startOidcProvider } from './support/oidc-provider';

const REDIRECT = 'http://127.0.0.1:3000/callback';
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const privateJwk = { ...privateKey.export({ format: 'jwk' }), kid: 'jar-k1', alg: 'ES256' } as JsonWebKey & { kid: string };
const publicJwk = { ...publicKey.export({ format: 'jwk' }), kid: 'jar-k1', alg: 'ES256', use: 'sig' } as Record<string, unknown>;

function jarConfig(): ServerConfig {
  const config = demoConfig();
  const tenant = config.tenants[0];
  if (!tenant) throw new Error('demo config without a tenant');
  tenant.profile = 'standard';
  tenant.clients?.push({
    client_id: 'jar-rp',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code'],
    scopes: ['openid', 'email'],
    jwks: { keys: [publicJwk] },
    token_endpoint_auth_method: 'private_key_jwt',
    request_object_signing_alg: 'ES256',
    require_signed_request_object: true,
    userinfo_signed_response_alg: 'RS256',
  });
  return config;
}

describe('openid-client v6 sends request objects to the reference server and reads its signed userinfo', () => {
  let op: TestServer;
  let key: CryptoKey;
  beforeAll(async () => {
    op = await createTestServer({ config: jarConfig(), listen: true });
    key = await crypto.subtle.importKey('jwk', privateJwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
  });
  afterAll(() => op?.close());

  const discover = () =>
    client.discovery(new URL(op.issuer), 'jar-rp', { userinfo_signed_response_alg: 'RS256' }, client.PrivateKeyJwt({ key, kid: 'jar-k1' }), {
      execute: [client.allowInsecureRequests],
    });

  async function finish(config: client.Configuration, url: URL, verifier: string, state: string) {
    const result = await completeLogin(url);
    if (result.type !== 'redirect') throw new Error('expected a redirect to the client');
    const tokens = await client.authorizationCodeGrant(config, new URL(result.location), { pkceCodeVerifier: verifier, expectedState: state });
    return { tokens, userinfo: await client.fetchUserInfo(config, tokens.access_token, tokens.claims()?.sub ?? '') };
  }

  it('by value at authorize, then signed userinfo verified by openid-client', async () => {
    const config = await discover();
    expect(config.serverMetadata()).toMatchObject({ request_parameter_supported: true, userinfo_signing_alg_values_supported: ['RS256'] });
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = await client.buildAuthorizationUrlWithJAR(
      config,
      { redirect_uri: REDIRECT, scope: 'openid email', code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state },
      { key, kid: 'jar-k1' },
    );
    expect(url.searchParams.has('request')).toBe(true);
    const { tokens, userinfo } = await finish(config, url, verifier, state);
    expect(tokens.claims()?.sub).toBe('alice');
    expect(userinfo).toMatchObject({ sub: 'alice', email: 'alice@example.com', iss: op.issuer, aud: 'jar-rp' });
  });

  it('pushed (the FAPI 2.0 Message Signing way), and refused when not signed', async () => {
    const config = await discover();
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const { searchParams } = await client.buildAuthorizationUrlWithJAR(
      config,
      { redirect_uri: REDIRECT, scope: 'openid email', code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state },
      { key, kid: 'jar-k1' },
    );
    const url = await client.buildAuthorizationUrlWithPAR(config, searchParams);
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    expect((await finish(config, url, verifier, state)).tokens.claims()?.sub).toBe('alice');
    // A plain push from a client that requires signed request objects is refused by the server, as openid-client reports.
    await expect(client.buildAuthorizationUrlWithPAR(config, { redirect_uri: REDIRECT, scope: 'openid', state, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })).rejects.toMatchObject({
      error: 'invalid_request',
    });
  });
});

describe('@oidc-rp/node sends request objects to oidc-provider and reads its signed userinfo', () => {
  let op: RunningOidcProvider;
  beforeAll(async () => {
    op = await startOidcProvider(
      [
        {
          client_id: 'node-jar',
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [publicJwk] },
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code'],
          request_object_signing_alg: 'ES256',
          userinfo_signed_response_alg: 'RS256',
        },
      ],
      { requestObjects: { requireSigned: true }, jwtUserinfo: true, par: { required: false } },
    );
  });
  afterAll(() => op?.close());

  const nodeClient = (par: boolean) =>
    createNodeClient({
      issuer: op.issuer,
      clientId: 'node-jar',
      clientAuth: privateKeyJwt(privateJwk),
      redirectUri: REDIRECT,
      scope: 'openid email',
      par,
      requestObject: { signer: requestObjectSigner({ key: privateJwk }) },
      userinfoSigningAlgorithm: 'RS256',
    });

  for (const par of [false, true]) {
    it(`${par ? 'pushed' : 'by value'}: oidc-provider accepts the request object; the signed userinfo verifies`, async () => {
      const rp = nodeClient(par);
      const { url, transaction } = await rp.startLogin();
      expect(url.searchParams.has(par ? 'request_uri' : 'request')).toBe(true);
      const callback = await op.signIn(url);
      if (callback.type !== 'redirect') throw new Error('expected a redirect to the client');
      const tokens = await rp.finishLogin(callback.location, transaction);
      expect(tokens.claims?.sub).toBe('alice');
      expect(await rp.getUserInfo(tokens.accessToken, { expectedSubject: 'alice' })).toMatchObject({ sub: 'alice', email: 'alice@example.com' });
    });
  }
});
