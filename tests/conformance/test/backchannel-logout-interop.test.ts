// OpenID Connect Back-Channel Logout 1.0 against oidc-provider (a certified OpenID Provider, its
// `backchannelLogout` feature), over real HTTP on 127.0.0.1: @oidc-rp/node's session layer signs
// a user in twice through one provider session (SSO), the user signs out of one app session, the
// provider ends its session and POSTs its own logout token to the app's back-channel route, and
// the other app session of that provider session is over. The provider is the judge of the
// route's answer: oidc-provider wants 200 or 204, and reports anything else.
import { type Server, createServer } from 'node:http';
import { once } from 'node:events';
import { MemorySessionStore, type SessionAuth, createNodeClient, createSessionAuth, sendWebResponse, toWebRequest } from '@oidc-rp/node';
import { CookieJar } from '@oidc-rp/reference-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningOidcProvider, startOidcProvider } from './support/oidc-provider';

const SECRET = 'backchannel-interop-client-secret-0123456789';
let op: RunningOidcProvider;
let app: Server;
let appOrigin: string;
let auth: SessionAuth;
/** The logout tokens the app's back-channel route received, and its answers. */
const received: Array<{ token: string; status: number }> = [];

beforeAll(async () => {
  app = createServer(async (req, res) => {
    const request = await toWebRequest(req);
    const { pathname } = new URL(request.url);
    const token = pathname === '/auth/backchannel-logout' ? new URLSearchParams(await request.clone().text()).get('logout_token') : null;
    let response = await auth.handle(request);
    if (!response && pathname === '/state') {
      const { session } = await auth.getSession(request, { refresh: false });
      response = Response.json({ signedIn: session !== undefined, sid: session?.user.sid ?? null, csrfToken: session?.csrfToken ?? null });
    }
    if (token !== null) received.push({ token, status: response?.status ?? 0 });
    await sendWebResponse(res, response ?? new Response('not found', { status: 404 }));
  });
  app.listen(0, '127.0.0.1');
  await once(app, 'listening');
  appOrigin = `http://127.0.0.1:${(app.address() as { port: number }).port}`;
  op = await startOidcProvider(
    [
      {
        client_id: 'bcl-web',
        client_secret: SECRET,
        token_endpoint_auth_method: 'client_secret_basic',
        redirect_uris: [`${appOrigin}/auth/callback`],
        post_logout_redirect_uris: [`${appOrigin}/`],
        grant_types: ['authorization_code', 'refresh_token'],
        backchannel_logout_uri: `${appOrigin}/auth/backchannel-logout`,
        backchannel_logout_session_required: true,
      },
    ],
    { backchannelLogout: true },
  );
  const client = createNodeClient({
    issuer: op.issuer,
    clientId: 'bcl-web',
    clientSecret: SECRET,
    redirectUri: `${appOrigin}/auth/callback`,
    scope: 'openid profile',
    cookieSecret: 'bcl-interop-tx-Qm7vK2pZr9XwL4nTb8HcJ5sEy3UdF6aG',
  });
  auth = createSessionAuth({
    client,
    secret: 'bcl-interop-session-Wt4Nx8qLc2VhR7mKp9ZbS3jDf6GyA5eU',
    store: new MemorySessionStore(),
    backchannelLogout: { clientId: 'bcl-web' },
  });
});
afterAll(async () => {
  app?.closeAllConnections();
  app?.close();
  await op?.close();
});

/** An app session: the login route, the person at oidc-provider (cookies in `browser`), the callback. */
async function signIn(browser: CookieJar): Promise<CookieJar> {
  const appCookies = new CookieJar();
  const get = async (path: string) => {
    const url = new URL(path, appOrigin);
    const response = await fetch(url, { headers: { cookie: appCookies.header(url) ?? '' }, redirect: 'manual' });
    appCookies.store(url, response);
    return response;
  };
  const login = await get('/auth/login');
  const callback = await op.signIn(login.headers.get('location') as string, browser);
  if (callback.type !== 'redirect') throw new Error('expected a redirect to the callback');
  const target = new URL(callback.location);
  expect((await get(target.pathname + target.search)).status).toBe(303);
  return appCookies;
}

async function state(cookies: CookieJar): Promise<{ signedIn: boolean; sid: string | null; csrfToken: string | null }> {
  const url = new URL('/state', appOrigin);
  return (await (await fetch(url, { headers: { cookie: cookies.header(url) ?? '' } })).json()) as never;
}

describe('back-channel logout with oidc-provider', () => {
  it('the provider\u2019s logout token ends every app session of the provider session it names', async () => {
    const browser = new CookieJar();
    const first = await signIn(browser);
    const second = await signIn(browser); // SSO at the provider: the same provider session
    const other = await signIn(new CookieJar()); // another provider session
    const { sid, csrfToken } = await state(first);
    expect(sid).toEqual(expect.any(String));
    expect((await state(second)).sid).toBe(sid);
    expect((await state(other)).sid).not.toBe(sid);

    // The user signs out of the first app session: the app sends them to the provider's end_session.
    const url = new URL('/auth/logout', appOrigin);
    const logout = await fetch(url, {
      method: 'POST',
      headers: { cookie: first.header(url) ?? '', 'content-type': 'application/x-www-form-urlencoded', origin: appOrigin },
      body: new URLSearchParams({ csrf_token: csrfToken as string }),
      redirect: 'manual',
    });
    expect(logout.status).toBe(303);
    const endSession = logout.headers.get('location') as string;
    expect(endSession.startsWith(op.issuer)).toBe(true);
    const back = await op.signOut(endSession, browser);
    expect(back).toBe(`${appOrigin}/`);

    // oidc-provider awaited the delivery before redirecting: the token came, was accepted, and ended the session.
    expect(received).toHaveLength(1);
    expect(received[0]?.status).toBe(200);
    const [header, payload] = (received[0]?.token ?? '').split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
    expect(header).toMatchObject({ typ: 'logout+jwt' });
    expect(payload).toMatchObject({ iss: op.issuer, aud: 'bcl-web', sub: 'alice', sid, events: { 'http://schemas.openid.net/event/backchannel-logout': {} } });
    expect(await state(second)).toMatchObject({ signedIn: false });
    expect(await state(other)).toMatchObject({ signedIn: true });

    // The same token again (a replay) is refused, and ends nothing more.
    const replay = await fetch(`${appOrigin}/auth/backchannel-logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logout_token: received[0]?.token ?? '' }),
    });
    expect(replay.status).toBe(400);
    expect(await state(other)).toMatchObject({ signedIn: true });
  });
});
