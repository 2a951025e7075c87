// loginAs for clients that must use DPoP (RFC 9449), over real HTTP: the tokens come back bound
// to the key pair loginAs returns (dpop_jkt at authorize or PAR, a proof with the code exchange,
// one retry with the server nonce), and that key's proofs are what the server's userinfo takes.
import { calculateJwkThumbprint, decodeJwt, exportJWK } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ClientConfig, demoConfig, type ServerConfig } from '../src/index';
import { createTestServer, dpopProof, type LoginAsResult, type TestServer } from '../src/testing';
import { demoTenant, WEB_REDIRECT } from './helpers';

const bound: ClientConfig = { client_id: 'bound', redirect_uris: [WEB_REDIRECT], scopes: ['openid', 'email'], require_dpop: true, access_token_format: 'jwt' };

function config(change: (tenant: ReturnType<typeof demoTenant>) => void): ServerConfig {
  const c = demoConfig();
  change(demoTenant(c));
  return c;
}

async function thumbprint(keyPair: CryptoKeyPair): Promise<string> {
  return calculateJwkThumbprint(await exportJWK(keyPair.publicKey), 'sha256');
}

/** Userinfo with the access token sent as `scheme`, with a proof by `keyPair` when given. */
async function userinfo(op: TestServer, result: LoginAsResult, scheme: 'DPoP' | 'Bearer', keyPair?: CryptoKeyPair): Promise<Response> {
  const url = `${op.issuer}/oidc/userinfo`;
  const token = result.tokens.access_token;
  const headers: Record<string, string> = { authorization: `${scheme} ${token}` };
  if (keyPair) headers.dpop = await dpopProof(keyPair, { method: 'GET', url, accessToken: token, ...(result.dpop?.nonce ? { nonce: result.dpop.nonce } : {}) });
  return fetch(url, { headers });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('loginAs with DPoP', () => {
  it('a require_dpop client on a tenant with server nonces gets tokens bound to the returned key; the proof was retried once with the nonce', async () => {
    await using op = await createTestServer({ listen: true, config: config((t) => { t.dpop_nonce = true; t.clients?.push(bound); }) });
    const result = await op.loginAs('alice', { client: 'bound' });
    expect(result.tokens.token_type).toBe('DPoP');
    const dpop = result.dpop;
    if (!dpop) throw new Error('loginAs returned no DPoP key');
    const jkt = await thumbprint(dpop.keyPair);
    expect(dpop.jkt).toBe(jkt);
    expect(decodeJwt(result.tokens.access_token).cnf).toEqual({ jkt });
    expect(dpop.nonce).toMatch(/^[A-Za-z0-9_-]{20,}$/);

    const [authorize] = op.server.requests({ path: '/oidc/authorize' });
    // Sent at authorize (the journal redacts its value; cnf.jkt above shows which key it named).
    expect(authorize?.params).toHaveProperty('dpop_jkt');
    // The first exchange had no nonce (400 use_dpop_nonce), the retry with it succeeded.
    expect(op.server.requests({ path: '/oidc/token' }).map((r) => r.status)).toEqual([400, 200]);

    const ok = await userinfo(op, result, 'DPoP', dpop.keyPair);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { sub: string }).sub).toBe('alice');
    // Bound tokens are useless without the key: as Bearer, or with another key's proof.
    expect((await userinfo(op, result, 'Bearer')).status).toBe(401);
    const other = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
    expect((await userinfo(op, result, 'DPoP', other)).status).toBe(401);
  });

  it('a tenant that requires DPoP and PAR: dpop_jkt is pushed, the web client (secret in Basic) gets bound tokens', async () => {
    await using op = await createTestServer({ listen: true, config: config((t) => { t.require_dpop = true; t.require_pushed_authorization_requests = true; }) });
    const result = await op.loginAs('alice', { client: 'web' });
    expect(result.tokens.token_type).toBe('DPoP');
    const jkt = await thumbprint(result.dpop?.keyPair as CryptoKeyPair);
    expect(result.dpop?.jkt).toBe(jkt);
    const [push] = op.server.requests({ path: '/oauth/par' });
    expect(push).toMatchObject({ status: 201, authorization: 'basic', params: { dpop_jkt: expect.any(String) } });
    expect(Object.keys(op.server.requests({ path: '/oidc/authorize' })[0]?.params ?? {}).sort()).toEqual(['client_id', 'request_uri']);
    expect(op.server.requests({ path: '/oidc/token' }).map((r) => r.status)).toEqual([200]);
    expect((await userinfo(op, result, 'DPoP', result.dpop?.keyPair)).status).toBe(200);
  });

  it('dpop: true binds the tokens of a client that does not require DPoP; a given key pair is the one used; no option leaves a Bearer login', async () => {
    await using op = await createTestServer({ listen: true });
    const made = await op.loginAs('alice', { client: 'spa', dpop: true });
    expect(made.tokens.token_type).toBe('DPoP');
    expect(made.dpop?.nonce).toBeUndefined();
    expect((await userinfo(op, made, 'DPoP', made.dpop?.keyPair)).status).toBe(200);

    const mine = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-384' }, false, ['sign', 'verify']);
    const given = await op.loginAs('alice', { client: 'spa', dpop: mine });
    expect(given.dpop?.keyPair).toBe(mine);
    expect(given.dpop?.jkt).toBe(await thumbprint(mine));
    expect((await userinfo(op, given, 'DPoP', mine)).status).toBe(200);
    expect((await userinfo(op, given, 'DPoP', made.dpop?.keyPair)).status).toBe(401);

    const plain = await op.loginAs('alice', { client: 'spa' });
    expect(plain.tokens.token_type).toBe('Bearer');
    expect(plain.dpop).toBeUndefined();
    expect(op.server.requests({ path: '/oidc/authorize' }).map((r) => 'dpop_jkt' in r.params)).toEqual([true, true, false]);
    expect((await userinfo(op, plain, 'Bearer')).status).toBe(200);
  });

  it('a nonce demanded by the client fault dpop_nonce_required is answered with one retry', async () => {
    await using op = await createTestServer({ listen: true, config: config((t) => t.clients?.push({ ...bound, fault: 'dpop_nonce_required' })) });
    const result = await op.loginAs('alice', { client: 'bound' });
    expect(result.tokens.token_type).toBe('DPoP');
    expect(op.server.requests({ path: '/oidc/token' }).map((r) => r.status)).toEqual([400, 200]);
  });

  it('retries only once: a server that refuses the nonce again ends the login with the refusal', async () => {
    await using op = await createTestServer({ listen: true, config: config((t) => { t.dpop_nonce = true; t.clients?.push(bound); }) });
    const realFetch = globalThis.fetch;
    // Every nonce the server hands out is expired before the client can use it.
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const response = await realFetch(input, init);
      if (response.headers.has('dpop-nonce')) await op.server.control.dpop.expireNonce();
      return response;
    });
    await expect(op.loginAs('alice', { client: 'bound' })).rejects.toThrow(/code exchange failed with 400 use_dpop_nonce/);
    expect(op.server.requests({ path: '/oidc/token' }).map((r) => r.status)).toEqual([400, 400]);
  });

  it('dpop: false on a client that requires DPoP shows the server refusing the exchange; a bad dpop value is refused before anything is sent', async () => {
    await using op = await createTestServer({ listen: true, config: config((t) => t.clients?.push(bound)) });
    await expect(op.loginAs('alice', { client: 'bound', dpop: false })).rejects.toThrow(/code exchange failed with 400 invalid_dpop_proof/);
    const before = op.server.requests().length;
    const hmac = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    await expect(op.loginAs('alice', { client: 'bound', dpop: { privateKey: hmac, publicKey: hmac } })).rejects.toThrow(/dpop must be true or a CryptoKeyPair/);
    expect(op.server.requests()).toHaveLength(before);
  });
});
