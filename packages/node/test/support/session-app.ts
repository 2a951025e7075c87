// A small app on node:http, through the Express-style adapter (toWebRequest / sendWebResponse),
// with the session layer in front: what a user's server looks like. Its auth is swappable so one
// file can try several configurations against one reference server. And a browser-like agent:
// manual redirects and a cookie jar.
import { type Server, createServer } from 'node:http';
import { once } from 'node:events';
import { type ReferenceServer, type ServerConfig, type ServerControl, createReferenceServer, demoConfig } from '@oidc-rp/reference-server';
import { CookieJar, completeLogin } from '@oidc-rp/reference-server/testing';
import { developmentKeysFor } from '../../../../test-support/development-keys';
import {
  type DpopHandle,
  type NodeClient,
  type SessionAuth,
  type SessionAuthOptions,
  createNodeClient,
  createSessionAuth,
  sendWebResponse,
  serviceProvider,
  toWebRequest,
} from '../../src/index';
import { outlastClientKeepAlive } from '../../../../test-support/keep-alive';

export const SECRET = 'test-session-mKElDbvyoNPboWVDR0uM6evz2RetW4oy';

export interface SessionWorld {
  appOrigin: string;
  issuer: string;
  client: NodeClient;
  /** Every refresh token the provider issued to the web client, newest last. */
  refreshTokens: string[];
  /** Requests the provider served: `count('POST', '/oauth/token')` counts refreshes. */
  count(method: string, suffix: string): number;
  /** While true, the app's token requests to /oauth/token fail as if the provider were unreachable. */
  providerDown: boolean;
  /**
   * Holds the app's next token request (to /oauth/token) after the provider answered it, until
   * `release()`: `reached` resolves when one is held, so a test can act while a refresh waits.
   */
  holdTokenResponses(): { reached: Promise<void>; release(): void };
  /** Runtime control of the provider (faults, clients, the journal). */
  control: ServerControl;
  /** The in-process provider: its journal (`provider.requests(match)`) and control API. */
  provider: ReferenceServer;
  /** Replaces the app's session layer. */
  use(options?: Partial<SessionAuthOptions>): SessionAuth;
  close(): Promise<void>;
}

/** The demo tenant with a short access token, the web client registered for `appOrigin`, and users with big claims. */
export function sessionServerConfig(appOrigin: string, accessTokenLifetime: number): ServerConfig {
  const config = demoConfig();
  const tenant = config.tenants[0];
  const web = tenant?.clients?.find((c) => c.client_id === 'web');
  if (!tenant || !web) throw new Error('demoConfig() no longer has the web client');
  tenant.lifetimes = { ...tenant.lifetimes, access_token: accessTokenLifetime };
  web.redirect_uris = [`${appOrigin}/auth/callback`];
  web.post_logout_redirect_uris = [`${appOrigin}/`];
  web.skip_consent = true;
  const picture = (length: number) => `https://pictures.example.com/${'p'.repeat(length)}`;
  tenant.users?.push(
    { username: 'bigclaims', password: 'wonderland', claims: { sub: 'bigclaims', name: 'Big Claims', picture: picture(2000) } },
    { username: 'hugeclaims', password: 'wonderland', claims: { sub: 'hugeclaims', name: 'Huge Claims', picture: picture(6000) } },
    // About 3 KB of profile claims: too much for a cookie while the claims were sealed twice.
    {
      username: 'claims3k',
      password: 'wonderland',
      claims: { sub: 'claims3k', name: 'Three Kilobytes', picture: picture(1000), profile: picture(1000), website: picture(1000) },
    },
  );
  return config;
}

export async function startSessionWorld({
  accessTokenLifetime = 120,
  dpop,
  resources,
}: { accessTokenLifetime?: number; dpop?: DpopHandle; resources?: { client: string[]; provider: string[] } } = {}): Promise<SessionWorld> {
  let auth: SessionAuth | undefined;
  const app: Server = createServer(async (req, res) => {
    try {
      const request = await toWebRequest(req);
      const response = (await auth?.handle(request)) ?? (await route(auth as SessionAuth, request));
      await sendWebResponse(res, response);
    } catch (error) {
      res.statusCode = 500;
      res.end(String(error));
    }
  });
  outlastClientKeepAlive(app);
  app.listen(0, '127.0.0.1');
  await once(app, 'listening');
  const address = app.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  const appOrigin = `http://127.0.0.1:${address.port}`;

  const requests: Array<{ method: string; path: string }> = [];
  const config = sessionServerConfig(appOrigin, accessTokenLifetime);
  if (resources) {
    // JWT access tokens, so that the APIs of a test can check their audience.
    config.tenants[0]!.access_token_format = 'jwt';
    config.tenants[0]!.clients!.find((c) => c.client_id === 'web')!.resources = resources.provider;
  }
  const server = await createReferenceServer(config, {
    onRequest: ({ method, path }) => requests.push({ method, path }),
    logger: false,
    developmentKeys: developmentKeysFor(config),
  });
  const listening = await server.listen({ port: 0, host: '127.0.0.1' });
  const issuer = `${listening.origin}/demo`;

  const refreshTokens: string[] = [];
  const state: { providerDown: boolean; hold?: { reached: () => void; released: Promise<void> } } = { providerDown: false };
  const client = createNodeClient({
    provider: serviceProvider(issuer),
    clientId: 'web',
    clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
    redirectUri: `${appOrigin}/auth/callback`,
    scope: 'openid profile email offline_access',
    cookieSecret: 'test-tx-oFp2bAbXNweB5DkDlIp8K5Ci-dGM7BII',
    ...(dpop ? { dpop } : {}),
    ...(resources ? { resources: resources.client } : {}),
    fetch: async (input, init) => {
      if (state.providerDown && String(input).endsWith('/oauth/token')) throw new TypeError('fetch failed');
      const response = await fetch(input, init);
      const hold = String(input).endsWith('/oauth/token') ? state.hold : undefined;
      if (hold) {
        state.hold = undefined;
        hold.reached();
        await hold.released;
      }
      if (response.ok && /\/o(auth|idc)\/token$/.test(String(input))) {
        const body = (await response.clone().json()) as { refresh_token?: string };
        if (body.refresh_token) refreshTokens.push(body.refresh_token);
      }
      return response;
    },
  });

  return {
    appOrigin,
    issuer,
    client,
    refreshTokens,
    get providerDown() {
      return state.providerDown;
    },
    set providerDown(down: boolean) {
      state.providerDown = down;
    },
    holdTokenResponses() {
      let reached: () => void = () => undefined;
      let release: () => void = () => undefined;
      const reachedPromise = new Promise<void>((resolve) => {
        reached = resolve;
      });
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      state.hold = { reached, released };
      return { reached: reachedPromise, release };
    },
    provider: server,
    count: (method, suffix) => requests.filter((r) => r.method === method && r.path.endsWith(suffix)).length,
    control: server.control,
    use(options = {}) {
      auth = createSessionAuth({ client, secret: SECRET, ...options });
      return auth;
    },
    async close() {
      app.closeAllConnections();
      app.close();
      await listening.close();
    },
  };
}

