/**
 * The example app: a user logs in with the `web` client (code flow + PKCE, response by
 * form_post) through the session layer of `@oidc-rp/node` (a sealed, rolling session cookie,
 * refreshed on read), and `/api/data` shows a client-credentials token of the `service`
 * client served from the SDK's cache. `/api/me` is a small protected API (`@oidc-rp/node/api`):
 * the access token is introspected at the provider and its checked claims returned; the SPA
 * calls it, and `/api/data` calls it with the service's token.
 */
import { MemorySessionStore, type NodeClient, createNodeClient, createSessionAuth, isOidcError } from '@oidc-rp/node';
import {
  type AccessTokenVariables,
  clientSecretBasic,
  discovery,
  honoAccessToken,
  introspectionVerifier,
  protectedResourceMetadata,
  requireAccessToken,
} from '@oidc-rp/node/api';
import { Hono } from 'hono';
import { apiDataPage, homePage, notFoundPage, signedOutMessage } from './pages';

export interface ExampleConfig {
  /** Issuer of the provider (found by discovery). */
  issuer: string;
  /** Where this app is reached; its `/callback` must be registered for the web client. */
  baseUrl: string;
  /** >= 32 random characters; seals the login transaction and the session cookies. */
  cookieSecret: string;
  web: { clientId: string; clientSecret: string };
  service: { clientId: string; clientSecret: string; scope: string };
  /** The single-page app allowed to call `/api/me` from the browser (CORS). Default `http://127.0.0.1:5173`. */
  spaOrigin?: string;
}

