// DPoP-bound tokens (RFC 9449 5-7, 10) over real HTTP: cnf.jkt, userinfo with the DPoP scheme,
// refresh tokens bound to the key (a confidential client's too, unless it opts out), codes bound by dpop_jkt, revocation and
// logout with bound tokens. Each attack next to the honest request that passes.
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPA_REDIRECT } from './helpers';
import { dpopKey, type DpopKey, makeProof } from './support/dpop';
import { type DpopServer, json, spaExchange, startDpopServer, webExchange } from './support/dpop-server';

const WEB_SECRET = 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4';
let s: DpopServer;
let key: DpopKey;
let other: DpopKey;

beforeAll(async () => {
  s = await startDpopServer((config) => {
    const demo = config.tenants[0];
    if (demo) demo.access_token_format = 'jwt';
    const web = demo?.clients?.find((c) => c.client_id === 'web');
    // A confidential client that opted out of bound refresh tokens (RFC 9449 5 allows it).
    demo?.clients?.push({ ...web, client_id: 'web-unbound', skip_consent: true, dpop_unbound_refresh: true } as NonNullable<typeof web>);
  });
  [key, other] = await Promise.all([dpopKey(), dpopKey('ES384')]);
});
afterAll(async () => {
  await s?.close();
});

/** Exchanges a web code with a proof by `key`; the token response. */
async function boundWebTokens(): Promise<Record<string, string>> {
  const res = await s.token('/oidc/token', webExchange(await s.webCode()), { dpop: await s.proof(key, '/oidc/token') });
  expect(res.status).toBe(200);
  return (await json(res)) as Record<string, string>;
}

async function userinfoWith(token: string, signer: DpopKey, extra: { accessToken?: string; htm?: string } = {}): Promise<Response> {
  const proof = await s.proof(signer, '/oidc/userinfo', { htm: 'GET', accessToken: token, ...extra });
  return s.userinfo({ authorization: `DPoP ${token}`, dpop: proof });
}

async function expectChallenge(res: Response, error: string): Promise<void> {
  expect(res.status).toBe(401);
  expect((await json(res)).error).toBe(error);
  const challenge = res.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(new RegExp(`^DPoP realm="demo", error="${error}"`));
  expect(challenge).toContain('algs="ES256');
}

describe('bound access tokens', () => {
  it('a JWT access token carries cnf.jkt of the proof key, and token_type is DPoP', async () => {
    const tokens = await boundWebTokens();
    expect(tokens.token_type).toBe('DPoP');
    expect(decodeJwt(tokens.access_token ?? '').cnf).toEqual({ jkt: key.jkt });
  });

  it('userinfo answers a bound token sent with the DPoP scheme and a proof by its key', async () => {
    const { access_token } = await boundWebTokens();
    const res = await userinfoWith(access_token ?? '', key);
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ sub: 'alice' });
  });

  it('refuses a bound token sent as Bearer (header or form body)', async () => {
    const { access_token } = await boundWebTokens();
    await expectChallenge(await s.userinfo({ authorization: `Bearer ${access_token}` }), 'invalid_token');
    const body = await fetch(`${s.listening.origin}/demo/oidc/userinfo`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ access_token: access_token ?? '' }).toString(),
    });
    await expectChallenge(body, 'invalid_token');
  });

  it('refuses a proof by another key than cnf.jkt', async () => {
    const { access_token } = await boundWebTokens();
    await expectChallenge(await userinfoWith(access_token ?? '', other), 'invalid_dpop_proof');
  });

  it('refuses a missing or wrong ath, a wrong htm, a missing proof, and a replayed proof', async () => {
    const { access_token } = await boundWebTokens();
    const token = access_token ?? '';
    const noAth = await makeProof(key, { htm: 'GET', htu: `${s.issuer}/oidc/userinfo`, now: s.now() });
    await expectChallenge(await s.userinfo({ authorization: `DPoP ${token}`, dpop: noAth }), 'invalid_dpop_proof');
    await expectChallenge(await userinfoWith(token, key, { accessToken: 'another-token' }), 'invalid_dpop_proof');
    await expectChallenge(await userinfoWith(token, key, { htm: 'POST' }), 'invalid_dpop_proof');
    await expectChallenge(await s.userinfo({ authorization: `DPoP ${token}` }), 'invalid_dpop_proof');
    const proof = await s.proof(key, '/oidc/userinfo', { htm: 'GET', accessToken: token });
    expect((await s.userinfo({ authorization: `DPoP ${token}`, dpop: proof })).status).toBe(200);
    await expectChallenge(await s.userinfo({ authorization: `DPoP ${token}`, dpop: proof }), 'invalid_dpop_proof');
  });

  it('refuses an unbound token sent with the DPoP scheme, and still answers it as Bearer', async () => {
    const res = await s.token('/oidc/token', webExchange(await s.webCode()));
    const { access_token, token_type } = (await json(res)) as Record<string, string>;
    expect(token_type).toBe('Bearer');
    await expectChallenge(await userinfoWith(access_token ?? '', key), 'invalid_token');
    expect((await s.userinfo({ authorization: `Bearer ${access_token}` })).status).toBe(200);
  });
});

