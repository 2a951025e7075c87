// Back-channel logout over real HTTP: the reference server (the provider that logs users in and
// sends logout tokens), two app instances on node:http each with its own session layer (as two
// processes of a fleet would be), and a JWKS the apps trust that also holds a test key, so a test
// can sign logout tokens of its own (well-formed ones and attacks) besides the provider's; and a
// Redis server with a connected client, for the session stores a fleet shares.
import { type Server, createServer } from 'node:http';
import { once } from 'node:events';
import { type JWK, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { type ReferenceServer, type ServerConfig, createReferenceServer, demoConfig } from '@oidc-rp/reference-server';
import { type RedisClientType, createClient } from 'redis';
import { startRedisServer } from '../../../../test-support/redis-server';
import { type NodeClientOptions, type SessionAuth, type SessionAuthOptions, createNodeClient, createSessionAuth, sendWebResponse, serviceProvider, toWebRequest } from '../../src/index';
import { type Agent, SECRET } from './session-app';
import { developmentKeysFor } from '../../../../test-support/development-keys';
import { outlastClientKeepAlive } from '../../../../test-support/keep-alive';

export const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

export interface AppInstance {
  origin: string;
  /** Replaces this instance's session layer. */
  use(options?: Partial<SessionAuthOptions>): SessionAuth;
}

export interface TestKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

export interface BackchannelWorld {
  issuer: string;
  provider: ReferenceServer;
  apps: [AppInstance, AppInstance];
  /** A key the apps' JWKS publishes beside the provider's. */
  trusted: TestKey;
  /** A key nobody publishes. */
  stranger: TestKey;
  /** Signs a logout token with `key` (default `trusted`); undefined claims are left out. */
  sign(claims: Record<string, unknown>, options?: { key?: TestKey; header?: Record<string, unknown> }): Promise<string>;
  /** Claims of a valid logout token for `sid`/`sub` (a fresh jti each call). */
  claims(what: { sid?: string; sub?: string }, overrides?: Record<string, unknown>): Record<string, unknown>;
  /** POSTs a logout token to an app's back-channel route. */
  post(app: AppInstance, body: string, contentType?: string): Promise<Response>;
  /** A client of this world's own Redis server (for `RedisSessionStore`s; give each test its key prefix). */
  redis: RedisClientType;
  close(): Promise<void>;
}

/** What an app's `/state` route answers about the session of a request's cookies. */
export interface SessionState {
  signedIn: boolean;
  reason: string | null;
  sid: string | null;
  idToken: string | null;
}

/** The session state of `agent`'s cookies as `app` reads them (another instance reads the same cookie). */
export async function stateAt(app: AppInstance, agent: Agent): Promise<SessionState> {
  const response = await fetch(`${app.origin}/state`, { headers: { cookie: agent.cookieHeader(), accept: 'application/json' } });
  return (await response.json()) as SessionState;
}

async function testKey(kid: string): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

async function listen(server: Server): Promise<string> {
  outlastClientKeepAlive(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}

/** The app's own route behind the auth routes: whether the request has a session. */
async function route(auth: SessionAuth, request: Request): Promise<Response> {
  if (new URL(request.url).pathname !== '/state') return new Response('not found', { status: 404 });
  const { session, reason, cookies } = await auth.getSession(request);
  return auth.applyCookies(
    Response.json({ signedIn: session !== undefined, reason: reason ?? null, sid: session?.user.sid ?? null, idToken: session?.idToken ?? null }),
    cookies,
  );
}

/** Registers the apps at the provider: their callbacks, and `backchannel` for the web client. */
function providerConfig(origins: string[], configure?: (config: ServerConfig, origins: string[]) => void): ServerConfig {
  const config = demoConfig();
  const web = config.tenants[0]?.clients?.find((c) => c.client_id === 'web');
  if (!web) throw new Error('demoConfig() no longer has the web client');
  web.redirect_uris = origins.map((o) => `${o}/auth/callback`);
  web.post_logout_redirect_uris = origins.map((o) => `${o}/`);
  web.skip_consent = true;
  // A second user with the password the test agent types.
  config.tenants[0]?.users?.push({ username: 'carol', password: 'wonderland', claims: { name: 'Carol' } });
  configure?.(config, origins);
  return config;
}

export async function startBackchannelWorld(
  configure?: (config: ServerConfig, origins: string[]) => void,
  /** Options of each app instance's client (by index), beside the world's. */
  clientOptions: (index: number) => Partial<NodeClientOptions> = () => ({}),
): Promise<BackchannelWorld> {
  const [trusted, stranger, redisServer] = await Promise.all([testKey('trusted-test-key'), testKey('stranger-key'), startRedisServer()]);
  const redis: RedisClientType = createClient({ url: redisServer.url, disableOfflineQueue: true });
  redis.on('error', () => undefined);
  await redis.connect();
  const servers: Server[] = [];
  const auths: Array<SessionAuth | undefined> = [undefined, undefined];
  const origins: string[] = [];
  for (const index of [0, 1]) {
    const server = createServer(async (req, res) => {
      try {
        const auth = auths[index] as SessionAuth;
        const request = await toWebRequest(req);
        await sendWebResponse(res, (await auth.handle(request)) ?? (await route(auth, request)));
      } catch (error) {
        res.statusCode = 500;
        res.end(String(error));
      }
    });
    servers.push(server);
    origins.push(await listen(server));
  }
  const config = providerConfig(origins, configure);
  const provider = await createReferenceServer(config, { logger: false, developmentKeys: developmentKeysFor(config) });
  const listening = await provider.listen({ port: 0, host: '127.0.0.1' });
  const issuer = `${listening.origin}/demo`;

  // The apps' JWKS: the provider's keys as they are now, and the trusted test key.
  const jwks = createServer(async (_req, res) => {
    const upstream = (await (await fetch(`${issuer}/oidc/jwks`)).json()) as { keys: JWK[] };
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [...upstream.keys, trusted.jwk] }));
  });
  const jwksUri = `${await listen(jwks)}/jwks`;
  servers.push(jwks);

  const apps = origins.map((origin, index): AppInstance => {
    const client = createNodeClient({
      provider: { ...serviceProvider(issuer), jwks_uri: jwksUri },
      clientId: 'web',
      clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
      redirectUri: `${origin}/auth/callback`,
      scope: 'openid profile email offline_access',
      cookieSecret: 'test-tx-oFp2bAbXNweB5DkDlIp8K5Ci-dGM7BII',
      ...clientOptions(index),
    });
    return {
      origin,
      use(options = {}) {
        const auth = createSessionAuth({ client, secret: SECRET, ...options });
        auths[index] = auth;
        return auth;
      },
    };
  }) as [AppInstance, AppInstance];

  let jtis = 0;
  return {
    issuer,
    provider,
    apps,
    trusted,
    stranger,
    sign(claims, { key = trusted, header = {} } = {}) {
      const payload = Object.fromEntries(Object.entries(claims).filter(([, value]) => value !== undefined));
      return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'logout+jwt', ...header }).sign(key.privateKey);
    },
    claims(what, overrides = {}) {
      const now = Math.floor(Date.now() / 1000);
      return { iss: issuer, aud: 'web', iat: now, exp: now + 120, jti: `test-jti-${++jtis}-${now}`, events: { [EVENT]: {} }, ...what, ...overrides };
    },
    post(app, body, contentType = 'application/x-www-form-urlencoded') {
      return fetch(`${app.origin}/auth/backchannel-logout`, { method: 'POST', headers: { 'content-type': contentType }, body });
    },
    redis,
    async close() {
      for (const server of servers) {
        server.closeAllConnections();
        server.close();
      }
      redis.destroy();
      await Promise.all([listening.close(), redisServer.stop()]);
    },
  };
}
