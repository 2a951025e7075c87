// Runtime control in-process: users, clients, conformance faults, clock and keys change on a
// running server, and bad input is refused with the field named and nothing changed.
import { decodeProtectedHeader } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { type Harness, ISSUER, WEB_REDIRECT, CookieJar, exchangeWebCode, login, setup, verifyJwt, webCode, webParams, controlRejection } from './helpers';

let h: Harness;
beforeEach(async () => {
  h = await setup((config) => {
    for (const client of config.tenants[0]?.clients ?? []) client.skip_consent = true;
  });
});


async function clientCredentials(clientId: string, secret: string): Promise<Response> {
  return h.post('/oauth/token', { grant_type: 'client_credentials', client_id: clientId, client_secret: secret, scope: 'api.read' });
}

async function idTokenFor(h: Harness): Promise<string> {
  const response = await exchangeWebCode(h, await webCode(h));
  expect(response.status).toBe(200);
  return ((await response.json()) as { id_token: string }).id_token;
}

describe('control.users', () => {
  it('adds a user who can sign in at once, with their claims in the ID token', async () => {
    await h.server.control.users.add({ username: 'carol', password: 'builder', claims: { name: 'Carol', email: 'carol@example.com' } });
    const { params } = await login(h, webParams(), { username: 'carol', password: 'builder' });
    const response = await exchangeWebCode(h, params.get('code') ?? '');
    const claims = await verifyJwt(h, ((await response.json()) as { id_token: string }).id_token, { audience: 'web' });
    expect(claims).toMatchObject({ sub: 'carol', name: 'Carol', email: 'carol@example.com' });
    expect((await h.server.control.users.list()).map((u) => u.username)).toEqual(['alice', 'bob', 'carol']);
  });

  it('lists users without their passwords', async () => {
    const listed = JSON.stringify(await h.server.control.users.list());
    expect(listed).toContain('alice');
    expect(listed).not.toContain('wonderland');
  });

  it('changes a password: the old one stops working, the new one works', async () => {
    await h.server.control.users.update('alice', { password: 'looking-glass' });
    // Three failed attempts end the flow with an error redirect.
    const failed = await login(h, webParams(), { password: 'wonderland' });
    expect(failed.params.get('code')).toBeNull();
    expect(failed.params.get('error')).toBeTruthy();
    const { params } = await login(h, webParams(), { password: 'looking-glass' });
    expect(params.get('code')).toBeTruthy();
  });

  it('removes a user: their SSO session ends and they can no longer sign in', async () => {
    const cookies = new CookieJar();
    await webCode(h, {}, cookies);
    await h.server.control.users.remove('alice');
    const next = await h.get(`/oidc/authorize?${new URLSearchParams(webParams({ prompt: 'none' }) as Record<string, string>)}`, {
      cookie: cookies.header(new URL(ISSUER)) ?? '',
    });
    expect(new URL(next.headers.get('location') ?? '').searchParams.get('error')).toBe('login_required');
    expect((await h.server.control.users.list()).map((u) => u.username)).toEqual(['bob']);
  });

  it('refuses an unknown user with 404 and the field named', async () => {
    const error = await controlRejection(h.server.control.users.update('nobody', { password: 'x' }));
    expect(error).toMatchObject({ code: 'unknown_user', field: 'username', status: 404 });
    expect(error.message).toContain('"nobody"');
    expect(await controlRejection(h.server.control.users.remove('nobody'))).toMatchObject({ code: 'unknown_user', field: 'username' });
  });

  it('refuses a taken username with 409, and an invalid entry with the config rule and field', async () => {
    expect(await controlRejection(h.server.control.users.add({ username: 'alice', password: 'x' }))).toMatchObject({ code: 'already_exists', status: 409, field: 'user.username' });
    const missing = await controlRejection(h.server.control.users.add({ username: 'carol' } as never));
    expect(missing).toMatchObject({ code: 'invalid_input', status: 400, field: 'user.password' });
    expect(missing.message).toContain('non-empty string');
    expect(await controlRejection(h.server.control.users.add({ username: 'carol', password: 'p', extra: 1 } as never))).toMatchObject({ field: 'user.extra' });
    expect(await controlRejection(h.server.control.users.update('alice', { username: 'alicia' }))).toMatchObject({ field: 'changes.username' });
    expect(await controlRejection(h.server.control.users.add('carol' as never))).toMatchObject({ field: 'user' });
    // Nothing changed.
    expect((await h.server.control.users.list()).map((u) => u.username)).toEqual(['alice', 'bob']);
  });
});

