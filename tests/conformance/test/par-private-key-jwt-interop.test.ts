// Pushed authorization requests (RFC 9126) and private_key_jwt (RFC 7523) across
// implementations, over real HTTP on 127.0.0.1: openid-client v6 (certified) against the
// reference server, and @oidc-rp/node against oidc-provider (certified) with PAR. Each side is
// the judge of the other: an assertion or a push it refuses fails these tests.
import { generateKeyPairSync } from 'node:crypto';
import { createNodeClient, privateKeyJwt } from '@oidc-rp/node';
import { demoConfig, type ServerConfig } from '@oidc-rp/reference-server';
import { completeLogin, createTestServer, type TestServer } from '@oidc-rp/reference-server/testing';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningOidcProvider, startOidcProvider } from './support/oidc-provider';

const REDIRECT = 'http://127.0.0.1:3000/callback';
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const privateJwk = { ...privateKey.export({ format: 'jwk' }), kid: 'interop-k1', alg: 'ES256' } as JsonWebKey & { kid: string };
const publicJwk = { ...publicKey.export({ format: 'jwk' }), kid: 'interop-k1', alg: 'ES256', use: 'sig' } as Record<string, unknown>;

function keyedConfig(): ServerConfig {
  const config = demoConfig();
  const tenant = config.tenants[0];
  if (!tenant) throw new Error('demo config without a tenant');
  tenant.profile = 'standard';
  tenant.clients?.push({
    client_id: 'web-key',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
    scopes: ['openid', 'email', 'offline_access', 'api.read'],
    jwks: { keys: [publicJwk] },
    token_endpoint_auth_method: 'private_key_jwt',
    require_pushed_authorization_requests: true,
  });
  return config;
}

describe('openid-client v6 with PAR and private_key_jwt against the reference server', () => {
  let op: TestServer;
  beforeAll(async () => {
    op = await createTestServer({ config: keyedConfig(), listen: true });
  });
  afterAll(() => op?.close());

  async function discover() {
    const key = await crypto.subtle.importKey('jwk', privateJwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
    return client.discovery(new URL(op.issuer), 'web-key', undefined, client.PrivateKeyJwt({ key, kid: 'interop-k1' }), {
      execute: [client.allowInsecureRequests],
    });
  }

  it('pushes the request (authenticated by its assertion), logs in with client_id and request_uri only, and exchanges the code', async () => {
    const config = await discover();
    expect(config.serverMetadata().pushed_authorization_request_endpoint).toBe(`${op.issuer}/oauth/par`);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = await client.buildAuthorizationUrlWithPAR(config, {
      redirect_uri: REDIRECT,
      scope: 'openid email offline_access',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const result = await completeLogin(url);
    if (result.type !== 'redirect') throw new Error('expected a redirect to the client');
    const tokens = await client.authorizationCodeGrant(config, new URL(result.location), { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.claims()?.sub).toBe('alice');
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token ?? '');
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect((await client.clientCredentialsGrant(config, { scope: 'api.read' })).access_token).toEqual(expect.any(String));
  });

  it('the same client without PAR is refused at authorize (the server requires it)', async () => {
    const config = await discover();
    const url = client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', state: 's', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' });
    const result = await completeLogin(url);
    if (result.type !== 'redirect') throw new Error('expected an error redirect');
    expect(new URL(result.location).searchParams.get('error')).toBe('invalid_request');
  });
});

describe('@oidc-rp/node with privateKeyJwt and PAR against oidc-provider', () => {
  let op: RunningOidcProvider;
  beforeAll(async () => {
    op = await startOidcProvider(
      [
        {
          client_id: 'node-key',
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [publicJwk] },
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
        },
      ],
      { par: { required: true } },
    );
  });
  afterAll(() => op?.close());

  const options = () => ({ issuer: op.issuer, clientId: 'node-key', clientAuth: privateKeyJwt(privateJwk), redirectUri: REDIRECT, scope: 'openid email' });

  it('pushes the login (the provider requires PAR), signs in, and redeems the code with an assertion', async () => {
    const node = createNodeClient(options());
    const { url, transaction } = await node.startLogin();
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const callback = await op.signIn(url);
    if (callback.type !== 'redirect') throw new Error('expected a redirect');
    const tokens = await node.finishLogin(callback.location, transaction);
    expect(tokens.claims).toMatchObject({ sub: 'alice', iss: op.issuer, aud: 'node-key' });
    expect((await node.getClientCredentialsToken({ scope: 'api.read' })).accessToken).toEqual(expect.any(String));
  });

  it('an assertion signed by another key is refused by the provider', async () => {
    const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    const node = createNodeClient({ ...options(), clientAuth: privateKeyJwt({ ...stranger, kid: 'interop-k1' }), retry: false });
    await expect(node.startLogin()).rejects.toMatchObject({ code: 'token_endpoint_error', error: 'invalid_client' });
  });
});
