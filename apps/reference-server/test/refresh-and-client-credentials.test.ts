import { beforeEach, describe, expect, it } from 'vitest';
import { basic, demoTenant, exchangeWebCode, login, pkce, setup, spaParams, SPA_REDIRECT, webCode, type Harness } from './helpers';

let h: Harness;
beforeEach(async () => {
  h = await setup();
});

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

async function expectError(res: Response, status: number, error: string): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect((await json(res)).error).toBe(error);
}

async function webTokens(scope = 'openid offline_access api.read'): Promise<Record<string, string>> {
  return (await json(await exchangeWebCode(h, await webCode(h, { scope })))) as Record<string, string>;
}

function refreshWeb(refreshToken: string, extra: Record<string, string> = {}): Promise<Response> {
  return h.post('/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4', ...extra });
}

function userinfoStatus(accessToken: string): Promise<number> {
  return h.get('/oidc/userinfo', { authorization: `Bearer ${accessToken}` }).then((r) => r.status);
}

describe('POST /oauth/token: refresh_token', () => {
  it('returns exactly access_token, token_type "bearer", expires_in (seconds) and a new refresh_token', async () => {
    const first = await webTokens();
    const res = await refreshWeb(first.refresh_token ?? '');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await json(res);
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'token_type']);
    expect(body.token_type).toBe('bearer');
    expect(body.expires_in).toBe(3600);
    expect(body.refresh_token).not.toBe(first.refresh_token);
    expect(body.access_token).not.toBe(first.access_token);
    expect(await userinfoStatus(body.access_token as string)).toBe(200);
  });

  it('also accepts client_secret_basic', async () => {
    const first = await webTokens();
    const res = await h.post('/oauth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token ?? '' }, { authorization: basic('web', 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4') });
    expect(res.status).toBe(200);
  });

  it('rotation: reusing a used refresh token fails and revokes the whole family', async () => {
    const first = await webTokens();
    const second = await json(await refreshWeb(first.refresh_token ?? ''));
    const third = await json(await refreshWeb(second.refresh_token as string));
    expect(await userinfoStatus(third.access_token as string)).toBe(200);
    await expectError(await refreshWeb(first.refresh_token ?? ''), 400, 'invalid_grant');
    // everything of the family is gone: the newest refresh token and the access tokens
    await expectError(await refreshWeb(third.refresh_token as string), 400, 'invalid_grant');
    expect(await userinfoStatus(third.access_token as string)).toBe(401);
    expect(await userinfoStatus(first.access_token ?? '')).toBe(401);
  });

  it('another grant of the same user is not affected by a family revocation', async () => {
    const a = await webTokens();
    const b = await webTokens();
    await refreshWeb(a.refresh_token ?? '');
    await refreshWeb(a.refresh_token ?? '');
    expect((await refreshWeb(b.refresh_token ?? '')).status).toBe(200);
  });

  it('public clients refresh with client_id alone', async () => {
    const { verifier, challenge } = pkce();
    const { params } = await login(h, spaParams(challenge));
    const tokens = await json(await h.post('/oidc/token', { grant_type: 'authorization_code', code: params.get('code') ?? '', redirect_uri: SPA_REDIRECT, client_id: 'spa', code_verifier: verifier }));
    const res = await h.post('/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string, client_id: 'spa' });
    expect(res.status).toBe(200);
    expect((await json(res)).token_type).toBe('bearer');
  });

  it('confidential clients must send their secret', async () => {
    const first = await webTokens();
    await expectError(await h.post('/oauth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token ?? '', client_id: 'web' }), 401, 'invalid_client');
    await expectError(await refreshWeb(first.refresh_token ?? '', { client_secret: 'bad' }), 401, 'invalid_client');
  });

  it('a refresh token is bound to its client', async () => {
    const first = await webTokens();
    await expectError(await h.post('/oauth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token ?? '', client_id: 'spa' }), 400, 'invalid_grant');
  });

  it('unknown refresh tokens and missing refresh_token', async () => {
    await expectError(await refreshWeb('nope'), 400, 'invalid_grant');
    await expectError(await h.post('/oauth/token', { grant_type: 'refresh_token', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' }), 400, 'invalid_request');
  });

  it('refresh tokens expire after their lifetime (30 days by default)', async () => {
    const first = await webTokens();
    h.clock.advance(2_592_000);
    await expectError(await refreshWeb(first.refresh_token ?? ''), 400, 'invalid_grant');
  });

  it('each rotation starts a new lifetime from the config', async () => {
    h = await setup((config) => {
      demoTenant(config).lifetimes = { refresh_token: 100 };
    });
    const first = await webTokens();
    h.clock.advance(90);
    const second = await json(await refreshWeb(first.refresh_token ?? ''));
    h.clock.advance(90);
    expect((await refreshWeb(second.refresh_token as string)).status).toBe(200);
  });

  it('access tokens expire after expires_in seconds', async () => {
    const first = await webTokens();
    const body = await json(await refreshWeb(first.refresh_token ?? ''));
    h.clock.advance(3599);
    expect(await userinfoStatus(body.access_token as string)).toBe(200);
    h.clock.advance(1);
    expect(await userinfoStatus(body.access_token as string)).toBe(401);
  });

  it('scope may narrow but not widen', async () => {
    const first = await webTokens('openid offline_access api.read');
    const narrow = await refreshWeb(first.refresh_token ?? '', { scope: 'api.read' });
    expect(narrow.status).toBe(200);
    const narrowed = await json(narrow);
    expect(await userinfoStatus(narrowed.access_token as string)).toBe(403);
    await expectError(await refreshWeb(narrowed.refresh_token as string, { scope: 'openid email' }), 400, 'invalid_scope');
  });

  it('authorization_code at /oauth/token → unsupported_grant_type naming /oidc/token', async () => {
    const res = await h.post('/oauth/token', { grant_type: 'authorization_code', code: 'x', redirect_uri: 'x', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error).toBe('unsupported_grant_type');
    expect(body.error_description).toContain('/demo/oidc/token');
  });

  it('a client without the refresh_token grant → unauthorized_client', async () => {
    await expectError(await h.post('/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'service', client_secret: 'service-secret' }), 400, 'unauthorized_client');
  });
});

describe('POST /oauth/token: client_credentials', () => {
  it('returns exactly access_token, token_type "bearer", expires_in', async () => {
    const res = await h.post('/oauth/token', { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret' });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    expect(body.token_type).toBe('bearer');
    expect(body.expires_in).toBe(3600);
  });

  it('accepts HTTP Basic and a scope subset', async () => {
    const res = await h.post('/oauth/token', { grant_type: 'client_credentials', scope: 'api.write' }, { authorization: basic('service', 'service-secret') });
    expect(res.status).toBe(200);
  });

  it('refuses scopes the client does not have, and user scopes', async () => {
    for (const scope of ['api.admin', 'openid', 'api.read offline_access']) {
      await expectError(await h.post('/oauth/token', { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret', scope }), 400, 'invalid_scope');
    }
  });

  it('wrong or missing secret → 401 invalid_client', async () => {
    await expectError(await h.post('/oauth/token', { grant_type: 'client_credentials', client_id: 'service', client_secret: 'nope' }), 401, 'invalid_client');
    await expectError(await h.post('/oauth/token', { grant_type: 'client_credentials', client_id: 'service' }), 401, 'invalid_client');
    await expectError(await h.post('/oauth/token', { grant_type: 'client_credentials' }), 401, 'invalid_client');
  });

  it('clients not registered for it → unauthorized_client (public clients never are)', async () => {
    await expectError(await h.post('/oauth/token', { grant_type: 'client_credentials', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' }), 400, 'unauthorized_client');
    await expectError(await h.post('/oauth/token', { grant_type: 'client_credentials', client_id: 'spa' }), 400, 'unauthorized_client');
  });

  it('its token is no user token: userinfo answers 403 insufficient_scope', async () => {
    const body = await json(await h.post('/oauth/token', { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret' }));
    const res = await h.get('/oidc/userinfo', { authorization: `Bearer ${body.access_token as string}` });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  });

  it('an unknown grant type → unsupported_grant_type', async () => {
    await expectError(await h.post('/oauth/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', client_id: 'service', client_secret: 'service-secret' }), 400, 'unsupported_grant_type');
  });
});
