/**
 * An app on 127.0.0.1 (port 0) built on @oidc-rp/node's session layer, and the person using it:
 * the app answers its session routes (login, callback, logout, post-logout, back-channel
 * logout) and `/state` (signed in or not, and the session's ID token); the person keeps the
 * app's cookies and the provider's apart, signs in on the provider's real forms and logs out
 * through the app. Every answer of the back-channel route is recorded.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { sendWebResponse, toWebRequest, type SessionAuth } from '@oidc-rp/node';
import { CookieJar, completeLogin } from '@oidc-rp/reference-server/testing';

/** One answer of the app's back-channel logout route. */
export interface BackchannelAnswer {
  status: number;
  cacheControl: string | null;
  body: string;
}

export interface SessionApp {
  origin: string;
  /** The app's cookies (the person's browser, for the app's origin). */
  appCookies: CookieJar;
  /** The provider's cookies (its sign-in session, kept for the logout). */
  providerCookies: CookieJar;
  /** What the back-channel route answered, in order. */
  backchannelAnswers: BackchannelAnswer[];
  /** A GET to the app with its cookies, redirects not followed. */
  get(path: string): Promise<Response>;
  /** The app's login route, the provider's forms, the callback: the callback's answer. */
  signIn(): Promise<Response>;
  /** Whether the app has a session for this browser, and its ID token. */
  state(): Promise<{ signedIn: boolean; idToken: string | null }>;
  /** The app's logout (GET: the confirmation form, then its POST): the app's redirect. */
  logout(): Promise<Response>;
  close(): void;
}

const BACKCHANNEL_PATH = '/auth/backchannel-logout';

/**
 * Starts the app; `setup` gets its origin (to register the client's URIs) and returns the session layer.
 *
 * @example
 * const app = await startSessionApp(async (origin) => createSessionAuth({ client: makeClient(origin), secret, store }));
 * await app.signIn();
 */
export async function startSessionApp(setup: (origin: string) => Promise<SessionAuth>): Promise<SessionApp> {
  let auth: SessionAuth | undefined;
  const backchannelAnswers: BackchannelAnswer[] = [];
  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const request = await toWebRequest(req);
    const { pathname } = new URL(request.url);
    let response = await (auth as SessionAuth).handle(request);
    if (response && pathname === BACKCHANNEL_PATH) {
      backchannelAnswers.push({ status: response.status, cacheControl: response.headers.get('cache-control'), body: await response.clone().text() });
    }
    if (!response) {
      const { session } = await (auth as SessionAuth).getSession(request, { refresh: false });
      response = Response.json({ signedIn: session !== undefined, idToken: session?.idToken ?? null });
    }
    await sendWebResponse(res, response);
  }
  const server = createServer((req, res) => void answer(req, res).catch((error: unknown) => res.writeHead(500).end(String(error))));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const close = () => {
    server.closeAllConnections();
    server.close();
  };
  try {
    auth = await setup(origin);
  } catch (error) {
    close();
    throw error;
  }

  const appCookies = new CookieJar();
  const providerCookies = new CookieJar();
  const send = async (path: string, init: RequestInit = {}) => {
    const url = new URL(path, origin);
    const headers = new Headers(init.headers);
    headers.set('cookie', appCookies.header(url) ?? '');
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    appCookies.store(url, response);
    return response;
  };
  return {
    origin,
    appCookies,
    providerCookies,
    backchannelAnswers,
    get: (path) => send(path),
    async signIn() {
      const login = await send('/auth/login');
      const result = await completeLogin(login.headers.get('location') as string, { cookies: providerCookies });
      if (result.type === 'redirect') return send(result.location);
      return send(result.action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: result.body });
    },
    async state() {
      return (await (await send('/state')).json()) as { signedIn: boolean; idToken: string | null };
    },
    async logout() {
      const confirm = await (await send('/auth/logout')).text();
      const csrf = /name="csrf_token" value="([^"]+)"/.exec(confirm)?.[1];
      if (!csrf) throw new Error('the logout page has no csrf_token form');
      return send('/auth/logout', { method: 'POST', headers: { origin, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf_token: csrf }) });
    },
    close,
  };
}
