import { beforeEach, describe, expect, it } from 'vitest';
import {
  basic, demoClient, demoTenant, exchangeWebCode, leftHalfHash, login, pkce, setup, spaParams, SPA_REDIRECT, verifyJwt, webCode, WEB_REDIRECT, type Harness,
} from './helpers';

let h: Harness;
beforeEach(async () => {
  h = await setup();
});

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

async function expectError(res: Response, status: number, error: string): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const body = await json(res);
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe('string');
  return body;
}

async function spaCode(extra: Record<string, string> = {}): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkce();
  const { params } = await login(h, spaParams(challenge, extra));
  return { code: params.get('code') ?? '', verifier };
}

describe('POST /oidc/token: successful exchanges', () => {
  it('confidential client with client_secret_post: exactly access_token, token_type "Bearer", id_token, refresh_token', async () => {
    const code = await webCode(h, { nonce: 'nonce-42' });
    const res = await exchangeWebCode(h, code);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    const body = await json(res);
    expect(Object.keys(body).sort()).toEqual(['access_token', 'id_token', 'refresh_token', 'token_type']);
    expect(body.token_type).toBe('Bearer');
    const claims = await verifyJwt(h, body.id_token as string, { audience: 'web' });
    expect(claims).toMatchObject({ sub: 'alice', nonce: 'nonce-42', at_hash: leftHalfHash(body.access_token as string) });
    expect(claims.c_hash).toBeUndefined();
  });

  it('no id_token without openid, no refresh_token without offline_access', async () => {
    const body = await json(await exchangeWebCode(h, await webCode(h, { scope: 'api.read' })));
    expect(Object.keys(body).sort()).toEqual(['access_token', 'token_type']);
    const withOpenid = await json(await exchangeWebCode(h, await webCode(h, { scope: 'openid' })));
    expect(Object.keys(withOpenid).sort()).toEqual(['access_token', 'id_token', 'token_type']);
  });

  it('client_secret_basic is accepted too', async () => {
    const code = await webCode(h);
    const res = await h.post('/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT }, { authorization: basic('web', 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4') });
    expect(res.status).toBe(200);
  });

  it('public client with PKCE: client_id and code_verifier only', async () => {
    const { code, verifier } = await spaCode();
    const res = await h.post('/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: SPA_REDIRECT, client_id: 'spa', code_verifier: verifier });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.token_type).toBe('Bearer');
    expect(body.refresh_token).toBeTruthy();
  });

  it('confidential client with PKCE but no authentication → 401 invalid_client (a stolen code is not enough)', async () => {
    const { verifier, challenge } = pkce();
    const code = await webCode(h, { code_challenge: challenge, code_challenge_method: 'S256' });
    const res = await h.post('/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT, client_id: 'web', code_verifier: verifier });
    await expectError(res, 401, 'invalid_client');
  });

  it('confidential client with PKCE may also authenticate with HTTP Basic (RFC 9700 style)', async () => {
    const { verifier, challenge } = pkce();
    const code = await webCode(h, { code_challenge: challenge, code_challenge_method: 'S256' });
    const res = await h.post('/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT, code_verifier: verifier }, { authorization: basic('web', 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4') });
    expect(res.status).toBe(200);
  });

  it('a hybrid code redeems for tokens whose ID token has the same sub', async () => {
    const { params } = await login(h, { response_type: 'code id_token', client_id: 'web', redirect_uri: WEB_REDIRECT, scope: 'openid', state: 's', nonce: 'n' });
    const front = await verifyJwt(h, params.get('id_token') ?? '');
    const body = await json(await exchangeWebCode(h, params.get('code') ?? ''));
    const back = await verifyJwt(h, body.id_token as string);
    expect(back.sub).toBe(front.sub);
    expect(back.nonce).toBe('n');
  });
});

