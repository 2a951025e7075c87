// openid-client v6's DPoP (RFC 9449) against the reference server's standard profile, over real
// HTTP, with server nonces on: proofs, the nonce retry, bound tokens at userinfo, and a public
// client's refresh token bound to its key. Only allowInsecureRequests is changed (http loopback).
import { demoConfig, type ServerConfig } from '@oidc-rp/reference-server';
import { completeLogin, createTestServer, type TestServer } from '@oidc-rp/reference-server/testing';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

function dpopConfig(): ServerConfig {
  const config = demoConfig();
  const tenant = config.tenants[0];
  if (!tenant) throw new Error('demo config without a tenant');
  tenant.profile = 'standard';
  tenant.dpop_nonce = true;
  return config;
}

let op: TestServer;
beforeAll(async () => {
  op = await createTestServer({ config: dpopConfig(), listen: true });
});
afterAll(() => op.close());

const discoverWeb = () => client.discovery(new URL(op.issuer), 'web', 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4', undefined, { execute: [client.allowInsecureRequests] });
const discoverSpa = () => client.discovery(new URL(op.issuer), 'spa', undefined, client.None(), { execute: [client.allowInsecureRequests] });

async function codeFlow(config: client.Configuration, redirect: string, DPoP: client.DPoPHandle) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirect,
    scope: 'openid email offline_access',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  });
  const result = await completeLogin(url);
  if (result.type !== 'redirect') throw new Error('expected a redirect to the client');
  return client.authorizationCodeGrant(config, new URL(result.location), { pkceCodeVerifier: verifier, expectedState: state }, undefined, { DPoP });
}

describe('openid-client v6 DPoP against the reference server (standard profile, server nonces)', () => {
  it('code exchange with a proof (after one nonce retry): a DPoP token that userinfo takes only with a proof', async () => {
    const config = await discoverWeb();
    const DPoP = client.getDPoPHandle(config, await client.randomDPoPKeyPair('ES256'));
    await op.server.control.requests.clear();
    const tokens = await codeFlow(config, 'http://127.0.0.1:3000/callback', DPoP);
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    // The first proof had no nonce: one use_dpop_nonce answer, then the retry with it.
    const exchanges = await op.server.control.requests.list({ path: '/oidc/token' });
    expect(exchanges.map((e) => e.status)).toEqual([400, 200]);
    const info = await client.fetchUserInfo(config, tokens.access_token, 'alice', { DPoP });
    expect(info).toMatchObject({ sub: 'alice', email: 'alice@example.com' });
    // The same token as Bearer is refused.
    await expect(client.fetchUserInfo(config, tokens.access_token, 'alice')).rejects.toThrow();
  });

  it("a public client's refresh token is bound: its key refreshes, another key is refused", async () => {
    const config = await discoverSpa();
    const DPoP = client.getDPoPHandle(config, await client.randomDPoPKeyPair('ES256'));
    const first = await codeFlow(config, 'http://127.0.0.1:5173/callback', DPoP);
    const thief = client.getDPoPHandle(config, await client.randomDPoPKeyPair('ES256'));
    await expect(client.refreshTokenGrant(config, first.refresh_token ?? '', undefined, { DPoP: thief })).rejects.toMatchObject({ error: 'invalid_dpop_proof' });
    const refreshed = await client.refreshTokenGrant(config, first.refresh_token ?? '', undefined, { DPoP });
    expect(refreshed.token_type.toLowerCase()).toBe('dpop');
    expect(refreshed.refresh_token).not.toBe(first.refresh_token);
  });
});
