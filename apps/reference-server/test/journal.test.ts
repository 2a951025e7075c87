// The request journal: every request with what it asked for and how it was answered; secrets,
// codes, tokens and passwords never recorded; a matcher; a bounded ring buffer.
import { describe, expect, it } from 'vitest';
import { ControlError } from '../src/control/errors';
import { createReferenceServer, demoConfig } from '../src/index';
import { basic, type Harness, SPA_REDIRECT, authorizeUrl, completeLogin, CookieJar, pkce, setup, spaParams } from './helpers';

/** Every control call carries this header (a custom header: no web page sends it without a preflight). */
const CONTROL = { 'x-control-request': '1' };

/** Every hidden form value the login pages sent (CSRF tokens, interaction ids), collected as the login runs. */
function recordingFetch(h: Harness, seen: string[]): (request: Request) => Promise<Response> {
  return async (request) => {
    const response = await h.fetch(request);
    const text = await response.clone().text();
    for (const [input] of text.matchAll(/<input[^>]*type="hidden"[^>]*>/g)) {
      const value = /value="([^"]+)"/.exec(input)?.[1];
      if (value) seen.push(value);
    }
    return response;
  };
}

describe('request journal', () => {
  it('records every request of a login, refresh and client credentials run, and never a secret, code, token or password', async () => {
    const h = await setup();
    const secrets: string[] = ['wonderland', 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4', 'service-secret'];
    const { verifier, challenge } = pkce();
    secrets.push(verifier, challenge);
    const params = spaParams(challenge, { nonce: 'nonce-value-123456', state: 'state-value-123456' });
    secrets.push('nonce-value-123456', 'state-value-123456');
    const hidden: string[] = [];
    const result = await completeLogin(authorizeUrl(params).href, { fetch: recordingFetch(h, hidden), cookies: new CookieJar() });
    // The interaction ids and CSRF tokens of the login and consent forms.
    expect(hidden.length).toBeGreaterThanOrEqual(4);
    secrets.push(...hidden);
    if (result.type !== 'redirect') throw new Error('expected a redirect');
    const code = new URL(result.location).searchParams.get('code') ?? '';
    secrets.push(code);
    const exchange = await h.post('/oidc/token', { grant_type: 'authorization_code', client_id: 'spa', code, redirect_uri: SPA_REDIRECT, code_verifier: verifier });
    const tokens = (await exchange.json()) as { access_token: string; refresh_token: string; id_token: string };
    secrets.push(tokens.access_token, tokens.refresh_token, tokens.id_token);
    const refreshed = (await (await h.post('/oauth/token', { grant_type: 'refresh_token', client_id: 'spa', refresh_token: tokens.refresh_token })).json()) as {
      access_token: string;
      refresh_token: string;
    };
    secrets.push(refreshed.access_token, refreshed.refresh_token);
    expect((await h.get('/oidc/userinfo', { authorization: `Bearer ${refreshed.access_token}` })).status).toBe(200);
    const cc = await h.post('/oauth/token', { grant_type: 'client_credentials', scope: 'api.read' }, { authorization: basic('service', 'service-secret') });
    secrets.push(((await cc.json()) as { access_token: string }).access_token);
    await h.post('/oauth/revoke', { token: refreshed.refresh_token, client_id: 'spa' });
    await h.post('/oauth/token', { grant_type: 'refresh_token', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4', refresh_token: 'stolen-refresh-token-value' });
    secrets.push('stolen-refresh-token-value');

    const journal = h.server.requests();
    const text = JSON.stringify(journal);
    for (const secret of secrets) expect(text, `the journal contains ${secret.slice(0, 6)}…`).not.toContain(secret);

    expect(journal.map((e) => `${e.method} ${e.endpoint} ${e.status}`)).toEqual([
      'GET /oidc/authorize 302',
      'GET /oidc/login 200',
      'POST /oidc/login 302',
      'GET /oidc/consent 200',
      'POST /oidc/consent 302',
      'POST /oidc/token 200',
      'POST /oauth/token 200',
      'GET /oidc/userinfo 200',
      'POST /oauth/token 200',
      'POST /oauth/revoke 200',
      'POST /oauth/token 400',
    ]);
    expect(journal[0]).toMatchObject({
      seq: 1,
      tenant: 'demo',
      path: '/demo/oidc/authorize',
      client_id: 'spa',
      response_type: 'code',
      params: { scope: 'openid profile email offline_access', redirect_uri: SPA_REDIRECT, code_challenge_method: 'S256', state: '[redacted]', nonce: '[redacted]', code_challenge: '[redacted]' },
    });
    expect(journal[0]?.time).toBe(new Date(h.clock.ms).toISOString());
    expect(journal[5]).toMatchObject({ client_id: 'spa', grant_type: 'authorization_code', params: { code: '[redacted]', code_verifier: '[redacted]' } });
    expect(journal[7]).toMatchObject({ authorization: 'bearer', params: {} });
    // The client id from HTTP Basic credentials, never the secret.
    expect(journal[8]).toMatchObject({ client_id: 'service', grant_type: 'client_credentials', authorization: 'basic' });
    expect(journal[10]).toMatchObject({ client_id: 'web', params: { client_secret: '[redacted]', refresh_token: '[redacted]' } });
  });

  it('redacts any parameter it does not know to be harmless', async () => {
    const h = await setup();
    await h.post('/oauth/token', { grant_type: 'password', username: 'alice', password: 'wonderland', api_key: 'k-123456', assertion: 'eyJhbGciOi' });
    await h.get('/oidc/authorize?client_id=web&id_token_hint=eyJ.hint.sig&access_token=abc123');
    const text = JSON.stringify(h.server.requests());
    for (const secret of ['wonderland', 'k-123456', 'eyJhbGciOi', 'eyJ.hint.sig', 'abc123']) expect(text).not.toContain(secret);
    expect(h.server.requests({ path: '/oauth/token' })[0]?.params).toEqual({
      grant_type: 'password',
      username: 'alice',
      password: '[redacted]',
      api_key: '[redacted]',
      assertion: '[redacted]',
    });
  });

  it('cuts long values and names, so a full journal stays small', async () => {
    const h = await setup();
    await h.get(`/oidc/authorize?scope=${'s'.repeat(3000)}&${'n'.repeat(100)}=1`);
    const [entry] = h.server.requests();
    expect(entry?.params.scope).toBe(`${'s'.repeat(256)}…`);
    expect(entry?.params[`${'n'.repeat(64)}…`]).toBe('[redacted]');
  });

  it('finds entries with a matcher: path (full or in the tenant), grant_type, client_id, status, method', async () => {
    const h = await setup();
    const cc = (secret: string) => h.post('/oauth/token', { grant_type: 'client_credentials', client_id: 'service', client_secret: secret, scope: 'api.read' });
    await cc('service-secret');
    await cc('wrong-secret');
    await h.get('/oidc/jwks');
    expect(h.server.requests({ path: '/oauth/token', grant_type: 'client_credentials' })).toHaveLength(2);
    expect(h.server.requests({ path: '/demo/oauth/token', status: 401 })).toHaveLength(1);
    expect(h.server.requests({ client_id: 'service', status: 200 })).toHaveLength(1);
    expect(h.server.requests({ method: 'GET' }).map((e) => e.path)).toEqual(['/demo/oidc/jwks']);
    expect(h.server.requests({ grant_type: 'refresh_token' })).toEqual([]);
    expect(await h.server.control.requests.list({ path: '/oidc/jwks' })).toHaveLength(1);
    expect(() => h.server.requests({ colour: 'blue' } as never)).toThrow(ControlError);
    expect(() => h.server.requests({ status: '200' } as never)).toThrow(/status/);
  });

  it('records requests outside any tenant and malformed bodies, answered 4xx', async () => {
    const h = await setup();
    await h.fetch(new Request('http://localhost/nowhere'));
    await h.post('/oidc/token', 'a=%zz&a=1');
    const [unknown, malformed] = h.server.requests();
    expect(unknown).toMatchObject({ path: '/nowhere', status: 404, params: {} });
    expect(unknown?.tenant).toBeUndefined();
    expect(malformed).toMatchObject({ endpoint: '/oidc/token', status: 400, params: {} });
  });

  it('keeps the latest entries only (a ring buffer), can be cleared, and can be turned off', async () => {
    const server = await createReferenceServer(demoConfig(), { logger: false, journalSize: 3, developmentKeys: true });
    for (let i = 0; i < 5; i++) await server.fetch(new Request(`http://localhost/demo/oidc/jwks?n=${i}`));
    const kept = server.requests();
    expect(kept.map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(kept.map((e) => e.params.n)).toEqual(['[redacted]', '[redacted]', '[redacted]']);
    await server.control.requests.clear();
    expect(server.requests()).toEqual([]);
    await server.fetch(new Request('http://localhost/demo/oidc/jwks'));
    expect(server.requests().map((e) => e.seq)).toEqual([1]);
    const off = await createReferenceServer(demoConfig(), { logger: false, journalSize: 0, developmentKeys: true });
    await off.fetch(new Request('http://localhost/demo/oidc/jwks'));
    expect(off.requests()).toEqual([]);
    await expect(createReferenceServer(demoConfig(), { journalSize: -1 })).rejects.toThrow(/journal size/);
  });

  it('returns copies: changing an entry changes nothing', async () => {
    const h = await setup();
    await h.get('/oidc/jwks');
    const [entry] = h.server.requests();
    if (entry) entry.status = 500;
    expect(h.server.requests()[0]?.status).toBe(200);
  });

  it('is served by the HTTP control API, which does not journal itself', async () => {
    const config = demoConfig();
    const server = await createReferenceServer(config, { logger: false, controlApi: true, developmentKeys: true });
    const { origin, close } = await server.listen({ port: 0 });
    try {
      await fetch(`${origin}/demo/oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4', refresh_token: 'r-1234567' }) });
      await fetch(`${origin}/demo/oidc/jwks`);
      const response = await fetch(`${origin}/_control/requests?path=/oauth/token&grant_type=refresh_token`, { headers: CONTROL });
      const entries = (await response.json()) as { status: number; params: Record<string, string> }[];
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ status: 400, params: { refresh_token: '[redacted]', client_secret: '[redacted]' } });
      expect(JSON.stringify(entries)).not.toContain('r-1234567');
      expect((await (await fetch(`${origin}/_control/requests?status=200`, { headers: CONTROL })).json()) as unknown[]).toHaveLength(1);
      expect((await fetch(`${origin}/_control/requests`, { method: 'DELETE', headers: CONTROL })).status).toBe(204);
      expect(server.requests()).toEqual([]);
    } finally {
      await close();
    }
  });
});