describe('POST /oidc/token: client authentication', () => {
  it('wrong secret → 401 invalid_client (no challenge for client_secret_post)', async () => {
    const res = await exchangeWebCode(h, await webCode(h), { client_secret: 'wrong' });
    await expectError(res, 401, 'invalid_client');
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it('wrong Basic credentials → 401 with WWW-Authenticate: Basic', async () => {
    const res = await h.post('/oidc/token', { grant_type: 'authorization_code', code: 'x', redirect_uri: WEB_REDIRECT }, { authorization: basic('web', 'nope') });
    await expectError(res, 401, 'invalid_client');
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="demo"');
  });

  it('malformed Authorization header → 401 invalid_client', async () => {
    const res = await h.post('/oidc/token', { grant_type: 'authorization_code', code: 'x', redirect_uri: WEB_REDIRECT }, { authorization: 'Basic !!!' });
    await expectError(res, 401, 'invalid_client');
  });

  it('unknown client, or no client_id at all → 401 invalid_client', async () => {
    await expectError(await h.post('/oidc/token', { grant_type: 'authorization_code', code: 'x', redirect_uri: WEB_REDIRECT, client_id: 'ghost', client_secret: 's' }), 401, 'invalid_client');
    await expectError(await h.post('/oidc/token', { grant_type: 'authorization_code', code: 'x', redirect_uri: WEB_REDIRECT }), 401, 'invalid_client');
  });

  it('confidential client with neither secret nor verifier → 401 invalid_client', async () => {
    const res = await h.post('/oidc/token', { grant_type: 'authorization_code', code: await webCode(h), redirect_uri: WEB_REDIRECT, client_id: 'web' });
    await expectError(res, 401, 'invalid_client');
  });

  it('a public client sending a secret → 401 invalid_client', async () => {
    const { code } = await spaCode();
    const res = await h.post('/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: SPA_REDIRECT, client_id: 'spa', client_secret: 'guess' });
    await expectError(res, 401, 'invalid_client');
  });

  it('client_secret together with code_verifier → 400 invalid_request', async () => {
    const { verifier, challenge } = pkce();
    const code = await webCode(h, { code_challenge: challenge, code_challenge_method: 'S256' });
    const body = await expectError(await exchangeWebCode(h, code, { code_verifier: verifier }), 400, 'invalid_request');
    expect(body.error_description).toMatch(/never both/);
  });

  it('Basic credentials plus a body secret, or a different body client_id → 400 invalid_request', async () => {
    const code = await webCode(h);
    const form = { grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT };
    await expectError(await h.post('/oidc/token', { ...form, client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' }, { authorization: basic('web', 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4') }), 400, 'invalid_request');
    await expectError(await h.post('/oidc/token', { ...form, client_id: 'spa' }, { authorization: basic('web', 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4') }), 400, 'invalid_request');
  });

  it('a client not registered for authorization_code → unauthorized_client', async () => {
    const res = await h.post('/oidc/token', { grant_type: 'authorization_code', code: 'x', redirect_uri: WEB_REDIRECT, client_id: 'service', client_secret: 'service-secret' });
    await expectError(res, 400, 'unauthorized_client');
  });
});

describe('POST /oidc/token: code rules', () => {
  it('a code is single-use; the second redemption fails and revokes what the first issued', async () => {
    const code = await webCode(h);
    const first = await json(await exchangeWebCode(h, code));
    const userinfoBefore = await h.get('/oidc/userinfo', { authorization: `Bearer ${first.access_token as string}` });
    expect(userinfoBefore.status).toBe(200);
    const body = await expectError(await exchangeWebCode(h, code), 400, 'invalid_grant');
    expect(body.error_description).toMatch(/already used/);
    const userinfoAfter = await h.get('/oidc/userinfo', { authorization: `Bearer ${first.access_token as string}` });
    expect(userinfoAfter.status).toBe(401);
    const refresh = await h.post('/oauth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token as string, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
    await expectError(refresh, 400, 'invalid_grant');
  });

  it('a replayed hybrid code also revokes the front-channel access token', async () => {
    const { params } = await login(h, { response_type: 'code token id_token', client_id: 'web', redirect_uri: WEB_REDIRECT, scope: 'openid', state: 's', nonce: 'n' });
    const code = params.get('code') ?? '';
    const front = params.get('access_token') ?? '';
    expect((await exchangeWebCode(h, code)).status).toBe(200);
    expect((await h.get('/oidc/userinfo', { authorization: `Bearer ${front}` })).status).toBe(200);
    await exchangeWebCode(h, code);
    expect((await h.get('/oidc/userinfo', { authorization: `Bearer ${front}` })).status).toBe(401);
  });

  it('an unknown code → invalid_grant', async () => {
    await expectError(await exchangeWebCode(h, 'not-a-code'), 400, 'invalid_grant');
  });

  it('a code expires after 60 s', async () => {
    const fresh = await webCode(h);
    h.clock.advance(59);
    expect((await exchangeWebCode(h, fresh)).status).toBe(200);
    const stale = await webCode(h);
    h.clock.advance(60);
    const body = await expectError(await exchangeWebCode(h, stale), 400, 'invalid_grant');
    expect(body.error_description).toMatch(/expired/);
  });

  it('the code lifetime comes from the config', async () => {
    h = await setup((config) => {
      demoTenant(config).lifetimes = { authorization_code: 5 };
    });
    const code = await webCode(h);
    h.clock.advance(5);
    await expectError(await exchangeWebCode(h, code), 400, 'invalid_grant');
  });

  it('a code is bound to its client', async () => {
    const { code, verifier } = await spaCode();
    const res = await h.post('/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: SPA_REDIRECT, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4', code_verifier: verifier });
    expect(res.status).toBe(400);
    const stolen = await exchangeWebCode(h, code, { redirect_uri: SPA_REDIRECT });
    const body = await expectError(stolen, 400, 'invalid_grant');
    expect(body.error_description).toMatch(/another client/);
  });

  it('a code is bound to its redirect_uri (another registered one fails)', async () => {
    const code = await webCode(h);
    const body = await expectError(await exchangeWebCode(h, code, { redirect_uri: 'http://localhost:3000/callback' }), 400, 'invalid_grant');
    expect(body.error_description).toMatch(/redirect_uri/);
  });

  it('a code is bound to its PKCE challenge', async () => {
    const { code } = await spaCode();
    const other = pkce().verifier;
    const res = await h.post('/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: SPA_REDIRECT, client_id: 'spa', code_verifier: other });
    const body = await expectError(res, 400, 'invalid_grant');
    expect(body.error_description).toMatch(/code_verifier does not match/);
  });

  it('a PKCE code without a verifier → invalid_grant', async () => {
    const { code } = await spaCode();
    await expectError(await h.post('/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: SPA_REDIRECT, client_id: 'spa' }), 400, 'invalid_grant');
    const webPkceCode = await webCode(h, { code_challenge: pkce().challenge, code_challenge_method: 'S256' });
    await expectError(await exchangeWebCode(h, webPkceCode), 400, 'invalid_grant');
  });

  it('a malformed verifier → invalid_grant', async () => {
    const { code } = await spaCode();
    await expectError(await h.post('/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: SPA_REDIRECT, client_id: 'spa', code_verifier: 'short' }), 400, 'invalid_grant');
  });

  it('a verifier for a code issued without a challenge → invalid_grant (no PKCE downgrade)', async () => {
    const code = await webCode(h);
    const res = await h.post('/oidc/token', { grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT, code_verifier: pkce().verifier }, { authorization: basic('web', 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4') });
    await expectError(res, 400, 'invalid_grant');
  });
});

describe('POST /oidc/token: request shape', () => {
  it.each([
    ['missing grant_type', { code: 'x', redirect_uri: WEB_REDIRECT, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' }, 'invalid_request'],
    ['refresh_token grant', { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' }, 'unsupported_grant_type'],
    ['client_credentials grant', { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret' }, 'unsupported_grant_type'],
    ['password grant', { grant_type: 'password', username: 'alice', password: 'wonderland' }, 'unsupported_grant_type'],
    ['missing code', { grant_type: 'authorization_code', redirect_uri: WEB_REDIRECT, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' }, 'invalid_request'],
    ['missing redirect_uri', { grant_type: 'authorization_code', code: 'x', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' }, 'invalid_request'],
  ])('%s → 400 %s', async (_name, form, error) => {
    await expectError(await h.post('/oidc/token', form as Record<string, string>), 400, error);
  });

  it('unsupported_grant_type for refresh names the right endpoint', async () => {
    const body = await json(await h.post('/oidc/token', { grant_type: 'refresh_token', refresh_token: 'x' }));
    expect(body.error_description).toContain('/demo/oauth/token');
  });

  it('a JSON body → 400 invalid_request', async () => {
    const res = await h.fetch(new Request('http://localhost/demo/oidc/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grant_type":"authorization_code"}' }));
    await expectError(res, 400, 'invalid_request');
  });

  it('repeated parameters → 400 invalid_request', async () => {
    const code = await webCode(h);
    const res = await h.post('/oidc/token', `grant_type=authorization_code&code=${code}&code=${code}&redirect_uri=${encodeURIComponent(WEB_REDIRECT)}&client_id=web&client_secret=web-secret-of-the-demo-Zq7Xk2Lm9Vb4`);
    const body = await expectError(res, 400, 'invalid_request');
    expect(body.error_description).toMatch(/code is repeated/);
  });

  it('GET → 405 with Allow: POST', async () => {
    const res = await h.get('/oidc/token');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect((await json(res)).error).toBe('invalid_request');
  });

  it('no refresh_token for a client not registered for the refresh_token grant, even with offline_access', async () => {
    h = await setup((config) => {
      demoClient(config, 'web').grant_types = ['authorization_code'];
    });
    const body = await json(await exchangeWebCode(h, await webCode(h)));
    expect(body.refresh_token).toBeUndefined();
  });
});