export function createExampleApp(config: ExampleConfig) {
  const web: NodeClient = createNodeClient({
    issuer: config.issuer,
    clientId: config.web.clientId,
    clientSecret: config.web.clientSecret,
    redirectUri: new URL('/callback', config.baseUrl).href,
    scope: 'openid profile email offline_access',
    responseMode: 'form_post',
    cookieSecret: config.cookieSecret,
    grants: ['authorization_code', 'refresh_token'],
  });
  // The demo registers /callback (not the default /auth/callback), so the routes are named here.
  // Back-channel logout: the demo registers {baseUrl}/auth/backchannel-logout for the web client,
  // so a logout at the provider (e.g. from the SPA, in the same provider session) ends the
  // session here too. Sessions live in a store (one process: memory) so that they can be ended.
  const auth = createSessionAuth({
    client: web,
    secret: config.cookieSecret,
    baseUrl: config.baseUrl,
    routes: { login: '/login', callback: '/callback', logout: '/logout' },
    store: new MemorySessionStore(),
    backchannelLogout: { clientId: config.web.clientId },
  });

  // Counts the service client's token requests, to show that /api/data reuses the cached token.
  let tokenRequests = 0;
  const service = createNodeClient({
    issuer: config.issuer,
    clientId: config.service.clientId,
    clientSecret: config.service.clientSecret,
    grants: ['client_credentials'],
    fetch: (input, init) => {
      if (init?.method === 'POST') tokenRequests++;
      return fetch(input, init);
    },
  });

  // The protected API: tokens issued for `{baseUrl}/api` (RFC 8707), checked by introspection as
  // the web client (the demo tenant lets it introspect tokens for this audience).
  const apiResource = `${new URL(config.baseUrl).origin}/api`;
  const verifier = introspectionVerifier({
    provider: discovery(config.issuer),
    client: { clientId: config.web.clientId },
    clientAuth: clientSecretBasic(config.web.clientSecret),
    audience: apiResource,
  });
  const resource = protectedResourceMetadata({ resource: apiResource, authorizationServers: [config.issuer], scopesSupported: ['openid', 'profile', 'api.read'], verifier });
  // cors: the SPA (another origin) may call the API; its preflight is answered, WWW-Authenticate and DPoP-Nonce exposed.
  const guard = requireAccessToken({
    verifier,
    origin: new URL(config.baseUrl).origin,
    resourceMetadata: resource.url,
    cors: { origins: [config.spaOrigin ?? 'http://127.0.0.1:5173'] },
  });

  const app = new Hono<{ Variables: AccessTokenVariables }>();

  app.get(resource.path, () => resource.handle());
  // Every method, so the guard answers the browser's OPTIONS preflight too.
  app.use('/api/me', honoAccessToken(guard));
  app.get('/api/me', (c) => {
    const { claims, scheme, scopes } = c.get('accessToken');
    return c.json({
      checkedBy: 'introspection',
      scheme,
      sub: claims.sub,
      client_id: claims.client_id ?? null,
      aud: claims.aud,
      scopes,
      expiresAt: new Date(claims.exp * 1000).toISOString(),
    });
  });

  // /login, /callback and /logout.
  app.use(async (c, next) => (await auth.handle(c.req.raw)) ?? next());

  app.get('/', async (c) => {
    const { session, reason, error, cookies } = await auth.getSession(c.req.raw);
    const notice = c.req.query('refreshed') !== undefined ? 'refreshed' : undefined;
    const page = await homePage({ session, notice, signedOut: signedOutMessage(reason), refreshError: error?.message });
    return auth.applyCookies(await c.html(page), cookies);
  });

  // The refresh button: a POST with the session's csrf token, like the logout.
  app.post('/refresh', async (c) => {
    const { session } = await auth.getSession(c.req.raw, { refresh: false });
    if (!session) return c.redirect('/', 303);
    if (!(await auth.verifyCsrf(c.req.raw, session))) return c.text('Refused: not a request of this app.', 403);
    try {
      const { cookies } = await auth.getAccessToken(c.req.raw, { forceRefresh: true });
      return auth.applyCookies(c.redirect('/?refreshed', 303), cookies);
    } catch (error) {
      if (!isOidcError(error)) throw error;
      return c.redirect('/', 303); // the home page says why the session ended
    }
  });

  // The "API (client credentials)" page: a browser (Accept: text/html) gets a page with the way
  // back; programs, and ?format=json, the JSON.
  app.get('/api/data', async (c) => {
    const wantsPage = c.req.query('format') !== 'json' && /\btext\/html\b/.test(c.req.header('accept') ?? '');
    const data = await apiData();
    if (!wantsPage) return c.json(data.body, data.status);
    const { session } = await auth.getSession(c.req.raw, { refresh: false });
    return c.html(await apiDataPage(data.body, session), data.status);
  });

  async function apiData(): Promise<{ status: 200 | 502; body: Record<string, unknown> }> {
    try {
      const token = await service.getClientCredentialsToken({ scope: config.service.scope, resource: apiResource });
      // This app's own protected API, called with the token (in-process, through the same guard).
      const api = await app.fetch(new Request(new URL('/api/me', config.baseUrl), { headers: { Authorization: `Bearer ${token.accessToken}` } }));
      return {
        status: 200,
        body: {
          client: config.service.clientId,
          requestedScope: config.service.scope,
          grantedScope: token.scope ?? null, // only when the provider states it
          expiresAt: token.expiresAt === undefined ? null : new Date(token.expiresAt * 1000).toISOString(),
          // A fingerprint, never the token: equal fingerprints across calls mean the cached token was reused.
          tokenFingerprint: await fingerprint(token.accessToken),
          tokenRequestsSoFar: tokenRequests,
          protectedApi: { status: api.status, body: await api.json() },
        },
      };
    } catch (error) {
      if (!isOidcError(error)) throw error;
      return { status: 502, body: { error: error.code, message: error.message } };
    }
  }

  app.notFound(async (c) => {
    const { session } = await auth.getSession(c.req.raw, { refresh: false });
    return c.html(await notFoundPage(c.req.path, session), 404);
  });

  return app;
}

async function fingerprint(token: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
  return Buffer.from(digest).subarray(0, 6).toString('hex');
}
