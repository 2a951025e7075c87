import { createTestServer } from '@oidc-rp/reference-server/testing';
import { expect, it } from 'vitest';

it('alice signs in', async () => {
  await using op = await createTestServer();
  const { claims } = await op.loginAs('alice', { client: 'web', scope: 'openid email' });
  expect(claims.email).toBe('alice@example.com');
});
