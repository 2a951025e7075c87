// DPoP (RFC 9449) through createNodeClient against the reference server over real HTTP: client
// credentials with DPoP required and server nonces (one retry), the downgrade to Bearer refused,
// a login whose code is bound by dpop_jkt, refresh keeping the binding, userinfo with the
// DPoP scheme, and the token cache never serving a token bound to one key to another key.
import { demoConfig } from '@oidc-rp/reference-server';
import { type RedisClientType, createClient } from 'redis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type DpopHandle,
  MemoryTokenCache,
  type NodeClientOptions,
  OidcError,
  TokenEndpointError,
  createNodeClient,
  dpop,
  serviceProvider,
} from '../src/index';
import { RedisTokenCache } from '../src/redis/index';
import { type RunningRedis, startRedisServer } from '../../../test-support/redis-server';
import { type RunningServer, loginThroughForms, serviceClientOptions, startReferenceServer } from './support/reference-server';

let server: RunningServer;
let service: NodeClientOptions;
let web: NodeClientOptions;

beforeAll(async () => {
  const config = demoConfig();
  const tenant = config.tenants[0];
  if (!tenant) throw new Error('the demo config has no tenant');
  tenant.dpop_nonce = true;
  tenant.access_token_format = 'jwt'; // so a test can read the binding (cnf.jkt) from the token
  server = await startReferenceServer(config);
  service = serviceClientOptions(server);
  web = {
    provider: serviceProvider(server.issuer),
    clientId: 'web',
    clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
    redirectUri: 'http://127.0.0.1:3000/callback',
    scope: 'openid profile email offline_access',
  };
  await server.control.clients.update('service', { require_dpop: true });
});
afterAll(() => server.close());
afterEach(() => server.control.faults.clear());

const tokenRequests = () => server.count('POST', '/oauth/token');

/** The `cnf.jkt` of a JWT access token: the key the server bound it to. */
function boundKey(accessToken: string): unknown {
  const payload = JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString('utf8'));
  return payload.cnf?.jkt;
}

/** A key configured as a private JWK, imported as the README shows: what every instance of a fleet does. */
async function configuredHandle(privateJwk: JsonWebKey): Promise<DpopHandle> {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256' };
  const { d: _d, key_ops: _ops, ext: _ext, ...publicJwk } = privateJwk;
  const privateKey = await crypto.subtle.importKey('jwk', privateJwk, algorithm, false, ['sign']);
  const publicKey = await crypto.subtle.importKey('jwk', publicJwk, algorithm, true, ['verify']);
  return dpop({ keyPair: { privateKey, publicKey } });
}

async function newPrivateJwk(): Promise<JsonWebKey> {
  const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  return crypto.subtle.exportKey('jwk', pair.privateKey);
}

