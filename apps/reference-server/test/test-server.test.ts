import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { ConfigError, createReferenceServer, demoConfig } from '../src/index';
import { createTestServer } from '../src/testing';
import { demoClient, demoTenant } from './helpers';

function withRoles() {
  const config = demoConfig();
  demoTenant(config).scope_claims = { roles: ['roles'] };
  demoTenant(config).access_token_format = 'jwt';
  const scopes = demoClient(config, 'web').scopes;
  scopes?.push('roles');
  return config;
}

describe('createTestServer and loginAs (in-process)', () => {
  it('loginAs returns the tokens and validated ID token claims of a configured user, without a consent page', async () => {
    await using op = await createTestServer();
    expect(op.issuer).toBe('http://localhost/demo');
    const { tokens, claims } = await op.loginAs('alice', { client: 'web', scope: 'openid email offline_access' });
    expect(claims).toMatchObject({ iss: op.issuer, sub: 'alice', aud: 'web', email: 'alice@example.com', email_verified: true });
    expect(claims.nonce).toEqual(expect.any(String));
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const info = await op.fetch(`${op.issuer}/oidc/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(await info.json()).toMatchObject({ sub: 'alice', email: 'alice@example.com' });
  });

  it('defaults: the first code client and every claim-releasing scope it has', async () => {
    await using op = await createTestServer();
    const { claims } = await op.loginAs('alice');
    expect(claims.aud).toBe('spa'); // the first client with the code grant, a public one: PKCE alone
    expect(claims).toMatchObject({ name: 'Alice Liddell', email: 'alice@example.com' });
  });

  it('claims extend a configured user from that login on (the issue example: bob with roles)', async () => {
    await using op = await createTestServer({ config: withRoles() });
    const { tokens, claims } = await op.loginAs('alice', { client: 'web', scope: 'openid roles', claims: { roles: ['admin'] } });
    expect(claims).toMatchObject({ sub: 'alice', roles: ['admin'] });
    expect(decodeJwt(tokens.access_token).roles).toEqual(['admin']);
    const again = await op.loginAs('alice', { client: 'web', scope: 'openid roles email' });
    expect(again.claims).toMatchObject({ roles: ['admin'], email: 'alice@example.com' });
  });

  it('an unknown username becomes a persona with the given claims; sub defaults to the username', async () => {
    await using op = await createTestServer({ config: withRoles() });
    const { claims, tokens } = await op.loginAs('bob', { client: 'web', scope: 'openid roles', claims: { roles: ['admin'] } });
    expect(claims).toMatchObject({ sub: 'bob', roles: ['admin'] });
    const info = await op.fetch(`${op.issuer}/oidc/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(await info.json()).toEqual({ sub: 'bob', roles: ['admin'] });
    const carol = await op.loginAs('carol', { client: 'web', claims: { sub: 'c-123', name: 'Carol' } });
    expect(carol.claims).toMatchObject({ sub: 'c-123', name: 'Carol' });
  });

  it.each<[string, Parameters<Awaited<ReturnType<typeof createTestServer>>['loginAs']>[1], RegExp]>([
    ['an unknown client', { client: 'nope' }, /no client "nope" in tenant "demo"/],
    ['an unknown tenant', { tenant: 'nope' }, /no tenant "nope"/],
    ['a client without the code response type', { client: 'service' }, /not registered for response_type "code"/],
    ['a scope the client may not ask for', { client: 'web', scope: 'openid admin' }, /invalid_scope/],
    ['a protocol claim', { claims: { iss: 'https://evil.example' } }, /invalid config at claims\.iss: .*protocol claim/],
    ['a standard claim of the wrong type', { claims: { email_verified: 'yes' } }, /email_verified: .*boolean/],
    ['a new sub for a configured user', { claims: { sub: 'other' } }, /already has sub "alice"/],
  ])('refuses %s with a clear error', async (_name, options, message) => {
    await using op = await createTestServer();
    await expect(op.loginAs('alice', options)).rejects.toThrow(message);
  });

  it('refuses a persona whose sub belongs to another user', async () => {
    await using op = await createTestServer();
    await expect(op.loginAs('mallory', { claims: { sub: 'alice' } })).rejects.toThrow(/sub "alice" belongs to user "alice"/);
  });

  it('signs with the fixed development key: the same kid on every server, no key generation', async () => {
    await using a = await createTestServer();
    await using b = await createTestServer();
    const kid = (op: typeof a) => op.loginAs('alice').then((r) => decodeProtectedHeader(r.tokens.id_token).kid);
    expect(await kid(a)).toBe(await kid(b));
  });

  it('developmentKeys: false generates a key pair of its own (real key generation)', async () => {
    await using dev = await createTestServer();
    await using real = await createTestServer({ developmentKeys: false });
    const devKid = decodeProtectedHeader((await dev.loginAs('alice')).tokens.id_token).kid;
    const realKid = decodeProtectedHeader((await real.loginAs('alice')).tokens.id_token).kid;
    expect(realKid).toEqual(expect.any(String));
    expect(realKid).not.toBe(devKid);
  });

  it('close() and Symbol.asyncDispose close the listener', async () => {
    const op = await createTestServer({ listen: true });
    const origin = op.origin;
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${op.issuer}/.well-known/openid-configuration`)).status).toBe(200);
    await op[Symbol.asyncDispose]();
    await expect(fetch(`${origin}/demo/.well-known/openid-configuration`)).rejects.toThrow();
  });
});

describe('createTestServer with the standard profile', () => {
  it('loginAs sends the client secret with the verifier, as the profile wants', async () => {
    const config = demoConfig();
    demoTenant(config).profile = 'standard';
    await using op = await createTestServer({ config });
    const { tokens, claims } = await op.loginAs('alice', { client: 'web', scope: 'openid' });
    expect(claims.sub).toBe('alice');
    expect(tokens.expires_in).toBe(3600);
  });
});

describe('createTestServer over real HTTP', () => {
  it('loginAs works against the listener, ES256 too', async () => {
    const config = demoConfig();
    demoTenant(config).signing_alg = 'ES256';
    await using op = await createTestServer({ config, listen: true });
    const { claims, tokens } = await op.loginAs('alice', { client: 'web', scope: 'openid profile' });
    expect(claims).toMatchObject({ iss: op.issuer, sub: 'alice', name: 'Alice Liddell' });
    expect(decodeProtectedHeader(tokens.id_token).alg).toBe('ES256');
  });
});

describe('development keys are refused where they could reach production', () => {
  it('a tenant that is not development', async () => {
    const config = demoConfig();
    demoTenant(config).development = false;
    demoTenant(config).demo_login = false; // demo_login needs a development tenant
    for (const c of demoTenant(config).clients ?? []) delete c.backchannel_logout_uri; // so does an http back-channel URI
    const attempt = createTestServer({ config });
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(createTestServer({ config })).rejects.toThrow(
      /invalid config at tenants\[0\]\.development: tenant "demo" is not a development tenant, and the development signing keys are public \(never for production\)/,
    );
    await expect(createReferenceServer(config, { developmentKeys: true, logger: false })).rejects.toThrow(/tenants\[0\]\.development/);
    // Without them the same config starts.
    await using op = await createTestServer({ config, developmentKeys: false });
    expect((await op.loginAs('alice', { client: 'web' })).claims.sub).toBe('alice');
  });

  it('a listener on a non-loopback host', async () => {
    const server = await createReferenceServer(demoConfig(), { developmentKeys: true, logger: false });
    await expect(server.listen({ port: 0, host: '0.0.0.0' })).rejects.toThrow(/invalid config at host: development signing keys are public and serve loopback only/);
    const ok = await server.listen({ port: 0, host: '127.0.0.1' });
    await ok.close();
  });

  it('a Redis store', async () => {
    const config = demoConfig();
    config.store = { type: 'redis', url: 'redis://127.0.0.1:1' };
    await expect(createReferenceServer(config, { developmentKeys: true, logger: false })).rejects.toThrow(/invalid config at store: development signing keys cannot be shared through Redis/);
  });
});
