/**
 * The example app: a user logs in with the `web` client (code flow + PKCE, response by
 * form_post), and `/api/data` shows a client-credentials token of the `service` client
 * served from the SDK's cache.
 */
import { type NodeClient, createNodeClient, isOidcError } from '@oidc-rp/node';
import { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { errorPage, homePage } from './pages';

export interface ExampleConfig {
  /** Issuer of the provider (found by discovery). */
  issuer: string;
  /** Where this app is reached; its `/callback` must be registered for the web client. */
  baseUrl: string;
  /** >= 32 random characters; seals the login transaction cookie. */
  cookieSecret: string;
  web: { clientId: string; clientSecret: string };
  service: { clientId: string; clientSecret: string; scope: string };
}

interface Session {
  claims: Record<string, unknown>;
  idToken: string | undefined;
}

const SESSION_COOKIE = 'example.sid';

export function createExampleApp(config: ExampleConfig) {
  const secure = new URL(config.baseUrl).protocol === 'https:';
  const web: NodeClient = createNodeClient({
    issuer: config.issuer,
    clientId: config.web.clientId,
    clientSecret: config.web.clientSecret,
    redirectUri: new URL('/callback', config.baseUrl).href,
    scope: 'openid profile email',
    responseMode: 'form_post',
    cookieSecret: config.cookieSecret,
    grants: ['authorization_code'],
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

  // In-memory sessions: enough for an example, not for a fleet.
  const sessions = new Map<string, Session>();
  const sessionOf = (cookie: string | undefined) => (cookie ? sessions.get(cookie) : undefined);

  const app = new Hono();

  app.get('/', (c) => c.html(homePage(sessionOf(getCookie(c, SESSION_COOKIE))?.claims)));

  app.get('/login', (c) => web.handleLogin(c.req.raw));

  app.on(['GET', 'POST'], '/callback', async (c) => {
    try {
      const { tokens, clearCookie } = await web.handleCallback(c.req.raw);
      const id = randomId();
      sessions.set(id, { claims: tokens.claims ?? {}, idToken: tokens.idToken });
      const headers = new Headers({ Location: '/' });
      headers.append('Set-Cookie', clearCookie);
      headers.append('Set-Cookie', `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
      // 303: the browser follows with a GET, so a reload does not re-post the response.
      return new Response(null, { status: 303, headers });
    } catch (error) {
      if (!isOidcError(error)) throw error;
      return c.html(errorPage(error.code, error.message), 400);
    }
  });

  app.get('/logout', async (c) => {
    const id = getCookie(c, SESSION_COOKIE);
    const session = sessionOf(id);
    if (id) sessions.delete(id);
    const endSession = await web.endSessionUrl({
      ...(session?.idToken ? { idTokenHint: session.idToken } : {}),
      postLogoutRedirectUri: new URL('/', config.baseUrl).href,
    });
    const headers = new Headers({ Location: endSession?.href ?? '/' });
    headers.append('Set-Cookie', `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
    return new Response(null, { status: 302, headers });
  });

  app.get('/api/data', async (c) => {
    try {
      const token = await service.getClientCredentialsToken({ scope: config.service.scope });
      return c.json({
        client: config.service.clientId,
        requestedScope: config.service.scope,
        grantedScope: token.scope ?? null, // only when the provider states it
        expiresAt: token.expiresAt === undefined ? null : new Date(token.expiresAt * 1000).toISOString(),
        // A fingerprint, never the token: equal fingerprints across calls mean the cached token was reused.
        tokenFingerprint: await fingerprint(token.accessToken),
        tokenRequestsSoFar: tokenRequests,
      });
    } catch (error) {
      if (!isOidcError(error)) throw error;
      return c.json({ error: error.code, message: error.message }, 502);
    }
  });

  return app;
}

function randomId(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
}

async function fingerprint(token: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
  return Buffer.from(digest).subarray(0, 6).toString('hex');
}
