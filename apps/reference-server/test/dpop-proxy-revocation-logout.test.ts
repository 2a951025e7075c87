// The attacks of the DPoP issue that dpop-proofs and dpop-binding leave out, over real HTTP:
// htu behind a trusted proxy whose headers a client tries to forge; iat and jkt at userinfo;
// revocation and RP-initiated logout of a DPoP sign-in (keycloak#50306: logout failing once the
// tokens were DPoP-bound). Each attack next to the honest request that passes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeLogin, CookieJar } from '../src/testing';
import { pkce, SPA_REDIRECT } from './helpers';
import { dpopKey, type DpopKey, makeProof } from './support/dpop';
import { type DpopServer, json, spaExchange, startDpopServer, webExchange } from './support/dpop-server';

const CC = { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret' };
let key: DpopKey;
beforeAll(async () => {
  key = await dpopKey();
});

async function expectRefused(res: Response, description: RegExp): Promise<void> {
  expect(res.status).toBe(400);
  const body = await json(res);
  expect(body).toMatchObject({ error: 'invalid_dpop_proof' });
  expect(String(body.error_description)).toMatch(description);
  expect(body.access_token).toBeUndefined();
}

describe('htu behind trust_proxy (--trust-proxy): the proxy decides the origin, not the client', () => {
  let proxied: DpopServer;
  beforeAll(async () => {
    proxied = await startDpopServer((config) => {
      config.trust_proxy = true;
      config.trusted_hosts = ['login.internal'];
      const demo = config.tenants[0];
      if (demo) demo.demo_login = false;
    });
  });
  afterAll(async () => {
    await proxied?.close();
  });

  // What reaches the server when a client sends its own X-Forwarded-* and the proxy appends the
  // real ones: the right-most value is the proxy's.
  const throughProxy = { 'x-forwarded-host': 'evil.example, login.internal', 'x-forwarded-proto': 'http, https' };
  const proofFor = (htu: string) => makeProof(key, { htu, now: proxied.now() });

  it('refuses a proof for the forged X-Forwarded-Host or the forged X-Forwarded-Proto; accepts the origin the proxy wrote', async () => {
    const forgedHost = await proxied.token('/oauth/token', CC, { ...throughProxy, dpop: await proofFor('https://evil.example/demo/oauth/token') });
    await expectRefused(forgedHost, /https:\/\/login\.internal\/demo\/oauth\/token/);
    const forgedProto = await proxied.token('/oauth/token', CC, { ...throughProxy, dpop: await proofFor('http://login.internal/demo/oauth/token') });
    await expectRefused(forgedProto, /htu/);

    const honest = await proxied.token('/oauth/token', CC, { ...throughProxy, dpop: await proofFor('https://login.internal/demo/oauth/token') });
    expect(honest.status).toBe(200);
    expect(await json(honest)).toMatchObject({ token_type: 'DPoP' });
  });

  it('a forwarded host the server does not answer for gets 400 and no token, whatever the proof says', async () => {
    const res = await proxied.token('/oauth/token', CC, { 'x-forwarded-host': 'evil.example', dpop: await proofFor('http://evil.example/demo/oauth/token') });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error).toBe('invalid_request');
    expect(body.access_token).toBeUndefined();
  });

  it('with a public_origin as well, forwarded headers never change htu', async () => {
    const fronted = await startDpopServer((config) => {
      config.trust_proxy = true;
      config.public_origin = 'https://login.example.test';
      const demo = config.tenants[0];
      if (demo) demo.demo_login = false;
    });
    try {
      const forged = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' };
      const refused = await fronted.token('/oauth/token', CC, { ...forged, dpop: await makeProof(key, { htu: 'http://evil.example/demo/oauth/token', now: fronted.now() }) });
      await expectRefused(refused, /https:\/\/login\.example\.test\/demo\/oauth\/token/);
      const honest = await fronted.token('/oauth/token', CC, { ...forged, dpop: await makeProof(key, { htu: 'https://login.example.test/demo/oauth/token', now: fronted.now() }) });
      expect(honest.status).toBe(200);
    } finally {
      await fronted.close();
    }
  });
});

