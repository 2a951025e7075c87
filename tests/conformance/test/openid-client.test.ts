// openid-client v6, a standard OAuth 2.0 / OIDC client library, against a reference-server
// tenant with `profile: "standard"`, over real HTTP. Its defaults are kept (client_secret_post
// with the secret, PKCE with S256, state and nonce checks, RFC 9207 iss check); the one
// setting changed is allowInsecureRequests, because the test server speaks http on loopback.
import { demoConfig, type ServerConfig } from '@oidc-rp/reference-server';
import { completeLogin, createTestServer, type TestServer } from '@oidc-rp/reference-server/testing';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REDIRECT = 'http://127.0.0.1:3000/callback';

function standardConfig(profile: 'standard' | 'contract' = 'standard'): ServerConfig {
  const config = demoConfig();
  const tenant = config.tenants[0];
  if (!tenant) throw new Error('demo config without a tenant');
  tenant.profile = profile;
  tenant.clients = [
    ...(tenant.clients ?? []).filter((c) => c.client_id !== 'service'),
    { client_id: 'service', client_secret: 'service-secret', grant_types: ['client_credentials'], scopes: ['api.read'] },
  ];
  return config;
}

let op: TestServer;
beforeAll(async () => {
  op = await createTestServer({ config: standardConfig(), listen: true });
});
afterAll(() => op.close());

const discover = (clientId: string, secret: string, issuer = op.issuer) =>
  client.discovery(new URL(issuer), clientId, secret, undefined, { execute: [client.allowInsecureRequests] });

/** The code flow as an app using openid-client runs it; the login page is filled in by completeLogin. */
async function codeFlow(config: client.Configuration) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid email offline_access',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  const result = await completeLogin(url);
  if (result.type !== 'redirect') throw new Error('expected a redirect to the client');
  return client.authorizationCodeGrant(config, new URL(result.location), { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
}

describe('openid-client v6 (default configuration) against the standard profile', () => {
  it('code + PKCE + client secret: tokens, validated ID token claims, expires_in, userinfo', async () => {
    const config = await discover('web', 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4');
    const tokens = await codeFlow(config);
    expect(tokens.claims()).toMatchObject({ iss: op.issuer, sub: 'alice', aud: 'web', email: 'alice@example.com' });
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const info = await client.fetchUserInfo(config, tokens.access_token, 'alice');
    expect(info).toMatchObject({ sub: 'alice', email: 'alice@example.com' });
  });

  it('refresh at the discovery token_endpoint: a new access token and a rotated refresh token', async () => {
    const config = await discover('web', 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4');
    const first = await codeFlow(config);
    const refreshed = await client.refreshTokenGrant(config, first.refresh_token ?? '');
    expect(refreshed.access_token).not.toBe(first.access_token);
    expect(refreshed.refresh_token).not.toBe(first.refresh_token);
    expect(refreshed.expires_in).toBe(3600);
    // The old refresh token was rotated away: reusing it fails and revokes the family.
    await expect(client.refreshTokenGrant(config, first.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('client credentials at the discovery token_endpoint', async () => {
    const config = await discover('service', 'service-secret');
    const tokens = await client.clientCredentialsGrant(config, { scope: 'api.read' });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.access_token).toEqual(expect.any(String));
  });

  it('a wrong client secret is refused even with a valid PKCE verifier (both are checked)', async () => {
    const config = await discover('web', 'not-the-secret');
    await expect(codeFlow(config)).rejects.toMatchObject({ error: 'invalid_client' });
    const service = await discover('service', 'not-the-secret');
    await expect(client.clientCredentialsGrant(service)).rejects.toMatchObject({ error: 'invalid_client' });
  });

  it('discovery publishes standard fields only', async () => {
    const doc = (await (await fetch(`${op.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc.token_endpoint).toBe(`${op.issuer}/oidc/token`);
    expect(doc).not.toHaveProperty('token_endpoint_by_grant');
    expect(doc).not.toHaveProperty('pkce_replaces_client_secret');
  });
});

describe('the contract profile (the default) stays as the service contract says', () => {
  it('the same openid-client code exchange is refused: secret and verifier together are invalid_request', async () => {
    await using contract = await createTestServer({ config: standardConfig('contract'), listen: true });
    const config = await discover('web', 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4', contract.issuer);
    await expect(codeFlow(config)).rejects.toMatchObject({ error: 'invalid_request' });
    const service = await discover('service', 'service-secret', contract.issuer);
    await expect(client.clientCredentialsGrant(service)).rejects.toMatchObject({ error: 'unsupported_grant_type' });
  });
});
