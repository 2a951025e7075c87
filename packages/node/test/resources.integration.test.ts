// RFC 8707 resource indicators with the Node client, over real HTTP against the reference server:
// one login for two APIs, then a token for each by refresh (no new login), each token's `aud`
// the one API; a resource the client is not configured with is refused before any request and
// leaves the session usable; one the provider does not allow the client is `invalid_target`.
import { demoConfig } from '@oidc-rp/reference-server';
import { completeLogin } from '@oidc-rp/reference-server/testing';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TokenSet, createNodeClient, serviceProvider } from '../src/index';
import { type RunningServer, startReferenceServer } from './support/reference-server';

const ORDERS = 'https://orders.example.com/api';
const FILES = 'https://files.example.com/';
const WEB_REDIRECT = 'http://127.0.0.1:3000/callback';

let server: RunningServer;
beforeAll(async () => {
  const config = demoConfig();
  const tenant = config.tenants[0]!;
  tenant.access_token_format = 'jwt';
  const web = tenant.clients!.find((c) => c.client_id === 'web')!;
  web.resources = [ORDERS, FILES];
  web.skip_consent = true;
  server = await startReferenceServer(config);
});
afterAll(() => server?.close());

const client = (resources: string[]) =>
  createNodeClient({
    provider: serviceProvider(server.issuer),
    clientId: 'web',
    clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
    redirectUri: WEB_REDIRECT,
    scope: 'openid offline_access',
    resources,
  });

async function login(resources: string[]) {
  const web = client(resources);
  const { url, transaction } = await web.startLogin();
  const result = await completeLogin(url);
  if (result.type !== 'redirect') throw new Error('expected a redirect');
  const tokens: TokenSet | Error = await web.finishLogin(new URL(result.location), transaction).catch((error: Error) => error);
  return { web, url, tokens };
}

describe('resources with @oidc-rp/node', () => {
  it('one login asks for both APIs; a refresh with resource gets a token for each alone', async () => {
    const { web, url, tokens } = await login([ORDERS, FILES]);
    expect(url.searchParams.getAll('resource')).toEqual([ORDERS, FILES]);
    if (tokens instanceof Error) throw tokens;
    expect(decodeJwt(tokens.accessToken).aud).toEqual([ORDERS, FILES]);

    const orders = await web.refresh(tokens.refreshToken!, { resource: ORDERS });
    expect(decodeJwt(orders.accessToken).aud).toBe(ORDERS);
    const files = await web.refresh(orders.refreshToken!, { resource: FILES });
    expect(decodeJwt(files.accessToken).aud).toBe(FILES);
  });

  it('a resource the client is not configured with: resource_not_configured, nothing sent, the refresh token still good', async () => {
    const { web, tokens } = await login([ORDERS]);
    if (tokens instanceof Error) throw tokens;
    const before = server.count('POST', '/oauth/token');
    const refused = await web.refresh(tokens.refreshToken!, { resource: FILES }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'resource_not_configured', message: expect.stringContaining(FILES) });
    expect(server.count('POST', '/oauth/token')).toBe(before);
    expect(decodeJwt((await web.refresh(tokens.refreshToken!, { resource: ORDERS })).accessToken).aud).toBe(ORDERS);
  });

  it('a resource the provider does not allow the client: invalid_target at authorize, naming the resource', async () => {
    const { tokens } = await login([ORDERS, 'https://payroll.example.com/']);
    expect(tokens).toMatchObject({ code: 'authorization_error', error: 'invalid_target' });
    expect(String((tokens as Error).message)).toContain('https://payroll.example.com/');
  });

  it('refuses malformed resources at creation', () => {
    expect(() => client(['/api'])).toThrow(expect.objectContaining({ code: 'invalid_options' }));
    expect(() => client(['https://api.example.com/#x'])).toThrow(expect.objectContaining({ code: 'invalid_options' }));
  });
});