describe('bound tokens at userinfo, revocation and logout', () => {
  let s: DpopServer;
  let other: DpopKey;
  beforeAll(async () => {
    s = await startDpopServer();
    other = await dpopKey();
  });
  afterAll(async () => {
    await s?.close();
  });

  async function boundWebTokens(): Promise<Record<string, string>> {
    const res = await s.token('/oidc/token', webExchange(await s.webCode()), { dpop: await s.proof(key, '/oidc/token') });
    expect(res.status).toBe(200);
    return (await json(res)) as Record<string, string>;
  }

  /** Userinfo with the DPoP scheme and a proof by `signer` issued at `iat` (default: now). */
  async function userinfo(token: string, signer: DpopKey = key, iat?: number): Promise<Response> {
    const proof = await makeProof(signer, { htm: 'GET', htu: `${s.issuer}/oidc/userinfo`, now: s.now(), accessToken: token, ...(iat !== undefined ? { iat } : {}) });
    return s.userinfo({ authorization: `DPoP ${token}`, dpop: proof });
  }

  async function expectChallenge(res: Response, error: string): Promise<void> {
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate') ?? '').toMatch(new RegExp(`^DPoP realm="demo", error="${error}"`));
  }

  it('refuses a proof with a stale or a future iat at userinfo; one inside the window passes', async () => {
    const token = (await boundWebTokens()).access_token ?? '';
    await expectChallenge(await userinfo(token, key, s.now() - 61), 'invalid_dpop_proof');
    await expectChallenge(await userinfo(token, key, s.now() + 61), 'invalid_dpop_proof');
    expect((await userinfo(token, key, s.now() - 59)).status).toBe(200);
  });

  it("a client-credentials token bound to one key is refused at userinfo with another key's proof", async () => {
    // The holder of another key (a thief of the token) cannot use it, whatever the token's scope.
    const res = await s.token('/oauth/token', CC, { dpop: await s.proof(key, '/oauth/token') });
    const token = ((await json(res)) as Record<string, string>).access_token ?? '';
    await expectChallenge(await userinfo(token, other), 'invalid_dpop_proof');
  });

  it('a confidential client revokes its bound access token (a DPoP header sent along does no harm); the token is dead even with a proof by its key', async () => {
    const token = (await boundWebTokens()).access_token ?? '';
    expect((await userinfo(token)).status).toBe(200);
    const revoked = await s.token('/oauth/revoke', { token, token_type_hint: 'access_token', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' }, { dpop: await s.proof(key, '/oauth/revoke') });
    expect(revoked.status).toBe(200);
    await expectChallenge(await userinfo(token), 'invalid_token');
  });

  it("revoking a public client's bound refresh token ends its grant: the bound access token is dead at userinfo", async () => {
    const { code, verifier } = await s.spaCode();
    const res = await s.token('/oidc/token', spaExchange(code, verifier), { dpop: await s.proof(key, '/oidc/token') });
    const tokens = (await json(res)) as Record<string, string>;
    expect((await userinfo(tokens.access_token ?? '')).status).toBe(200);
    const revoked = await s.token('/oauth/revoke', { token: tokens.refresh_token ?? '', token_type_hint: 'refresh_token', client_id: 'spa' });
    expect(revoked.status).toBe(200);
    await expectChallenge(await userinfo(tokens.access_token ?? ''), 'invalid_token');
  });

  it('the logout of a DPoP sign-in (keycloak#50306): revoke the bound refresh token with a proof sent along, then RP-initiated logout ends the session', async () => {
    const cookies = new CookieJar();
    const local = `${s.listening.origin}/demo`;
    const authorize = (extra: Record<string, string>) => {
      const url = new URL(`${local}/oidc/authorize`);
      const { challenge } = pkce();
      url.search = new URLSearchParams({
        response_type: 'code', client_id: 'spa', redirect_uri: SPA_REDIRECT, scope: 'openid profile offline_access', state: 's',
        code_challenge: challenge, code_challenge_method: 'S256', dpop_jkt: key.jkt, ...extra,
      }).toString();
      return url;
    };
    const { verifier, challenge } = pkce();
    const signIn = await completeLogin(authorize({ code_challenge: challenge }), { fetch: (r) => fetch(r), cookies });
    if (signIn.type !== 'redirect') throw new Error(`expected a redirect, got ${signIn.type}`);
    const code = new URL(signIn.location).searchParams.get('code') ?? '';
    const exchanged = await s.token('/oidc/token', spaExchange(code, verifier), { dpop: await s.proof(key, '/oidc/token') });
    const tokens = (await json(exchanged)) as Record<string, string>;
    expect(tokens.token_type).toBe('DPoP');

    // What a DPoP client sends at logout: the refresh token revoked (the proof is not needed, and not in the way)...
    const revoked = await s.token('/oauth/revoke', { token: tokens.refresh_token ?? '', client_id: 'spa' }, { dpop: await s.proof(key, '/oauth/revoke') });
    expect(revoked.status).toBe(200);
    const refresh = await s.token('/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '', client_id: 'spa' }, { dpop: await s.proof(key, '/oauth/token') });
    expect((await json(refresh)).error).toBe('invalid_grant');

    // ...then the browser to the end-session endpoint with the ID token of the DPoP sign-in.
    const logout = new URL(`${local}/oidc/logout`);
    logout.search = new URLSearchParams({ id_token_hint: tokens.id_token ?? '', post_logout_redirect_uri: 'http://127.0.0.1:5173/', state: 'bye' }).toString();
    const ended = await fetch(logout, { redirect: 'manual', headers: { cookie: cookies.header(logout) ?? '' } });
    cookies.store(logout, ended);
    expect(ended.status).toBe(302);
    expect(ended.headers.get('location')).toBe('http://127.0.0.1:5173/?state=bye');

    // The session is gone: a silent sign-in gets login_required.
    const silent = authorize({ prompt: 'none' });
    const answer = await fetch(silent, { redirect: 'manual', headers: { cookie: cookies.header(silent) ?? '' } });
    expect(new URL(answer.headers.get('location') ?? '').searchParams.get('error')).toBe('login_required');
  });
});
