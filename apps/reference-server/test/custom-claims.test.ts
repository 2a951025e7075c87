import { decodeJwt } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { type ConfigError, createReferenceServer, demoConfig, type ServerConfig, validateConfig } from '../src/index';
import {
  authorizeUrl, completeLogin, demoClient, demoTenant, exchangeWebCode, type Harness, ISSUER, login, pkce, setup, spaParams, verifyJwt,
  refusal, WEB_REDIRECT, webCode, webParams,
} from './helpers';

/** The demo config with a `roles` scope released to `web` and `spa`, JWT access tokens, and admin dave. */
function withRoles(config: ServerConfig): void {
  const tenant = demoTenant(config);
  tenant.access_token_format = 'jwt';
  tenant.scope_claims = { roles: ['roles', 'department'], profile: ['team'] };
  tenant.users?.push({
    username: 'dave',
    password: 'builder',
    claims: { roles: ['admin'], department: { id: 7, name: 'Ops' }, team: 'blue', level: 3, name: 'Dave' },
  });
  for (const id of ['web', 'spa']) {
    const scopes = demoClient(config, id).scopes;
    if (scopes && !scopes.includes('roles')) scopes.push('roles');
  }
  // RFC 8707: the APIs these clients may ask tokens for (https://evil.example is not one).
  for (const id of ['web', 'spa', 'service']) {
    demoClient(config, id).resources = ['https://api.example/orders', 'urn:example:api', 'https://api.example', 'https://other.example'];
  }
}

async function tokensFor(h: Harness, scope: string, extra: Record<string, string> = {}) {
  const code = await webCode(h, { scope, ...extra }, undefined);
  const res = await exchangeWebCode(h, code);
  expect(res.status).toBe(200);
  return (await res.json()) as { access_token: string; id_token: string; refresh_token?: string };
}

