// The session layer of @oidc-rp/node (createSessionAuth over a client with a DPoP key) against
// oidc-provider (a certified OpenID Provider) with DPoP-bound access tokens and server nonces
// required, over real HTTP on 127.0.0.1: the login route sends dpop_jkt, the callback's code
// exchange, the session's refresh and its API call (oidc-provider's userinfo) carry proofs the
// provider accepts. The provider is the judge: a proof it refuses fails these tests.
import { createNodeClient, createSessionAuth, dpop } from '@oidc-rp/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningOidcProvider, startOidcProvider } from './support/oidc-provider';

const APP = 'http://127.0.0.1:5174';
const SECRET = 'node-session-dpop-client-secret-0123456789';

let op: RunningOidcProvider;
/** Every request the client sent: path, status, whether it carried a proof with a nonce, and its Authorization scheme. */
const sent: { path: string; status: number; nonce: boolean; scheme?: string }[] = [];
const recordingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const headers = new Headers(init?.headers);
  const proof = headers.get('dpop');
  const nonce = proof ? JSON.parse(Buffer.from(proof.split('.')[1] ?? '', 'base64url').toString()).nonce !== undefined : false;
  sent.push({ path: new URL(String(input)).pathname, status: response.status, nonce, scheme: headers.get('authorization')?.split(' ')[0] });
  return response;
};

beforeAll(async () => {
  op = await startOidcProvider(
    [
      {
        client_id: 'node-session-dpop',
        client_secret: SECRET,
        token_endpoint_auth_method: 'client_secret_basic',
        redirect_uris: [`${APP}/auth/callback`],
        grant_types: ['authorization_code', 'refresh_token'],
        dpop_bound_access_tokens: true,
      },
    ],
    { dpop: { requireNonce: true } },
  );
});
afterAll(() => op?.close());

const pairsOf = (response: Response) => response.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');

describe('@oidc-rp/node sessions with DPoP against oidc-provider (bound tokens and nonces required)', () => {
  it('login, refresh and an API call with the session token, each with a proof the provider accepts', async () => {
    const handle = await dpop();
    const auth = createSessionAuth({
      client: createNodeClient({
        issuer: op.issuer,
        clientId: 'node-session-dpop',
        clientSecret: SECRET,
        redirectUri: `${APP}/auth/callback`,
        scope: 'openid profile email offline_access',
        cookieSecret: 'CqguUN0MdGZ_lDm9veJzQb3CixT_ow1c',
        fetch: recordingFetch,
        dpop: handle,
      }),
      secret: 'dv2cWzFH_xloX4HU5kzZofcOJjezqYon',
      baseUrl: APP,
    });

    const login = await auth.login(new Request(`${APP}/auth/login`));
    const authorize = new URL(login.headers.get('location') as string);
    expect(authorize.searchParams.get('dpop_jkt')).toBe(handle.jkt);
    const back = await op.signIn(authorize);
    if (back.type !== 'redirect') throw new Error('expected a redirect back');
    const callback = await auth.callback(new Request(back.location, { headers: { cookie: pairsOf(login) } }));
    expect(callback.status).toBe(303);
    const cookie = pairsOf(callback);

    const first = await auth.getSession(new Request(`${APP}/`, { headers: { cookie } }));
    expect(first.session).toMatchObject({ tokenType: 'DPoP', user: { sub: 'alice' }, canRefresh: true });

    sent.length = 0;
    const refreshed = await auth.getSession(new Request(`${APP}/`, { headers: { cookie } }), { forceRefresh: true });
    expect(refreshed.error).toBeUndefined();
    expect(refreshed.session?.accessToken).not.toBe(first.session?.accessToken);
    // The refresh carried a proof with the provider's nonce (learned at the code exchange).
    expect(sent.filter((s) => s.path === '/token')).toEqual([expect.objectContaining({ status: 200, nonce: true })]);

    sent.length = 0;
    const api = await auth.protectedResourceRequest(refreshed.session as NonNullable<typeof refreshed.session>, `${op.issuer}/me`);
    expect(api.status).toBe(200);
    expect(await api.json()).toMatchObject({ sub: 'alice' });
    expect(sent).toEqual([]); // sent by the session layer itself, not through the client's fetch
    // The bound token without a proof is refused by the provider.
    const asBearer = await fetch(`${op.issuer}/me`, { headers: { authorization: `Bearer ${refreshed.session?.accessToken}` } });
    expect(asBearer.status).toBe(401);
  });
});