describe('client credentials with DPoP required and server nonces', () => {
  it('gets a DPoP-bound token: one nonce retry, then the nonce is reused', async () => {
    const handle = await dpop();
    const client = createNodeClient({ ...service, dpop: handle });
    const before = tokenRequests();
    const tokens = await client.getClientCredentialsToken({ scope: 'api.read' });
    expect(tokens.tokenType).toBe('DPoP');
    expect(boundKey(tokens.accessToken)).toBe(handle.jkt);
    expect(tokenRequests() - before).toBe(2); // use_dpop_nonce, then the retry with the nonce

    const other = await client.getClientCredentialsToken({ scope: 'api.write' });
    expect(boundKey(other.accessToken)).toBe(handle.jkt);
    expect(tokenRequests() - before).toBe(3); // the nonce is known now: no second challenge
  });

  it('without a DPoP key the server refuses the client (DPoP required)', async () => {
    const client = createNodeClient(service);
    const error = await client.getClientCredentialsToken({ scope: 'api.read' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenEndpointError);
    expect((error as TokenEndpointError).error).toBe('invalid_dpop_proof');
  });

  it('a nonce expired mid-session is retried once; a proof reported replayed is an error, not a loop', async () => {
    const handle = await dpop();
    const client = createNodeClient({ ...service, dpop: handle, retry: false });
    await client.getClientCredentialsToken({ scope: 'api.read' });
    await server.control.dpop.expireNonce();
    const before = tokenRequests();
    const tokens = await client.getClientCredentialsToken({ scope: 'api.write' });
    expect(tokens.tokenType).toBe('DPoP');
    expect(tokenRequests() - before).toBe(2);

    await server.control.faults.set('service', 'dpop_proof_replayed', { times: 1 });
    const replayed = await client.getClientCredentialsToken({ scope: 'api.read api.write' }).catch((e: unknown) => e);
    expect((replayed as TokenEndpointError).error).toBe('invalid_dpop_proof');
    // A new proof for the next request passes.
    expect((await client.getClientCredentialsToken({ scope: 'api.read api.write' })).tokenType).toBe('DPoP');
  });

  it('refuses a DPoP request answered with token_type Bearer (a downgrade), and caches nothing', async () => {
    const cache = new MemoryTokenCache();
    const client = createNodeClient({ ...service, dpop: await dpop(), tokenCache: cache });
    await server.control.faults.set('service', 'token_response_token_type_bearer');
    const error = await client.getClientCredentialsToken({ scope: 'api.read' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OidcError);
    expect((error as OidcError).code).toBe('dpop_token_type_mismatch');
    expect(String((error as OidcError).message)).not.toMatch(/eyJ/); // no token in the message
    expect(cache.size).toBe(0);
  });
});

describe('the token cache and DPoP keys', () => {
  it('a shared cache never serves a token bound to one key to a client with another key', async () => {
    const cache = new MemoryTokenCache();
    const [a, b] = await Promise.all([dpop(), dpop()]);
    const clientA = createNodeClient({ ...service, dpop: a, tokenCache: cache });
    const clientB = createNodeClient({ ...service, dpop: b, tokenCache: cache });
    const tokenA = await clientA.getClientCredentialsToken({ scope: 'api.read' });
    const tokenB = await clientB.getClientCredentialsToken({ scope: 'api.read' });
    expect(tokenB.accessToken).not.toBe(tokenA.accessToken);
    expect(boundKey(tokenA.accessToken)).toBe(a.jkt);
    expect(boundKey(tokenB.accessToken)).toBe(b.jkt);
    expect(cache.size).toBe(2);
    // Each is served its own from the cache afterwards.
    const before = tokenRequests();
    expect((await clientA.getClientCredentialsToken({ scope: 'api.read' })).accessToken).toBe(tokenA.accessToken);
    expect((await clientB.getClientCredentialsToken({ scope: 'api.read' })).accessToken).toBe(tokenB.accessToken);
    expect(tokenRequests() - before).toBe(0);
  });

  it('a Bearer entry stored under a DPoP key prefix (a shared custom cache) is not served as DPoP', async () => {
    const handle = await dpop();
    const stored: Array<[string, unknown]> = [];
    const now = Math.floor(Date.now() / 1000);
    const planted = { tokens: { accessToken: 'planted-bearer', tokenType: 'Bearer' as const, expiresAt: now + 3600 }, renewAt: now + 3000, expiresAt: now + 3600 };
    const client = createNodeClient({
      ...service,
      dpop: handle,
      tokenCache: { get: () => planted, set: (key, value) => void stored.push([key, value]), delete: () => undefined },
    });
    const tokens = await client.getClientCredentialsToken({ scope: 'api.read' });
    expect(tokens.accessToken).not.toBe('planted-bearer');
    expect(tokens.tokenType).toBe('DPoP');
    expect(stored[0]?.[0]).toContain(`:dpop:${handle.jkt}:`);
  });

  describe('shared through Redis', () => {
    let redisServer: RunningRedis;
    let redis: RedisClientType;
    const ENCRYPTION_KEY = 'test-cache-key-MYEGpiPA9ZiEutApHg9UoBkJN3LqH2qu';

    beforeAll(async () => {
      redisServer = await startRedisServer();
      redis = createClient({ url: redisServer.url, disableOfflineQueue: true });
      redis.on('error', () => undefined);
      await redis.connect();
    });
    beforeEach(async () => {
      await redis.flushAll();
    });
    afterAll(async () => {
      redis?.destroy();
      await redisServer?.stop();
    });

    it('instances configured with the same key share one bound token; another key gets its own', async () => {
      const jwk = await newPrivateJwk();
      const cache = () => new RedisTokenCache({ encryptionKey: ENCRYPTION_KEY, redis });
      const [one, two, stranger] = await Promise.all([configuredHandle(jwk), configuredHandle(jwk), dpop()]);
      expect(two.jkt).toBe(one.jkt);
      const instanceOne = createNodeClient({ ...service, dpop: one, tokenCache: cache() });
      const instanceTwo = createNodeClient({ ...service, dpop: two, tokenCache: cache() });
      const strangerInstance = createNodeClient({ ...service, dpop: stranger, tokenCache: cache() });

      const first = await instanceOne.getClientCredentialsToken({ scope: 'api.read' });
      expect(first.tokenType).toBe('DPoP');
      const before = tokenRequests();
      const shared = await instanceTwo.getClientCredentialsToken({ scope: 'api.read' });
      expect(shared).toEqual(first); // read back from Redis with its type
      expect(tokenRequests() - before).toBe(0);

      const own = await strangerInstance.getClientCredentialsToken({ scope: 'api.read' });
      expect(own.accessToken).not.toBe(first.accessToken);
      expect(boundKey(own.accessToken)).toBe(stranger.jkt);
      // The shared token is bound to the key the second instance holds too.
      expect(boundKey(shared.accessToken)).toBe(two.jkt);
    });

    it('stores a DPoP entry with its type, and refuses a value of another token type', async () => {
      const errors: OidcError[] = [];
      const cache = new RedisTokenCache({ encryptionKey: false, redis, onError: (error) => errors.push(error) });
      const now = Math.floor(Date.now() / 1000);
      const entry = { tokens: { accessToken: 'bound-token', tokenType: 'DPoP' as const, expiresAt: now + 600 }, renewAt: now + 540, expiresAt: now + 600 };
      await cache.set('k-dpop', entry, 600);
      expect(await cache.get('k-dpop')).toEqual(entry);

      // A value rewritten in Redis to another token type is not a cached token.
      const [redisKey] = await redis.keys('*');
      expect(redisKey).toBeDefined();
      const value = JSON.parse((await redis.get(redisKey as string)) as string);
      value.entry.tokens.tokenType = 'N_A';
      await redis.set(redisKey as string, JSON.stringify(value));
      expect(await cache.get('k-dpop')).toBeUndefined();
      expect(errors.map((e) => e.code)).toEqual(['cache_entry_invalid']);
    });
  });
});

describe('a login with DPoP', () => {
  it('sends dpop_jkt, gets bound tokens, keeps the binding on refresh, and calls userinfo with the DPoP scheme', async () => {
    const handle = await dpop();
    const client = createNodeClient({ ...web, dpop: handle });
    const { url, transaction, result } = await loginThroughForms(client);
    expect(url.searchParams.get('dpop_jkt')).toBe(handle.jkt);
    if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);

    const tokens = await client.finishLogin(result.location, transaction);
    expect(tokens.tokenType).toBe('DPoP');
    expect(boundKey(tokens.accessToken)).toBe(handle.jkt);

    const profile = await client.getUserInfo(tokens.accessToken, { expectedSubject: 'alice' });
    expect(profile.sub).toBe('alice');
    // The same token sent as Bearer (a thief without the key) is refused.
    const asBearer = await fetch(`${server.issuer}/oidc/userinfo`, { headers: { Authorization: `Bearer ${tokens.accessToken}` } });
    expect(asBearer.status).toBe(401);

    const refreshed = await client.refresh(tokens.refreshToken as string, { expectedSubject: 'alice' });
    expect(refreshed.tokenType).toBe('DPoP');
    expect(boundKey(refreshed.accessToken)).toBe(handle.jkt);
  });

  it('a code bound by dpop_jkt is refused to a client holding another key (a stolen code)', async () => {
    const handle = await dpop();
    const client = createNodeClient({ ...web, dpop: handle });
    const { transaction, result } = await loginThroughForms(client);
    if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
    const thief = createNodeClient({ ...web, dpop: await dpop() });
    const error = await thief.finishLogin(result.location, transaction).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenEndpointError);
    expect((error as TokenEndpointError).error).toBe('invalid_dpop_proof');
  });

  it('refuses a Bearer answer to the DPoP code exchange (downgrade)', async () => {
    const client = createNodeClient({ ...web, dpop: await dpop() });
    const { transaction, result } = await loginThroughForms(client);
    if (result.type !== 'redirect') throw new Error(`expected a redirect, got ${result.type}`);
    await server.control.faults.set('web', 'token_response_token_type_bearer');
    const error = await client.finishLogin(result.location, transaction).catch((e: unknown) => e);
    expect((error as OidcError).code).toBe('dpop_token_type_mismatch');
  });
});

describe('options', () => {
  it('refuses a dpop option that is not a handle', () => {
    const error = (() => {
      try {
        createNodeClient({ ...service, dpop: {} as DpopHandle });
      } catch (e) {
        return e;
      }
    })();
    expect((error as OidcError).code).toBe('invalid_options');
    expect((error as OidcError).message).toMatch(/dpop\(\)/);
  });
});
