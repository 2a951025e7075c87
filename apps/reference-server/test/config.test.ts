import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ConfigError, createReferenceServer, demoConfig, loadConfigFile, validateConfig, type ServerConfig } from '../src/index';
import { demoClient, demoTenant, refusal } from './helpers';
import { testTempDir } from './support/temp-dir';

function refused(change: (config: ServerConfig & Record<string, unknown>) => void): ConfigError {
  const config = demoConfig() as ServerConfig & Record<string, unknown>;
  change(config);
  return refusal(config);
}

describe('config validation', () => {
  it('accepts the demo config and fills in defaults', () => {
    const [tenant] = validateConfig(demoConfig());
    expect(tenant?.id).toBe('demo');
    expect(tenant?.clients.get('spa')?.client_secret).toBeUndefined();
    expect(tenant?.clients.get('web')?.client_secret).toBe('web-secret-of-the-demo-Zq7Xk2Lm9Vb4');
    expect(tenant?.users.get('alice')?.claims).toMatchObject({ sub: 'alice', name: 'Alice Liddell', email: 'alice@example.com' });
    expect([...(tenant?.corsOrigins ?? [])].sort()).toEqual([
      'http://127.0.0.1:3000', 'http://127.0.0.1:5173', 'http://localhost:3000', 'http://localhost:5173',
    ]);
  });

  it('defaults a minimal tenant: RS256, opaque tokens, 60/3600/3600/30d lifetimes, code grant', () => {
    const [tenant] = validateConfig({ tenants: [{ id: 'min', clients: [{ client_id: 'c', client_secret: 's', redirect_uris: ['https://app.example/cb'] }] }] });
    expect(tenant).toMatchObject({ signing_alg: 'RS256', access_token_format: 'opaque', development: false });
    expect(tenant?.lifetimes).toEqual({ authorization_code: 60, access_token: 3600, id_token: 3600, refresh_token: 2592000 });
    expect(tenant?.clients.get('c')).toMatchObject({ grant_types: ['authorization_code'], response_types: ['code'], scopes: ['openid'], skip_consent: false });
  });

  it('names: the tenant name and client_name default to the ids; demo_login defaults to off', () => {
    const [tenant] = validateConfig({ tenants: [{ id: 'min', clients: [{ client_id: 'c', client_secret: 's', redirect_uris: ['https://app.example/cb'] }] }] });
    expect(tenant).toMatchObject({ name: 'min', demo_login: false });
    expect(tenant?.clients.get('c')?.client_name).toBeUndefined();
    const [demo] = validateConfig(demoConfig());
    expect(demo).toMatchObject({ name: 'oidc-rp demo', development: true, demo_login: true });
    expect(demo?.clients.get('spa')?.client_name).toBe('React example (SPA)');
    expect(demo?.clients.get('web')?.client_name).toBe('Server-side example');
  });

  it('refuses demo_login outside development tenants, saying why', () => {
    const error = refused((c) => { demoTenant(c).development = false; });
    expect(error.message).toMatch(/demo_login: .*without a password.*"development": true/);
  });

  it('canonicalises response types given in another word order', () => {
    const [tenant] = validateConfig({
      tenants: [{ id: 't', clients: [{ client_id: 'c', client_secret: 's', redirect_uris: ['https://a.example/cb'], response_types: ['id_token code'] }] }],
    });
    expect(tenant?.clients.get('c')?.response_types).toEqual(['code id_token']);
  });

  it.each<[string, (c: ServerConfig & Record<string, unknown>) => void, string]>([
    ['no tenants', (c) => { c.tenants = []; }, 'tenants'],
    ['unknown top-level key', (c) => { c.extra = 1; }, 'config.extra'],
    ['unknown client key (typo)', (c) => { (demoClient(c, 'web') as unknown as Record<string, unknown>).skip_consnet = true; }, 'tenants[0].clients[1].skip_consnet'],
    ['tenant id with a slash', (c) => { demoTenant(c).id = 'a/b'; }, 'tenants[0].id'],
    ['duplicate tenant id', (c) => { c.tenants.push({ ...demoTenant(c) }); }, 'tenants[1]'],
    ['bad signing_alg', (c) => { (demoTenant(c) as unknown as Record<string, unknown>).signing_alg = 'HS256'; }, 'tenants[0].signing_alg'],
    ['bad access_token_format', (c) => { (demoTenant(c) as unknown as Record<string, unknown>).access_token_format = 'paseto'; }, 'tenants[0].access_token_format'],
    ['negative lifetime', (c) => { demoTenant(c).lifetimes = { access_token: -1 }; }, 'tenants[0].lifetimes.access_token'],
    ['fractional lifetime', (c) => { demoTenant(c).lifetimes = { authorization_code: 1.5 }; }, 'tenants[0].lifetimes.authorization_code'],
    ['unknown lifetime', (c) => { demoTenant(c).lifetimes = { session: 5 } as never; }, 'tenants[0].lifetimes.session'],
    ['user without password', (c) => { demoTenant(c).users = [{ username: 'bob' } as never]; }, 'tenants[0].users[0].password'],
    ['duplicate username', (c) => { demoTenant(c).users?.push({ username: 'alice', password: 'x', claims: { sub: 'other' } }); }, 'tenants[0].users[2]'],
    ['duplicate sub', (c) => { demoTenant(c).users?.push({ username: 'carol', password: 'x', claims: { sub: 'alice' } }); }, 'tenants[0].users[2]'],
    ['client without client_id', (c) => { delete (demoClient(c, 'web') as unknown as Record<string, unknown>).client_id; }, 'tenants[0].clients[1].client_id'],
    ['empty client_secret', (c) => { demoClient(c, 'web').client_secret = ''; }, 'tenants[0].clients[1].client_secret'],
    ['duplicate client_id', (c) => { demoClient(c, 'web').client_id = 'spa'; }, 'tenants[0].clients[1]'],
    ['unknown grant type', (c) => { demoClient(c, 'web').grant_types = ['password' as never]; }, 'tenants[0].clients[1].grant_types[0]'],
    ['unknown response type', (c) => { demoClient(c, 'web').response_types = ['code refresh_token' as never]; }, 'tenants[0].clients[1].response_types[0]'],
    ['code response type without the code grant', (c) => { demoClient(c, 'spa').grant_types = ['implicit']; }, 'tenants[0].clients[0].response_types[0]'],
    ['implicit response type without the implicit grant', (c) => { demoClient(c, 'spa').grant_types = ['authorization_code']; }, 'tenants[0].clients[0].response_types[1]'],
    ['client_credentials for a public client', (c) => { demoClient(c, 'spa').grant_types?.push('client_credentials'); }, 'tenants[0].clients[0].grant_types'],
    ['code grant without redirect URIs', (c) => { demoClient(c, 'web').redirect_uris = []; }, 'tenants[0].clients[1].redirect_uris'],
    ['relative redirect URI', (c) => { demoClient(c, 'web').redirect_uris = ['/callback']; }, 'tenants[0].clients[1].redirect_uris[0]'],
    ['redirect URI with a fragment', (c) => { demoClient(c, 'web').redirect_uris = ['https://a.example/cb#x']; }, 'tenants[0].clients[1].redirect_uris[0]'],
    ['javascript: redirect URI', (c) => { demoClient(c, 'web').redirect_uris = ['javascript:alert(1)']; }, 'tenants[0].clients[1].redirect_uris[0]'],
    ['duplicate redirect URI', (c) => { demoClient(c, 'web').redirect_uris = ['https://a.example/cb', 'https://a.example/cb']; }, 'tenants[0].clients[1].redirect_uris[1]'],
    ['bad post-logout URI', (c) => { demoClient(c, 'web').post_logout_redirect_uris = ['data:text/html,hi']; }, 'tenants[0].clients[1].post_logout_redirect_uris[0]'],
    ['scope with a space', (c) => { demoClient(c, 'web').scopes = ['openid email']; }, 'tenants[0].clients[1].scopes[0]'],
    ['control characters in a client_id', (c) => { demoClient(c, 'web').client_id = 'we\nb'; }, 'tenants[0].clients[1].client_id'],
    ['skip_consent not boolean', (c) => { (demoClient(c, 'web') as unknown as Record<string, unknown>).skip_consent = 'yes'; }, 'tenants[0].clients[1].skip_consent'],
    ['an empty client_name', (c) => { demoClient(c, 'web').client_name = ''; }, 'tenants[0].clients[1].client_name'],
    ['a tenant name with a control character', (c) => { demoTenant(c).name = 'demo\u0007'; }, 'tenants[0].name'],
    ['demo_login not boolean', (c) => { (demoTenant(c) as unknown as Record<string, unknown>).demo_login = 'yes'; }, 'tenants[0].demo_login'],
    ['demo_login on a tenant that is not development', (c) => { demoTenant(c).development = false; }, 'tenants[0].demo_login'],
  ])('refuses %s, naming the field', (_name, change, field) => {
    const error = refused(change);
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
  });

  it('allows http redirect URIs only on localhost/127.0.0.1 unless the tenant is development', () => {
    const tenant = (development: boolean, uri: string) => ({
      tenants: [{ id: 't', development, clients: [{ client_id: 'c', client_secret: 's', redirect_uris: [uri] }] }],
    });
    expect(() => validateConfig(tenant(false, 'http://localhost:8080/cb'))).not.toThrow();
    expect(() => validateConfig(tenant(false, 'http://127.0.0.1/cb'))).not.toThrow();
    expect(() => validateConfig(tenant(false, 'https://app.example/cb'))).not.toThrow();
    expect(() => validateConfig(tenant(false, 'com.example.app:/oauth2redirect'))).not.toThrow();
    const error = (() => {
      try {
        validateConfig(tenant(false, 'http://app.example/cb'));
      } catch (e) {
        return e as ConfigError;
      }
      return undefined;
    })();
    expect(error?.field).toBe('tenants[0].clients[0].redirect_uris[0]');
    expect(error?.message).toMatch(/http is only allowed for localhost or 127\.0\.0\.1.*development/);
    expect(() => validateConfig(tenant(true, 'http://app.example/cb'))).not.toThrow();
  });

  it('createReferenceServer refuses an invalid config', async () => {
    const config = demoConfig();
    demoClient(config, 'web').redirect_uris = ['ftp://x/cb'];
    await expect(createReferenceServer(config, { logger: false })).rejects.toThrow(/tenants\[0\]\.clients\[1\]\.redirect_uris\[0\]/);
  });

  it('loadConfigFile reads a valid file and refuses unreadable, non-JSON and invalid ones', async () => {
    const dir = await testTempDir('rs-config-');
    const good = join(dir, 'good.json');
    await writeFile(good, JSON.stringify(demoConfig()));
    await expect(loadConfigFile(good)).resolves.toMatchObject({ tenants: [{ id: 'demo' }] });
    await expect(loadConfigFile(join(dir, 'missing.json'))).rejects.toThrow(/cannot read .*missing\.json \(ENOENT\)/);
    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{ "tenants": [ ');
    await expect(loadConfigFile(broken)).rejects.toThrow(/not valid JSON/);
    const invalid = join(dir, 'invalid.json');
    await writeFile(invalid, JSON.stringify({ tenants: [{ id: 'x', clients: [{ client_id: 'c', redirect_uris: ['http://evil.example/cb'] }] }] }));
    await expect(loadConfigFile(invalid)).rejects.toThrow(/tenants\[0\]\.clients\[0\]\.redirect_uris\[0\]/);
  });

  it('demoConfig returns a fresh object each call', () => {
    const a = demoConfig();
    demoTenant(a).id = 'changed';
    expect(demoTenant(demoConfig()).id).toBe('demo');
  });
});

describe('config defaults', () => {
  it('a client-credentials-only client needs no response types or redirect URIs', () => {
    const [tenant] = validateConfig({ tenants: [{ id: 't', clients: [{ client_id: 'svc', client_secret: 's', grant_types: ['client_credentials'] }] }] });
    expect(tenant?.clients.get('svc')).toMatchObject({ response_types: [], redirect_uris: [] });
  });
});
