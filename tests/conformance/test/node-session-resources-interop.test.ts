// The session layer of @oidc-rp/node with RFC 8707 resource indicators against oidc-provider (a
// certified OpenID Provider) with its resourceIndicators feature and DPoP, over real HTTP on
// 127.0.0.1: one login for two APIs, then `getAccessToken(request, { resource })` gets each API
// its own DPoP-bound token by refresh, kept in the session; a resource the provider does not
// serve comes back typed (invalid_target) and the session stays. The provider judges every request.
import { createNodeClient, createSessionAuth, dpop } from '@oidc-rp/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningOidcProvider, startOidcProvider } from './support/oidc-provider';

const APP = 'http://127.0.0.1:5175';
const SECRET = 'node-session-resources-client-secret-0123456789';
const ORDERS = 'https://orders.example.com/api';
const FILES = 'https://files.example.com/';
/** Listed by the app, not served by the provider: any token for it is invalid_target. */
const PAYROLL = 'https://payroll.example.com/';
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
const pairsOf = (response: Response) => response.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');

let op: RunningOidcProvider;
let tokenRequests = 0;

beforeAll(async () => {
  op = await startOidcProvider(
    [
      {
        client_id: 'node-session-resources',
        client_secret: SECRET,
        token_endpoint_auth_method: 'client_secret_basic',
        redirect_uris: [`${APP}/auth/callback`],
        grant_types: ['authorization_code', 'refresh_token'],
      },
    ],
    { resourceIndicators: { resources: [ORDERS, FILES] }, dpop: { requireNonce: false } },
  );
});
afterAll(() => op?.close());

async function signedIn(resources: string[], loginResources: string[] = resources) {
  const handle = await dpop();
  const auth = createSessionAuth({
    client: createNodeClient({
      issuer: op.issuer,
      clientId: 'node-session-resources',
      clientSecret: SECRET,
      redirectUri: `${APP}/auth/callback`,
      scope: 'openid offline_access api.read',
      cookieSecret: 'CqguUN0MdGZ_lDm9veJzQb3CixT_ow1c',
      resources,
      dpop: handle,
      fetch: (input, init) => {
        if (new URL(String(input)).pathname === '/token') tokenRequests++;
        return fetch(input, init);
      },
    }),
    secret: 'dv2cWzFH_xloX4HU5kzZofcOJjezqYon',
    baseUrl: APP,
  });
  const login = await auth.login(new Request(`${APP}/auth/login`), { resources: loginResources });
  const authorize = new URL(login.headers.get('location') as string);
  expect(authorize.searchParams.getAll('resource')).toEqual(loginResources);
  const back = await op.signIn(authorize);
  if (back.type !== 'redirect') throw new Error('expected a redirect back');
  const callback = await auth.callback(new Request(back.location, { headers: { cookie: pairsOf(login) } }));
  expect(callback.status).toBe(303);
  return { auth, handle, cookie: pairsOf(callback) };
}

describe('@oidc-rp/node sessions with resource indicators against oidc-provider', () => {
  it('one login for two APIs; a DPoP-bound token for each by refresh, kept in the session', async () => {
    const { auth, handle, cookie } = await signedIn([ORDERS, FILES]);
    const request = (cookies: string) => new Request(`${APP}/`, { headers: { cookie: cookies } });
    const before = tokenRequests;
    const orders = await auth.getAccessToken(request(cookie), { resource: ORDERS });
    expect(claimsOf(orders.accessToken)).toMatchObject({ aud: ORDERS, cnf: { jkt: handle.jkt } });
    const withOrders = orders.cookies.length ? orders.cookies.map((line) => line.split(';')[0]).join('; ') : cookie;
    const files = await auth.getAccessToken(request(withOrders), { resource: FILES });
    expect(claimsOf(files.accessToken)).toMatchObject({ aud: FILES, cnf: { jkt: handle.jkt } });
    expect(tokenRequests).toBe(before + 2);
    // Both kept in the session the last answer's cookies carry: no further request.
    const latest = files.cookies.map((line) => line.split(';')[0]).join('; ');
    expect((await auth.getAccessToken(request(latest), { resource: ORDERS })).accessToken).toBe(orders.accessToken);
    expect((await auth.getAccessToken(request(latest), { resource: FILES })).accessToken).toBe(files.accessToken);
    expect(tokenRequests).toBe(before + 2);
  });

  it('a resource the provider does not serve: invalid_target, typed, and the session stays as it was', async () => {
    // Listed by the app, but asked for only by refresh (a login asking for it would be refused at authorize).
    const { auth, cookie } = await signedIn([ORDERS, PAYROLL], [ORDERS]);
    const request = new Request(`${APP}/`, { headers: { cookie } });
    await expect(auth.getAccessToken(request, { resource: PAYROLL })).rejects.toMatchObject({ code: 'token_endpoint_error', error: 'invalid_target' });
    const { session } = await auth.getSession(new Request(`${APP}/`, { headers: { cookie } }));
    expect(session?.user.sub).toBe('alice');
    expect(claimsOf((await auth.getAccessToken(new Request(`${APP}/`, { headers: { cookie } }), { resource: ORDERS })).accessToken).aud).toBe(ORDERS);
  });
});