/** The app's own routes behind the auth routes. */
async function route(auth: SessionAuth, request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  if (pathname === '/me') {
    return auth.requiresAuth((_request, session) =>
      Response.json({
        user: session.user,
        accessToken: session.accessToken,
        accessTokenExpiresAt: session.accessTokenExpiresAt ?? null,
        expiresAt: session.expiresAt,
        csrfToken: session.csrfToken,
        id: session.id,
      }),
    )(request);
  }
  if (pathname === '/api') {
    // Calls an API (`?url=`, e.g. the provider's userinfo) with the session's token, as an app calls its own.
    return auth.requiresAuth(async (_request, session) => {
      const api = await auth.protectedResourceRequest(session, new URL(request.url).searchParams.get('url') as string);
      return Response.json({ status: api.status, tokenType: session.tokenType, body: api.ok ? await api.json() : null });
    })(request);
  }
  if (pathname === '/state') {
    const { session, reason, error, cookies } = await auth.getSession(request);
    return auth.applyCookies(Response.json({ signedIn: session !== undefined, reason: reason ?? null, error: error?.code ?? null }), cookies);
  }
  if (pathname === '/with') {
    return auth.withSession((_request, session) => Response.json({ signedIn: session !== undefined }))(request);
  }
  if (pathname === '/server-component') {
    // Headers only, as a Next.js server component reads them: no URL, so no scheme.
    const { session, reason } = await auth.getSession({ get: (name) => request.headers.get(name) }, { refresh: false });
    return Response.json({ signedIn: session !== undefined, sub: session?.user.sub ?? null, reason: reason ?? null });
  }
  if (pathname === '/token') {
    try {
      const { searchParams } = new URL(request.url);
      const forceRefresh = searchParams.has('force');
      const resource = searchParams.get('resource') ?? undefined;
      const { accessToken, cookies } = await auth.getAccessToken(request, { forceRefresh, ...(resource !== undefined ? { resource } : {}) });
      return auth.applyCookies(Response.json({ accessToken }), cookies);
    } catch (error) {
      const { code, error: oauthError } = error as { code?: string; error?: string };
      return Response.json({ error: code, ...(oauthError ? { oauthError } : {}) }, { status: 401 });
    }
  }
  if (pathname === '/call') {
    // Calls `?url=` with the token of the resource it belongs to (resourceRequest).
    try {
      const { response, cookies } = await auth.resourceRequest(request, new URL(request.url).searchParams.get('url') as string);
      return auth.applyCookies(Response.json({ status: response.status, body: response.ok ? await response.json() : null }), cookies);
    } catch (error) {
      return Response.json({ error: (error as { code?: string }).code }, { status: 400 });
    }
  }
  return new Response('not found', { status: 404 });
}

/** A browser stand-in: follows nothing by itself, keeps cookies, sends them back. */
export class Agent {
  readonly jar = new CookieJar();
  constructor(private readonly origin: string) {}

  async request(path: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<Response> {
    const url = new URL(path, this.origin);
    const headers = new Headers(init.headers);
    const cookie = this.jar.header(url);
    if (cookie && !headers.has('cookie')) headers.set('cookie', cookie);
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    this.jar.store(url, response);
    return response;
  }

  /** The Cookie header this agent sends to the app right now. */
  cookieHeader(): string {
    return this.jar.header(new URL(this.origin)) ?? '';
  }

  async json<T = Record<string, unknown>>(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: T; response: Response }> {
    const response = await this.request(path, { headers: { accept: 'application/json', ...headers } });
    return { status: response.status, body: (await response.json()) as T, response };
  }

  /** Logs in through the real login form; returns the callback's response (a 303 to returnTo). */
  async logIn({ username = 'alice', returnTo }: { username?: string; returnTo?: string } = {}): Promise<Response> {
    const login = await this.request(returnTo === undefined ? '/auth/login' : `/auth/login?returnTo=${encodeURIComponent(returnTo)}`);
    if (login.status !== 302) throw new Error(`login answered ${login.status}`);
    const result = await completeLogin(login.headers.get('location') as string, { username, password: 'wonderland' });
    if (result.type !== 'redirect') throw new Error(`expected a redirect to the callback, got ${result.type}`);
    const target = new URL(result.location);
    return this.request(target.pathname + target.search);
  }
}