describe('control.clients', () => {
  it('registers a client that can get tokens at once, and removes it again', async () => {
    await h.server.control.clients.add({ client_id: 'batch', client_secret: 'batch-secret', grant_types: ['client_credentials'], scopes: ['api.read'] });
    expect((await clientCredentials('batch', 'batch-secret')).status).toBe(200);
    await h.server.control.clients.remove('batch');
    const refused = await clientCredentials('batch', 'batch-secret');
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('changes a client secret: the old secret is refused', async () => {
    await h.server.control.clients.update('service', { client_secret: 'rotated-secret' });
    expect((await clientCredentials('service', 'service-secret')).status).toBe(401);
    expect((await clientCredentials('service', 'rotated-secret')).status).toBe(200);
  });

  it('adds a redirect URI, which the authorize endpoint then accepts (and CORS follows it)', async () => {
    const uri = 'http://127.0.0.1:4444/cb';
    await h.server.control.clients.update('web', { redirect_uris: [WEB_REDIRECT, uri] });
    const { params } = await login(h, webParams({ redirect_uri: uri }));
    expect(params.get('code')).toBeTruthy();
    const preflight = await h.fetch(new Request(`${ISSUER}/oidc/token`, { method: 'OPTIONS', headers: { origin: 'http://127.0.0.1:4444', 'access-control-request-method': 'POST' } }));
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:4444');
  });

  it('lists clients without secrets', async () => {
    const clients = await h.server.control.clients.list();
    expect(clients.find((c) => c.client_id === 'web')).toMatchObject({ confidential: true });
    expect(clients.find((c) => c.client_id === 'spa')).toMatchObject({ confidential: false });
    expect(JSON.stringify(clients)).not.toContain('secret"');
    expect(JSON.stringify(clients)).not.toContain('web-secret-of-the-demo-Zq7Xk2Lm9Vb4');
  });

  it('refuses bad input with the field named, changing nothing', async () => {
    expect(await controlRejection(h.server.control.clients.update('ghost', { scopes: ['openid'] }))).toMatchObject({ code: 'unknown_client', field: 'client_id', status: 404 });
    const badUri = await controlRejection(h.server.control.clients.update('web', { redirect_uris: ['javascript:alert(1)'] }));
    expect(badUri).toMatchObject({ code: 'invalid_input', field: 'client.redirect_uris[0]' });
    const publicCc = await controlRejection(h.server.control.clients.add({ client_id: 'x', grant_types: ['client_credentials'] }));
    expect(publicCc).toMatchObject({ field: 'client.grant_types' });
    expect(publicCc.message).toContain('client_secret');
    expect(await controlRejection(h.server.control.clients.add({ client_id: 'web', client_secret: 's' } as never))).toMatchObject({ code: 'already_exists' });
    expect(await controlRejection(h.server.control.clients.list({ tenant: 'nope' }))).toMatchObject({ code: 'unknown_tenant', field: 'tenant', status: 404 });
    expect(await controlRejection(h.server.control.clients.list({ tenants: 'demo' } as never))).toMatchObject({ field: 'tenants' });
    expect((await clientCredentials('service', 'service-secret')).status).toBe(200);
  });

  it('makes a confidential client public with client_secret: null', async () => {
    await h.server.control.clients.update('web', { client_secret: null });
    expect((await h.server.control.clients.list()).find((c) => c.client_id === 'web')).toMatchObject({ confidential: false });
  });
});

describe('control.faults', () => {
  it('makes a client misbehave for the next request only (times: 1)', async () => {
    await h.server.control.faults.set('web', 'id_token_bad_signature', { times: 1 });
    expect(await h.server.control.faults.list()).toEqual([{ tenant: 'demo', client_id: 'web', fault: 'id_token_bad_signature', remaining: 1 }]);
    await expect(verifyJwt(h, await idTokenFor(h), { audience: 'web' })).rejects.toThrow(/signature/);
    await expect(verifyJwt(h, await idTokenFor(h), { audience: 'web' })).resolves.toMatchObject({ sub: 'alice' });
    expect(await h.server.control.faults.list()).toEqual([]);
  });

  it('counts a fault only in requests it comes into play in', async () => {
    await h.server.control.faults.set('web', 'userinfo_wrong_sub', { times: 1 });
    const response = await exchangeWebCode(h, await webCode(h));
    const { access_token } = (await response.json()) as { access_token: string };
    const userinfo = async () => ((await (await h.get('/oidc/userinfo', { authorization: `Bearer ${access_token}` })).json()) as { sub: string }).sub;
    expect(await userinfo()).toBe('alice-impostor');
    expect(await userinfo()).toBe('alice');
  });

  it('keeps a fault until cleared when no times are given, and clears one client or all', async () => {
    await h.server.control.faults.set('web', ['id_token_wrong_aud', 'redirect_missing_state']);
    for (let i = 0; i < 2; i++) {
      const { params } = await login(h, webParams());
      expect(params.has('state')).toBe(false);
    }
    await h.server.control.faults.clear('web', { fault: 'redirect_missing_state' });
    expect((await login(h, webParams())).params.get('state')).toBe('st-1');
    expect((await h.server.control.faults.list()).map((f) => f.fault)).toEqual(['id_token_wrong_aud']);
    await h.server.control.faults.clear();
    expect(await h.server.control.faults.list()).toEqual([]);
    expect(await verifyJwt(h, await idTokenFor(h), { audience: 'web' })).toMatchObject({ aud: 'web' });
  });

  it('leaves other clients healthy', async () => {
    await h.server.control.faults.set('spa', 'id_token_bad_signature');
    await expect(verifyJwt(h, await idTokenFor(h), { audience: 'web' })).resolves.toMatchObject({ sub: 'alice' });
  });

  it('jwks_key_rotated set at runtime publishes the key it signed with', async () => {
    await h.server.control.faults.set('web', 'jwks_key_rotated');
    const token = await idTokenFor(h);
    const { kid } = decodeProtectedHeader(token);
    const jwks = (await (await h.get('/oidc/jwks')).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toContain(kid);
    await expect(verifyJwt(h, token, { audience: 'web' })).resolves.toMatchObject({ sub: 'alice' });
  });

  it('refuses an unknown client or fault and bad counts, with the field named', async () => {
    expect(await controlRejection(h.server.control.faults.set('ghost', 'id_token_expired'))).toMatchObject({ code: 'unknown_client', field: 'client_id', status: 404 });
    expect(await controlRejection(h.server.control.faults.set('web', 'id_token_fried' as never))).toMatchObject({ code: 'unknown_fault', field: 'fault' });
    expect(await controlRejection(h.server.control.faults.set('web', []))).toMatchObject({ field: 'fault' });
    for (const times of [0, -1, 1.5, '2']) {
      expect(await controlRejection(h.server.control.faults.set('web', 'id_token_expired', { times: times as number }))).toMatchObject({ field: 'times' });
    }
    expect(await controlRejection(h.server.control.faults.clear('ghost'))).toMatchObject({ code: 'unknown_client' });
    expect(await h.server.control.faults.list()).toEqual([]);
  });

  it('forgets the runtime faults of a removed client', async () => {
    await h.server.control.faults.set('web', 'id_token_expired');
    await h.server.control.clients.remove('web');
    expect(await h.server.control.faults.list()).toEqual([]);
  });
});

describe('control.clock', () => {
  it('advances the server clock: an access token expires, and sets and resets it', async () => {
    const response = await exchangeWebCode(h, await webCode(h));
    const { access_token } = (await response.json()) as { access_token: string };
    const userinfo = () => h.get('/oidc/userinfo', { authorization: `Bearer ${access_token}` });
    expect((await userinfo()).status).toBe(200);
    const advanced = await h.server.control.clock.advance(3601);
    expect(advanced.offsetSeconds).toBe(3601);
    expect(advanced.time).toBe(new Date(h.clock.ms + 3_601_000).toISOString());
    expect((await userinfo()).status).toBe(401);
    expect((await h.server.control.clock.reset()).offsetSeconds).toBe(0);
    expect((await h.server.control.clock.get()).time).toBe(new Date(h.clock.ms).toISOString());
    expect((await h.server.control.clock.set('2040-01-01T00:00:00Z')).time).toBe('2040-01-01T00:00:00.000Z');
    expect((await h.server.control.clock.set(new Date(Date.UTC(2031, 0, 1)))).time).toBe('2031-01-01T00:00:00.000Z');
    expect((await h.server.control.clock.set(2_000_000_000)).time).toBe(new Date(2_000_000_000_000).toISOString());
    expect((await h.server.control.clock.get()).time).toBe(new Date(2_000_000_000_000).toISOString());
  });

  it('refuses a time or step that is not one', async () => {
    expect(await controlRejection(h.server.control.clock.advance(Number.NaN))).toMatchObject({ field: 'seconds' });
    expect(await controlRejection(h.server.control.clock.advance('60' as never))).toMatchObject({ field: 'seconds' });
    expect(await controlRejection(h.server.control.clock.set('next tuesday'))).toMatchObject({ field: 'time' });
    expect((await h.server.control.clock.get()).offsetSeconds).toBe(0);
  });
});

describe('control.keys', () => {
  it('rotates the signing key: new tokens use it, the old key stays published', async () => {
    const before = decodeProtectedHeader(await idTokenFor(h)).kid;
    const { kid } = await h.server.control.keys.rotate();
    expect(kid).not.toBe(before);
    expect(decodeProtectedHeader(await idTokenFor(h)).kid).toBe(kid);
    const jwks = (await (await h.get('/oidc/jwks')).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toEqual([kid, before]);
    expect(await controlRejection(h.server.control.keys.rotate({ tenant: 'other' }))).toMatchObject({ code: 'unknown_tenant', field: 'tenant' });
  });
});

describe('several tenants', () => {
  it('needs the tenant named, and changes only that one', async () => {
    const multi = await setup((config) => {
      const second = structuredClone(config.tenants[0]);
      if (second) config.tenants.push({ ...second, id: 'second' });
    });
    expect(await controlRejection(multi.server.control.users.list())).toMatchObject({ field: 'tenant', code: 'invalid_input' });
    await multi.server.control.users.add({ username: 'carol', password: 'p' }, { tenant: 'second' });
    expect((await multi.server.control.users.list({ tenant: 'demo' })).map((u) => u.username)).toEqual(['alice', 'bob']);
    expect((await multi.server.control.users.list({ tenant: 'second' })).map((u) => u.username)).toEqual(['alice', 'bob', 'carol']);
  });
});
