import { createTestServer } from '@oidc-rp/reference-server/testing';
import { expect, it } from 'vitest';

it('bob signs in as an admin', async () => {
  await using op = await createTestServer({ scopeClaims: { roles: ['roles'] } });
  const { claims } = await op.loginAs('bob', { claims: { roles: ['admin'] } });
  expect(claims.roles).toEqual(['admin']);
});
