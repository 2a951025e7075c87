import { describe, expect, it } from 'vitest';
import { ConfigError, createReferenceServer, demoConfig, type ServerConfig, validateConfig } from '../src/index';
import {
  authorizeUrl, basic, completeLogin, demoTenant, type Harness, login, pkce, setup, SPA_REDIRECT, spaParams, WEB_REDIRECT, webParams,
} from './helpers';

const standard = (c: ServerConfig) => {
  demoTenant(c).profile = 'standard';
};

async function webCodeWithPkce(h: Harness): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkce();
  const { params } = await login(h, webParams({ code_challenge: challenge, code_challenge_method: 'S256' }));
  return { code: params.get('code') ?? '', verifier };
}

const exchange = (h: Harness, form: Record<string, string>, headers: Record<string, string> = {}) =>
  h.post('/oidc/token', { grant_type: 'authorization_code', redirect_uri: WEB_REDIRECT, client_id: 'web', ...form }, headers);

describe('profile "standard" (in-process)', () => {
  it('accepts client secret and PKCE verifier together and answers with expires_in', async () => {
    const h = await setup(standard);
    const { code, verifier } = await webCodeWithPkce(h);
    const res = await exchange(h, { code, code_verifier: verifier, client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ token_type: 'Bearer', expires_in: 3600, id_token: expect.any(String), refresh_token: expect.any(String) });
  });

  it('checks both: a wrong verifier is invalid_grant, a wrong secret invalid_client, a missing secret invalid_client', async () => {
    const h = await setup(standard);
    const a = await webCodeWithPkce(h);
    const wrongVerifier = await exchange(h, { code: a.code, code_verifier: pkce().verifier, client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
    expect(wrongVerifier.status).toBe(400);
    expect(await wrongVerifier.json()).toMatchObject({ error: 'invalid_grant' });
    const b = await webCodeWithPkce(h);
    const wrongSecret = await exchange(h, { code: b.code, code_verifier: b.verifier, client_secret: 'nope' });
    expect(wrongSecret.status).toBe(401);
    expect(await wrongSecret.json()).toMatchObject({ error: 'invalid_client' });
    const c = await webCodeWithPkce(h);
    const noSecret = await exchange(h, { code: c.code, code_verifier: c.verifier });
    expect(noSecret.status).toBe(401);
    expect(await noSecret.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('serves refresh and client credentials at the discovery token_endpoint (Basic auth too)', async () => {
    const h = await setup(standard);
    const { code, verifier } = await webCodeWithPkce(h);
    const tokens = (await (await exchange(h, { code, code_verifier: verifier, client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' })).json()) as { refresh_token: string };
    const refreshed = await h.post('/oidc/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, { authorization: basic('web', 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4') });
    expect(refreshed.status).toBe(200);
    expect(await refreshed.json()).toMatchObject({ expires_in: 3600, refresh_token: expect.any(String) });
    const cc = await h.post('/oidc/token', { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret' });
    expect(cc.status).toBe(200);
    expect(await cc.json()).toMatchObject({ expires_in: 3600 });
    // The contract's second endpoint keeps working.
    const legacy = await h.post('/oauth/token', { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret' });
    expect(legacy.status).toBe(200);
  });

  it('refuses other grant types, and bad input, with a 4xx in the contract shape', async () => {
    const h = await setup(standard);
    const password = await h.post('/oidc/token', { grant_type: 'password', username: 'alice', password: 'wonderland', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
    expect(password.status).toBe(400);
    expect(await password.json()).toMatchObject({ error: 'unsupported_grant_type' });
    const noGrant = await h.post('/oidc/token', { client_id: 'web' });
    expect(await noGrant.json()).toMatchObject({ error: 'invalid_request' });
    const unknownRefresh = await h.post('/oidc/token', { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
    expect(unknownRefresh.status).toBe(400);
    expect(await unknownRefresh.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a public client exchanges with the verifier alone and gets expires_in', async () => {
    const h = await setup(standard);
    const { verifier, challenge } = pkce();
    const code = (await login(h, spaParams(challenge))).params.get('code') ?? '';
    const res = await h.post('/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: SPA_REDIRECT, client_id: 'spa', code_verifier: verifier });
    expect(await res.json()).toMatchObject({ expires_in: 3600 });
  });

  it('discovery has standard fields only; the contract profile keeps its extensions', async () => {
    const h = await setup(standard);
    const doc = (await (await h.get('/.well-known/openid-configuration')).json()) as Record<string, unknown>;
    expect(doc).not.toHaveProperty('token_endpoint_by_grant');
    expect(doc).not.toHaveProperty('pkce_replaces_client_secret');
    expect(doc.grant_types_supported).toEqual(expect.arrayContaining(['refresh_token', 'client_credentials']));
    const contract = await setup();
    const contractDoc = (await (await contract.get('/.well-known/openid-configuration')).json()) as Record<string, unknown>;
    expect(contractDoc).toHaveProperty('pkce_replaces_client_secret', true);
  });

  it('the contract profile is the default and unchanged: secret with verifier refused, refresh not at /oidc/token', async () => {
    const h = await setup();
    const { code, verifier } = await webCodeWithPkce(h);
    const both = await exchange(h, { code, code_verifier: verifier, client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
    expect(await both.json()).toMatchObject({ error: 'invalid_request' });
    const refresh = await h.post('/oidc/token', { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret' });
    expect(await refresh.json()).toMatchObject({ error: 'unsupported_grant_type' });
  });

  it('refuses an unknown profile in the config, naming the field', () => {
    const config = demoConfig();
    (demoTenant(config) as unknown as Record<string, unknown>).profile = 'oauth21';
    expect(() => validateConfig(config)).toThrow(ConfigError);
    expect(() => validateConfig(config)).toThrow(/invalid config at tenants\[0\]\.profile: must be one of "contract", "standard"/);
    expect(validateConfig(demoConfig())[0]?.profile).toBe('contract');
  });
});

describe('profile "standard" over real HTTP', () => {
  it('code exchange with secret and verifier, then client credentials, at the one token endpoint', async () => {
    const config = demoConfig();
    demoTenant(config).profile = 'standard';
    const server = await createReferenceServer(config, { logger: false, developmentKeys: true });
    const { origin, close } = await server.listen({ port: 0 });
    try {
      const issuer = `${origin}/demo`;
      const { verifier, challenge } = pkce();
      const result = await completeLogin(authorizeUrl(webParams({ code_challenge: challenge, code_challenge_method: 'S256' }), issuer));
      if (result.type !== 'redirect') throw new Error('expected a redirect');
      const code = new URL(result.location).searchParams.get('code') ?? '';
      const post = (form: Record<string, string>) =>
        fetch(`${issuer}/oidc/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
      const tokens = await post({ grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4', code_verifier: verifier });
      expect(await tokens.json()).toMatchObject({ expires_in: 3600, id_token: expect.any(String) });
      const cc = await post({ grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret' });
      expect(cc.status).toBe(200);
    } finally {
      await close();
    }
  });
});
