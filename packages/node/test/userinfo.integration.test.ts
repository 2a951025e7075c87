// getUserInfo against the reference server over real HTTP: the claims of the logged-in user,
// and never claims about someone else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeClient, serviceProvider, type NodeClient } from '../src/index';
import { type RunningServer, loginThroughForms, startReferenceServer } from './support/reference-server';

let server: RunningServer;
let client: NodeClient;

beforeAll(async () => {
  server = await startReferenceServer();
  client = createNodeClient({
    provider: serviceProvider(server.issuer),
    clientId: 'web',
    clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
    redirectUri: 'http://127.0.0.1:3000/callback',
    scope: 'openid profile email',
  });
});
afterAll(() => server.close());

async function logIn() {
  const { transaction, result } = await loginThroughForms(client);
  if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
  return client.finishLogin(result.location, transaction);
}

describe('getUserInfo', () => {
  it('returns the userinfo claims of the logged-in user with a Bearer access token', async () => {
    const tokens = await logIn();
    const before = server.count('GET', '/oidc/userinfo');
    const info = await client.getUserInfo(tokens.accessToken, { expectedSubject: tokens.claims?.sub ?? '' });
    expect(info).toMatchObject({ sub: 'alice', name: 'Alice Liddell', email: 'alice@example.com' });
    expect(server.count('GET', '/oidc/userinfo')).toBe(before + 1);
  });

  it('refuses claims about another subject than the expected one', async () => {
    const tokens = await logIn();
    await expect(client.getUserInfo(tokens.accessToken, { expectedSubject: 'bob' })).rejects.toMatchObject({ code: 'userinfo_sub_mismatch' });
  });

  it('reports a refused access token as userinfo_error, without echoing the token', async () => {
    const error = await client.getUserInfo('not-a-live-token', { expectedSubject: 'alice' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'userinfo_error' });
    expect((error as Error).message).toContain('401');
    expect((error as Error).message).not.toContain('not-a-live-token');
  });

  it('needs the expected subject, before any request', async () => {
    const before = server.count('GET', '/oidc/userinfo');
    const call = client.getUserInfo('token', undefined as unknown as { expectedSubject: string });
    await expect(call).rejects.toMatchObject({ code: 'invalid_options' });
    expect(server.count('GET', '/oidc/userinfo')).toBe(before);
  });
});