describe('custom claims (in-process)', () => {
  it('a user with roles ["admin"] asking for the roles scope gets roles in the ID token, userinfo and the JWT access token', async () => {
    const h = await setup(withRoles);
    const code = (await login(h, webParams({ scope: 'openid roles' }), { username: 'dave', password: 'builder' })).params.get('code') ?? '';
    const body = (await (await exchangeWebCode(h, code)).json()) as { access_token: string; id_token: string };
    const id = await verifyJwt(h, body.id_token, { audience: 'web' });
    expect(id).toMatchObject({ sub: 'dave', roles: ['admin'], department: { id: 7, name: 'Ops' } });
    expect(id).not.toHaveProperty('team');
    expect(id).not.toHaveProperty('name');
    const at = await verifyJwt(h, body.access_token, { audience: ISSUER, typ: 'at+jwt' });
    expect(at).toMatchObject({ sub: 'dave', roles: ['admin'], department: { id: 7, name: 'Ops' }, client_id: 'web', scope: 'openid roles' });
    const info = await (await h.get('/oidc/userinfo', { authorization: `Bearer ${body.access_token}` })).json();
    expect(info).toEqual({ sub: 'dave', roles: ['admin'], department: { id: 7, name: 'Ops' } });
  });

  it('without the scope, custom claims are not released; unmapped claims never are', async () => {
    const h = await setup(withRoles);
    const code = (await login(h, webParams({ scope: 'openid profile' }), { username: 'dave', password: 'builder' })).params.get('code') ?? '';
    const body = (await (await exchangeWebCode(h, code)).json()) as { access_token: string; id_token: string };
    const id = decodeJwt(body.id_token);
    expect(id).toMatchObject({ sub: 'dave', name: 'Dave', team: 'blue' }); // profile extended with "team"
    expect(id).not.toHaveProperty('roles');
    expect(id).not.toHaveProperty('level');
    const info = (await (await h.get('/oidc/userinfo', { authorization: `Bearer ${body.access_token}` })).json()) as Record<string, unknown>;
    expect(info).toEqual({ sub: 'dave', name: 'Dave', team: 'blue' });
  });

  it('discovery lists the custom claims and scopes', async () => {
    const h = await setup(withRoles);
    const doc = (await (await h.get('/.well-known/openid-configuration')).json()) as { claims_supported: string[]; scopes_supported: string[] };
    expect(doc.claims_supported).toEqual(expect.arrayContaining(['roles', 'department', 'team', 'email']));
    expect(doc.scopes_supported).toContain('roles');
  });

  it('a client access_token_audience sets aud of its JWT access tokens; other clients keep the issuer', async () => {
    const h = await setup((c) => {
      withRoles(c);
      demoClient(c, 'web').access_token_audience = ['https://api.example', 'https://other.example'];
      demoClient(c, 'service').access_token_audience = 'https://api.example';
    });
    const body = await tokensFor(h, 'openid');
    expect(decodeJwt(body.access_token).aud).toEqual(['https://api.example', 'https://other.example']);
    expect(decodeJwt(body.id_token).aud).toBe('web');
    const cc = (await (await h.post('/oauth/token', { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret' })).json()) as { access_token: string };
    expect((await verifyJwt(h, cc.access_token, { audience: 'https://api.example' })).sub).toBe('service');
    const { challenge, verifier } = pkce();
    const spa = (await login(h, spaParams(challenge))).params.get('code') ?? '';
    const spaTokens = (await (await h.post('/oidc/token', { grant_type: 'authorization_code', code: spa, redirect_uri: 'http://127.0.0.1:5173/callback', client_id: 'spa', code_verifier: verifier })).json()) as { access_token: string };
    expect(decodeJwt(spaTokens.access_token).aud).toBe(ISSUER);
  });

  it('an RFC 8707 resource at authorize becomes aud, kept through refresh; another resource later is invalid_target', async () => {
    const h = await setup(withRoles);
    const body = await tokensFor(h, 'openid offline_access', { resource: 'https://api.example/orders' });
    expect(decodeJwt(body.access_token).aud).toBe('https://api.example/orders');
    const refreshed = await h.post('/oauth/token', { grant_type: 'refresh_token', refresh_token: body.refresh_token ?? '', client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
    const next = (await refreshed.json()) as { access_token: string; refresh_token: string };
    expect(decodeJwt(next.access_token).aud).toBe('https://api.example/orders');
    const other = await h.post('/oauth/token', {
      grant_type: 'refresh_token', refresh_token: next.refresh_token, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4', resource: 'https://evil.example',
    });
    expect(other.status).toBe(400);
    expect(await other.json()).toMatchObject({ error: 'invalid_target' });
  });

  it('a resource at the token request sets aud (code exchange and client credentials)', async () => {
    const h = await setup(withRoles);
    const code = await webCode(h, { scope: 'openid' });
    const res = await exchangeWebCode(h, code, { resource: 'urn:example:api' });
    expect(decodeJwt(((await res.json()) as { access_token: string }).access_token).aud).toBe('urn:example:api');
    const cc = await h.post('/oauth/token', { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret', resource: 'https://api.example' });
    expect(decodeJwt(((await cc.json()) as { access_token: string }).access_token).aud).toBe('https://api.example');
  });

  it.each([
    ['a relative URI', 'api/orders'],
    ['a fragment', 'https://api.example/#x'],
  ])('refuses a resource with %s: invalid_target at the token endpoints and at authorize', async (_name, resource) => {
    const h = await setup(withRoles);
    const cc = await h.post('/oauth/token', { grant_type: 'client_credentials', client_id: 'service', client_secret: 'service-secret', resource });
    expect(cc.status).toBe(400);
    expect(await cc.json()).toMatchObject({ error: 'invalid_target' });
    const code = await webCode(h, { scope: 'openid' });
    const exchange = await exchangeWebCode(h, code, { resource });
    expect(await exchange.json()).toMatchObject({ error: 'invalid_target' });
    const authorize = await h.get(authorizeUrl(webParams({ resource })).toString());
    expect(authorize.status).toBe(302);
    const location = new URL(authorize.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(WEB_REDIRECT);
    expect(location.searchParams.get('error')).toBe('invalid_target');
  });

  it('a code authorized for one resource cannot be exchanged for another', async () => {
    const h = await setup(withRoles);
    const code = await webCode(h, { scope: 'openid', resource: 'https://api.example' });
    const res = await exchangeWebCode(h, code, { resource: 'https://other.example' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_target' });
  });
});

describe('custom claims over real HTTP', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  it('roles reach the ID token, userinfo and the JWT access token', async () => {
    const config = demoConfig();
    withRoles(config);
    const server = await createReferenceServer(config, { logger: false, developmentKeys: true });
    const listening = await server.listen({ port: 0 });
    close = listening.close;
    const issuer = `${listening.origin}/demo`;
    const result = await completeLogin(authorizeUrl(webParams({ scope: 'openid roles' }), issuer), { username: 'dave', password: 'builder', consent: 'allow' });
    if (result.type !== 'redirect') throw new Error('expected a redirect');
    const code = new URL(result.location).searchParams.get('code') ?? '';
    const res = await fetch(`${issuer}/oidc/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: WEB_REDIRECT, client_id: 'web', client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' }),
    });
    const body = (await res.json()) as { access_token: string; id_token: string };
    expect(decodeJwt(body.id_token).roles).toEqual(['admin']);
    expect(decodeJwt(body.access_token).roles).toEqual(['admin']);
    const info = await (await fetch(`${issuer}/oidc/userinfo`, { headers: { authorization: `Bearer ${body.access_token}` } })).json();
    expect(info).toMatchObject({ sub: 'dave', roles: ['admin'] });
  });
});

describe('custom claims in the config', () => {
  function refusedAt(change: (config: ServerConfig) => void): ConfigError {
    const config = demoConfig();
    change(config);
    return refusal(config);
  }

  it('accepts any JSON claim value', () => {
    const config = demoConfig();
    demoTenant(config).users?.push({ username: 'j', password: 'p', claims: { s: 'x', n: 1.5, b: false, z: null, a: [1, 'two', { three: 3 }], o: { deep: { er: [] } } } });
    expect(validateConfig(config)[0]?.users.get('j')?.claims).toMatchObject({ sub: 'j', a: [1, 'two', { three: 3 }] });
  });

  it.each(['iss', 'aud', 'exp', 'iat', 'nbf', 'nonce', 'azp', 'at_hash', 'c_hash', 'auth_time', 'jti', 'sid', 'acr', 'amr', 'client_id', 'scope', 'cnf'])(
    'refuses the protocol claim %s on a user, naming the field',
    (claim) => {
      const error = refusedAt((c) => demoTenant(c).users?.push({ username: 'dave', password: 'p', claims: { [claim]: 'x' } }));
      expect(error.field).toBe(`tenants[0].users[2].claims.${claim}`);
      expect(error.message).toContain('protocol claim');
    },
  );

  it.each(['iss', 'aud', 'nonce', 'auth_time'])('refuses the protocol claim %s in scope_claims, naming the field', (claim) => {
    const error = refusedAt((c) => {
      demoTenant(c).scope_claims = { roles: ['roles', claim] };
    });
    expect(error.field).toBe('tenants[0].scope_claims.roles[1]');
    expect(error.message).toContain('protocol claim');
  });

  it.each<[string, (c: ServerConfig) => void, string, RegExp]>([
    ['a non-string sub', (c) => demoTenant(c).users?.push({ username: 'dave', password: 'p', claims: { sub: 5 } }), 'tenants[0].users[2].claims.sub', /non-empty string/],
    ['a standard claim of the wrong type', (c) => demoTenant(c).users?.push({ username: 'dave', password: 'p', claims: { email_verified: 'yes' } }), 'tenants[0].users[2].claims.email_verified', /boolean/],
    ['a non-JSON claim value', (c) => demoTenant(c).users?.push({ username: 'dave', password: 'p', claims: { when: new Date() as unknown } }), 'tenants[0].users[2].claims.when', /JSON/],
    ['a standard claim moved to a custom scope', (c) => { demoTenant(c).scope_claims = { roles: ['email'] }; }, 'tenants[0].scope_claims.roles[0]', /standard claim/],
    ['sub in scope_claims', (c) => { demoTenant(c).scope_claims = { roles: ['sub'] }; }, 'tenants[0].scope_claims.roles[0]', /always released/],
    ['a scope with a space', (c) => { demoTenant(c).scope_claims = { 'a b': ['x'] }; }, 'tenants[0].scope_claims.a b', /scope token/],
    ['a claim list that is not a list', (c) => { demoTenant(c).scope_claims = { roles: 'roles' as never }; }, 'tenants[0].scope_claims.roles', /array/],
    ['a duplicate claim in a scope', (c) => { demoTenant(c).scope_claims = { roles: ['roles', 'roles'] }; }, 'tenants[0].scope_claims.roles[1]', /duplicate/],
    ['an empty access_token_audience list', (c) => { demoClient(c, 'web').access_token_audience = []; }, 'tenants[0].clients[1].access_token_audience', /non-empty/],
    ['a numeric access_token_audience', (c) => { demoClient(c, 'web').access_token_audience = 5 as never; }, 'tenants[0].clients[1].access_token_audience', /non-empty string/],
  ])('refuses %s, naming the field', (_name, change, field, message) => {
    const error = refusedAt(change);
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
  });
});
