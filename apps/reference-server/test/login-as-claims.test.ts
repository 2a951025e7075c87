// Issue 22, trap (b): loginAs with claims that the requested scope does not release fails,
// naming the scope to add (and the config change when the client may not ask for it), before
// anything changes on the server; createTestServer({ scopeClaims }) makes the common case —
// a logged-in user with roles — five lines.
import { describe, expect, it } from 'vitest';
import { ConfigError, demoConfig } from '../src/index';
import { createTestServer } from '../src/testing';
import { demoTenant } from './helpers';

async function refusal(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('loginAs refuses claims the login would drop', () => {
  it('no scope releases the claim: names createTestServer({ scopeClaims }) and scope_claims', async () => {
    await using op = await createTestServer();
    const error = await refusal(op.loginAs('bob', { claims: { roles: ['admin'] } }));
    expect(error.field).toBe('claims.roles');
    expect(error.message).toContain(`createTestServer({ scopeClaims: { roles: ['roles'] } })`);
    expect(error.message).toContain('"scope_claims": { "roles": ["roles"] }');
    // Nothing changed: bob's claims are as configured.
    const bob = (await op.server.control.users.list()).find((u) => u.username === 'bob');
    expect(bob?.claims.roles).toBeUndefined();
  });

  it('the scope exists and the client may ask for it, but the requested scope lacks it: names the scope to add', async () => {
    await using op = await createTestServer({ scopeClaims: { roles: ['roles'] } });
    const error = await refusal(op.loginAs('bob', { client: 'web', scope: 'openid email', claims: { roles: ['admin'] } }));
    expect(error.message).toContain(`pass scope: 'openid email roles'`);
  });

  it('the client may not ask for the scope: names the client config change', async () => {
    const config = demoConfig();
    demoTenant(config).scope_claims = { roles: ['roles'] };
    await using op = await createTestServer({ config });
    const error = await refusal(op.loginAs('bob', { client: 'web', claims: { roles: ['admin'] } }));
    expect(error.message).toContain('client "web" may not ask for');
    expect(error.message).toContain(`add "roles" to the client's "scopes"`);
  });

  it('a standard claim outside the requested scope names its standard scope', async () => {
    await using op = await createTestServer();
    const error = await refusal(op.loginAs('bob', { client: 'web', scope: 'openid', claims: { email: 'b@example.com' } }));
    expect(error.message).toContain(`"email" is released by the scope "email"`);
    expect(error.message).toContain(`pass scope: 'openid email'`);
  });
});

describe('createTestServer({ scopeClaims })', () => {
  it('a logged-in user with roles in five lines, over real HTTP too; userinfo has them', async () => {
    await using op = await createTestServer({ scopeClaims: { roles: ['roles'] }, listen: true });
    const { claims, tokens } = await op.loginAs('bob', { claims: { roles: ['admin'] } });
    expect(claims.roles).toEqual(['admin']);
    const info = await op.fetch(`${op.issuer}/oidc/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(await info.json()).toMatchObject({ sub: 'bob', roles: ['admin'] });
  });

  it('leaves the caller\'s config alone and the client-credentials client without user scopes', async () => {
    const config = demoConfig();
    await using op = await createTestServer({ config, scopeClaims: { roles: ['roles'] } });
    expect(demoTenant(config).scope_claims).toBeUndefined();
    const clients = await op.server.control.clients.list();
    expect(clients.find((c) => c.client_id === 'service')?.scopes).toEqual(['api.read', 'api.write']);
    expect(clients.find((c) => c.client_id === 'spa')?.scopes).toContain('roles');
  });

  it('refuses a standard claim in scopeClaims, as the config does', async () => {
    await expect(createTestServer({ scopeClaims: { profile: ['email'] } })).rejects.toThrow(/"email" is a standard claim/);
  });
});