describe('refresh tokens (RFC 9449 5)', () => {
  async function boundSpaTokens(): Promise<Record<string, string>> {
    const { code, verifier } = await s.spaCode();
    const res = await s.token('/oidc/token', spaExchange(code, verifier), { dpop: await s.proof(key, '/oidc/token') });
    expect(res.status).toBe(200);
    return (await json(res)) as Record<string, string>;
  }
  const refresh = (token: string) => ({ grant_type: 'refresh_token', refresh_token: token, client_id: 'spa' });

  it("a public client's refresh token works only with a proof by its key, and the failures leave it unspent", async () => {
    const { refresh_token } = await boundSpaTokens();
    const token = refresh_token ?? '';
    const without = await s.token('/oauth/token', refresh(token));
    expect(without.status).toBe(400);
    expect((await json(without)).error).toBe('invalid_dpop_proof');
    const stolen = await s.token('/oauth/token', refresh(token), { dpop: await s.proof(other, '/oauth/token') });
    expect(stolen.status).toBe(400);
    expect(await json(stolen)).toMatchObject({ error: 'invalid_dpop_proof', error_description: 'the refresh token is bound to another DPoP key' });

    const honest = await s.token('/oauth/token', refresh(token), { dpop: await s.proof(key, '/oauth/token') });
    expect(honest.status).toBe(200);
    const next = (await json(honest)) as Record<string, string>;
    expect(next.token_type).toBe('DPoP');
    expect(decodeJwt(next.access_token ?? '').cnf).toEqual({ jkt: key.jkt });
    // The rotated refresh token stays bound.
    const rotated = await s.token('/oauth/token', refresh(next.refresh_token ?? ''));
    expect((await json(rotated)).error).toBe('invalid_dpop_proof');
  });

  it("I6: a confidential client's refresh token from a DPoP login stays bound: no Bearer token without a proof by its key", async () => {
    const { refresh_token } = await boundWebTokens();
    const webRefresh = (token: string) => ({ grant_type: 'refresh_token', refresh_token: token, client_id: 'web', client_secret: WEB_SECRET });
    const bare = await s.token('/oauth/token', webRefresh(refresh_token ?? ''));
    expect(bare.status).toBe(400);
    const refusal = await json(bare);
    expect(refusal).toEqual({ error: 'invalid_dpop_proof', error_description: 'the refresh token is DPoP-bound; send a DPoP proof by its key' });
    const stranger = await s.token('/oauth/token', webRefresh(refresh_token ?? ''), { dpop: await s.proof(other, '/oauth/token') });
    expect((await json(stranger)).error).toBe('invalid_dpop_proof');
    // Refused attempts spent nothing: the owner refreshes with its key, and the rotated token stays bound.
    const owner = await s.token('/oauth/token', webRefresh(refresh_token ?? ''), { dpop: await s.proof(key, '/oauth/token') });
    expect(owner.status).toBe(200);
    const next = (await json(owner)) as Record<string, string>;
    expect(next.token_type).toBe('DPoP');
    expect(decodeJwt(next.access_token ?? '').cnf).toEqual({ jkt: key.jkt });
    expect((await json(await s.token('/oauth/token', webRefresh(next.refresh_token ?? '')))).error).toBe('invalid_dpop_proof');
  });

  it('with dpop_unbound_refresh a confidential client refreshes without a proof and gets a Bearer token', async () => {
    const code = await s.webCode({ client_id: 'web-unbound' });
    const exchange = { ...webExchange(code), client_id: 'web-unbound' };
    const login = await s.token('/oidc/token', exchange, { dpop: await s.proof(key, '/oidc/token') });
    const { refresh_token, token_type } = (await json(login)) as Record<string, string>;
    expect(token_type).toBe('DPoP');
    const res = await s.token('/oauth/token', { grant_type: 'refresh_token', refresh_token: refresh_token ?? '', client_id: 'web-unbound', client_secret: WEB_SECRET });
    expect(res.status).toBe(200);
    expect((await json(res)).token_type).toBe('bearer');
  });

  it('dpop_unbound_refresh on a public client is refused at config time', async () => {
    const attempt = startDpopServer((config) => {
      const spa = config.tenants[0]?.clients?.find((c) => c.client_id === 'spa');
      if (spa) spa.dpop_unbound_refresh = true;
    });
    await expect(attempt).rejects.toThrow(/invalid config at tenants\[0\]\.clients\[0\]\.dpop_unbound_refresh: is for confidential clients only/);
  });

  it('revoking a bound refresh token as the public client works, and the token is dead after', async () => {
    const { refresh_token } = await boundSpaTokens();
    const revoked = await s.token('/oauth/revoke', { token: refresh_token ?? '', client_id: 'spa' });
    expect(revoked.status).toBe(200);
    const res = await s.token('/oauth/token', refresh(refresh_token ?? ''), { dpop: await s.proof(key, '/oauth/token') });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe('invalid_grant');
  });

  it('logout with the id_token_hint of a DPoP sign-in is unaffected', async () => {
    const { id_token } = await boundSpaTokens();
    const url = new URL(`${s.listening.origin}/demo/oidc/logout`);
    url.search = new URLSearchParams({ id_token_hint: id_token ?? '', post_logout_redirect_uri: 'http://127.0.0.1:5173/', state: 'bye' }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('http://127.0.0.1:5173/?state=bye');
  });
});

describe('dpop_jkt at authorize (RFC 9449 10)', () => {
  it('binds the code: another key or no proof is refused and leaves it unspent; the bound key redeems it', async () => {
    const { code, verifier } = await s.spaCode({ dpop_jkt: key.jkt });
    const withOther = await s.token('/oidc/token', spaExchange(code, verifier), { dpop: await s.proof(other, '/oidc/token') });
    expect(withOther.status).toBe(400);
    expect((await json(withOther)).error).toBe('invalid_dpop_proof');
    const without = await s.token('/oidc/token', spaExchange(code, verifier));
    expect((await json(without)).error).toBe('invalid_dpop_proof');
    const honest = await s.token('/oidc/token', spaExchange(code, verifier), { dpop: await s.proof(key, '/oidc/token') });
    expect(honest.status).toBe(200);
    expect((await json(honest)).token_type).toBe('DPoP');
  });

  it('refuses a dpop_jkt that is no thumbprint, on the redirect', async () => {
    const url = new URL(`${s.listening.origin}/demo/oidc/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code', client_id: 'spa', redirect_uri: SPA_REDIRECT, scope: 'openid', state: 's',
      code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', dpop_jkt: 'not a thumbprint',
    }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location') ?? '');
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toContain('dpop_jkt');
  });
});
