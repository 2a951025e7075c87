import { demoConfig } from '@oidc-rp/reference-server';
import { createTestServer } from '@oidc-rp/reference-server/testing';
import { expect, it } from 'vitest';

it('bob has roles through the config', async () => {
  const config = demoConfig();
  const [tenant] = config.tenants;
  const web = tenant?.clients?.find((c) => c.client_id === 'web');
  if (!tenant || !web) throw new Error('the demo config has tenant "demo" with client "web"');
  tenant.scope_claims = { roles: ['roles'] };
  web.scopes = [...(web.scopes ?? []), 'roles'];
  await using op = await createTestServer({ config });
  const { claims } = await op.loginAs('bob', { client: 'web', scope: 'openid roles', claims: { roles: ['admin'] } });
  expect(claims.roles).toEqual(['admin']); // also in userinfo and JWT access tokens
});
