// RedisTokenCache against a real redis-server: keys, TTLs and namespacing, what a value
// holds (never the client secret), encryption at rest, the owner-checked lock, and
// single flight across instances through getClientCredentialsToken.
import { demoConfig } from '@oidc-rp/reference-server';
import { type RedisClientType, createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CachedToken, type NodeClientOptions, OidcError, createNodeClient, serviceProvider } from '../src/index';
import { type RedisClientLike, type RedisScriptOptions, RedisTokenCache, type RedisTokenCacheOptions } from '../src/redis/index';
import { type RunningServer, startReferenceServer } from './support/reference-server';
import { type RunningRedis, startRedisServer } from '../../../test-support/redis-server';

const ENCRYPTION_KEY = 'test-cache-key-XDg1TurI8rcrlwh5xf3ETgY8MDt4UoIJ';
const OTHER_KEY = 'test-other-cache-key-VRDJlG4b4MeMshYamGM_gdg8B1sAPvE7';

let redisServer: RunningRedis;
let server: RunningServer;
let otherServer: RunningServer; // another provider (issuer) sharing the same Redis
let redis: RedisClientType;
let service: NodeClientOptions;
const extraClients: RedisClientType[] = [];

beforeAll(async () => {
  const config = demoConfig();
  const tenant = config.tenants[0];
  if (!tenant?.clients) throw new Error('the demo config has no tenant with clients');
  tenant.clients.push({
    client_id: 'reports',
    client_secret: 'reports-secret',
    grant_types: ['client_credentials'],
    response_types: [],
    scopes: ['api.read'],
  });
  // One at a time, so that afterAll stops whatever did start.
  redisServer = await startRedisServer();
  server = await startReferenceServer(config);
  otherServer = await startReferenceServer();
  redis = await connect();
  service = {
    provider: serviceProvider(server.issuer),
    clientId: 'service',
    clientSecret: 'service-secret',
    grants: ['client_credentials'],
  };
});
afterEach(async () => {
  await redis.flushAll();
});
afterAll(async () => {
  for (const client of [redis, ...extraClients]) client?.destroy();
  await Promise.all([redisServer?.stop(), server?.close(), otherServer?.close()]);
});

/** A separate connection: what another instance of the service would have. */
async function connect(): Promise<RedisClientType> {
  const client: RedisClientType = createClient({ url: redisServer.url, disableOfflineQueue: true });
  client.on('error', () => undefined); // node-redis requires a listener; failures reach the cache as rejections
  await client.connect();
  if (redis) extraClients.push(client);
  return client;
}

function cacheWith(options: Partial<RedisTokenCacheOptions> = {}) {
  const errors: OidcError[] = [];
  const cache = new RedisTokenCache({ encryptionKey: ENCRYPTION_KEY, redis, onError: (error) => errors.push(error), ...options });
  return { cache, errors };
}

function entry(accessToken: string, lifetime = 3600): CachedToken {
  const now = Math.floor(Date.now() / 1000);
  return { tokens: { accessToken, tokenType: 'Bearer', expiresAt: now + lifetime, scope: 'api.read' }, renewAt: now + lifetime - 60, expiresAt: now + lifetime };
}

const tokenRequests = () => server.count('POST', '/oauth/token');
const tokenKeys = async () => (await redis.keys('*')).filter((key) => !key.endsWith(':lock')).sort();

/**
 * The shared connection, counting the lock renewals it sends (the script calls with an owner
 * and a lifetime; a release has the owner only): `renewals(n)` resolves once n were answered.
 */
function renewalObserver() {
  let count = 0;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const counted = async (options: RedisScriptOptions, reply: Promise<unknown>) => {
    const result = await reply;
    if (options.arguments.length === 2) {
      count++;
      for (const waiter of waiters.filter((w) => count >= w.n)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
    return result;
  };
  const client: RedisClientLike = {
    get: (k) => redis.get(k),
    set: (k, v, o) => redis.set(k, v, o),
    del: (k) => redis.del(k),
    eval: (script, o) => counted(o, redis.eval(script, o)),
    evalSha: (sha1, o) => counted(o, redis.evalSha(sha1, o)),
  };
  return {
    redis: client,
    count: () => count,
    renewals: (n: number) => (count >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
  };
}

describe('keys and TTLs', () => {
  it('stores an entry under a hashed key with the TTL it was given, and returns it', async () => {
    const { cache } = cacheWith();
    const key = 'oidc-rp:cc:https://id.example.com/acme:billing:api.read';
    await cache.set(key, entry('token-a'), 120);

    const keys = await tokenKeys();
    expect(keys).toEqual([cache.redisKey(key)]);
    expect(keys[0]).toMatch(/^oidc-rp:cc:[A-Za-z0-9_-]{43}$/);
    expect(keys[0]).not.toContain('id.example.com');
    expect(keys[0]).not.toContain('billing');
    const ttl = await redis.ttl(cache.redisKey(key));
    expect(ttl).toBeGreaterThan(115);
    expect(ttl).toBeLessThanOrEqual(120);
    expect((await cache.get(key))?.tokens.accessToken).toBe('token-a');

    await cache.delete(key);
    expect(await cache.get(key)).toBeUndefined();
    expect(await tokenKeys()).toEqual([]);
  });

  it('once Redis has dropped an entry (its TTL ended), no instance serves it from memory', async () => {
    const { cache } = cacheWith();
    await cache.set('k', entry('token-a'), 60);
    // Redis, not the adapter, ends the entry: the expiry it was given is what matters.
    await redis.pExpire(cache.redisKey('k'), 1);
    await expect.poll(() => redis.exists(cache.redisKey('k'))).toBe(0);
    expect(await cache.get('k')).toBeUndefined();
  });

  it('keeps one entry per issuer, client and scope set, with the token TTL, and never the client secret', async () => {
    const tokenCache = new RedisTokenCache({ encryptionKey: ENCRYPTION_KEY, redis });
    const billing = createNodeClient({ ...service, tokenCache });
    const reports = createNodeClient({ ...service, clientId: 'reports', clientSecret: 'reports-secret', tokenCache });
    const elsewhere = createNodeClient({ ...service, provider: serviceProvider(otherServer.issuer), tokenCache });
    const before = tokenRequests();
    const beforeElsewhere = otherServer.count('POST', '/oauth/token');
    const now = Math.floor(Date.now() / 1000);
    const tokens = [
      await billing.getClientCredentialsToken({ scope: 'api.read' }),
      await billing.getClientCredentialsToken({ scope: ['api.write', 'api.read'] }),
      await billing.getClientCredentialsToken({ scope: 'api.read api.write' }), // same set, same entry
      await reports.getClientCredentialsToken({ scope: 'api.read' }),
      await elsewhere.getClientCredentialsToken({ scope: 'api.read' }),
    ];
    expect(tokenRequests() - before).toBe(3);
    expect(otherServer.count('POST', '/oauth/token') - beforeElsewhere).toBe(1);
    expect(tokens[2]?.accessToken).toBe(tokens[1]?.accessToken);
    expect(new Set(tokens.map((t) => t.accessToken)).size).toBe(4);

    const keys = await tokenKeys();
    expect(keys).toHaveLength(4);
    expect(await redis.keys('*:lock')).toEqual([]); // every lock was released
    for (const key of keys) {
      const raw = (await redis.get(key)) ?? '';
      expect(raw).not.toContain('service-secret');
      expect(raw).not.toContain('reports-secret');
      expect(key).not.toMatch(/service|reports|127\.0\.0\.1|api/);
    }
    const ttl = await redis.ttl(tokenCache.redisKey(`oidc-rp:cc:${server.issuer}:service:api.read`));
    expect(ttl).toBeGreaterThanOrEqual(3598 - (Math.floor(Date.now() / 1000) - now));
    expect(ttl).toBeLessThanOrEqual(3601);
  });

  it('a value copied under another entry (other client, issuer or scope) is ignored and reported', async () => {
    const { cache, errors } = cacheWith();
    await cache.set('client-a', entry('token-of-a'), 60);
    await redis.set(cache.redisKey('client-b'), (await redis.get(cache.redisKey('client-a'))) as string);
    expect(await cache.get('client-b')).toBeUndefined();
    expect(errors.map((e) => e.code)).toEqual(['cache_entry_invalid']);
    expect(errors[0]?.message).toContain('another issuer, client or scope');
  });

  it('a value that is not a cached token is ignored and reported, without echoing it', async () => {
    const { cache, errors } = cacheWith();
    await redis.set(cache.redisKey('k'), '{"v":1,"k":"x","entry":{"tokens":{"accessToken":"secret-looking"}}');
    await redis.set(cache.redisKey('j'), 'not json at all, secret-looking');
    expect(await cache.get('k')).toBeUndefined();
    expect(await cache.get('j')).toBeUndefined();
    expect(errors.map((e) => e.code)).toEqual(['cache_entry_invalid', 'cache_entry_invalid']);
    for (const error of errors) expect(error.message).not.toContain('secret-looking');
  });

  it('keyPrefix separates environments sharing one Redis', async () => {
    const staging = new RedisTokenCache({ encryptionKey: ENCRYPTION_KEY, redis, keyPrefix: 'staging:oidc:' });
    const production = new RedisTokenCache({ encryptionKey: ENCRYPTION_KEY, redis, keyPrefix: 'production:oidc:' });
    await staging.set('k', entry('staging-token'), 60);
    expect(await production.get('k')).toBeUndefined();
    expect(await tokenKeys()).toEqual([expect.stringMatching(/^staging:oidc:/)]);
  });
});

describe('encryption at rest', () => {
  it('is required: without encryptionKey the cache refuses to start; false stores plain JSON (readable by anyone with Redis access)', async () => {
    expect(() => new RedisTokenCache({ redis } as unknown as RedisTokenCacheOptions)).toThrow(
      expect.objectContaining({ code: 'invalid_options', message: expect.stringContaining('encryptionKey: false') }),
    );
    const plain = cacheWith({ encryptionKey: false });
    await plain.cache.set('k', entry('readable-token'), 60);
    expect(JSON.parse((await redis.get(plain.cache.redisKey('k'))) as string)).toMatchObject({ entry: { tokens: { accessToken: 'readable-token' } } });
  });


  it('stores a JWE that holds neither the token nor the secret, and reads it back', async () => {
    const { cache } = cacheWith({ encryptionKey: ENCRYPTION_KEY });
    const client = createNodeClient({ ...service, tokenCache: cache });
    const { accessToken } = await client.getClientCredentialsToken({ scope: 'api.read' });

    const [key] = await tokenKeys();
    const raw = (await redis.get(key as string)) as string;
    expect(raw.split('.')).toHaveLength(5);
    expect(JSON.parse(Buffer.from(raw.split('.')[0] as string, 'base64url').toString())).toEqual({ alg: 'dir', enc: 'A256GCM' });
    expect(raw).not.toContain(accessToken);
    expect(raw).not.toContain('service-secret');
    expect(raw).not.toContain('api.read');
    const before = tokenRequests();
    expect((await client.getClientCredentialsToken({ scope: 'api.read' })).accessToken).toBe(accessToken);
    expect(tokenRequests()).toBe(before);
  });

  it('an instance with another key cannot read the entry (reported), and one without a key refuses it', async () => {
    const writer = cacheWith({ encryptionKey: ENCRYPTION_KEY });
    await writer.cache.set('k', entry('token-a'), 60);
    const wrongKey = cacheWith({ encryptionKey: OTHER_KEY });
    const noKey = cacheWith({ encryptionKey: false });
    expect(await wrongKey.cache.get('k')).toBeUndefined();
    expect(await noKey.cache.get('k')).toBeUndefined();
    expect(wrongKey.errors[0]?.code).toBe('cache_entry_invalid');
    expect(wrongKey.errors[0]?.message).toContain('another encryptionKey');
    expect(noKey.errors[0]?.message).toContain('no encryptionKey');
  });

  it('refuses a plain entry when encryption is on (anyone with Redis access could have written it)', async () => {
    await new RedisTokenCache({ redis, encryptionKey: false }).set('k', entry('planted'), 60);
    const { cache, errors } = cacheWith({ encryptionKey: ENCRYPTION_KEY });
    expect(await cache.get('k')).toBeUndefined();
    expect(errors[0]?.message).toContain('not encrypted');
  });

  it('refuses a changed ciphertext', async () => {
    const { cache, errors } = cacheWith({ encryptionKey: ENCRYPTION_KEY });
    await cache.set('k', entry('token-a'), 60);
    const parts = ((await redis.get(cache.redisKey('k'))) as string).split('.');
    const ciphertext = Buffer.from(parts[3] as string, 'base64url');
    ciphertext[0] = (ciphertext[0] as number) ^ 1;
    parts[3] = ciphertext.toString('base64url');
    await redis.set(cache.redisKey('k'), parts.join('.'));
    expect(await cache.get('k')).toBeUndefined();
    expect(errors.map((e) => e.code)).toEqual(['cache_entry_invalid']);
  });

  it('rotates keys: the first key encrypts, every listed key decrypts', async () => {
    await cacheWith({ encryptionKey: OTHER_KEY }).cache.set('old', entry('old-token'), 60);
    const rotated = cacheWith({ encryptionKey: [ENCRYPTION_KEY, OTHER_KEY] });
    expect((await rotated.cache.get('old'))?.tokens.accessToken).toBe('old-token');
    await rotated.cache.set('new', entry('new-token'), 60);
    expect((await cacheWith({ encryptionKey: ENCRYPTION_KEY }).cache.get('new'))?.tokens.accessToken).toBe('new-token');
    expect(await cacheWith({ encryptionKey: OTHER_KEY }).cache.get('new')).toBeUndefined();
  });
});

describe('the lock', () => {
  it('is taken by one owner at a time with a PX expiry, and released by that owner', async () => {
    const a = cacheWith({ lockTtl: 5_000 }).cache;
    const b = cacheWith({ lockTtl: 5_000 }).cache;
    const release = await a.lock.acquire('k');
    expect(release).toBeTypeOf('function');
    expect(await b.lock.acquire('k')).toBeUndefined();
    const lockKey = `${a.redisKey('k')}:lock`;
    const pttl = await redis.pTTL(lockKey);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(5_000);
    await release?.();
    expect(await redis.exists(lockKey)).toBe(0);
    const again = await b.lock.acquire('k');
    expect(again).toBeTypeOf('function');
    await again?.();
  });

  it('holds a fresh random value per acquisition', async () => {
    const { cache } = cacheWith();
    const lockKey = `${cache.redisKey('k')}:lock`;
    const owners = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const release = await cache.lock.acquire('k');
      const owner = (await redis.get(lockKey)) as string;
      expect(owner).toMatch(/^[A-Za-z0-9_-]{22}$/);
      owners.add(owner);
      await release?.();
    }
    expect(owners.size).toBe(5);
  });

  it('a holder whose lock expired cannot release the lock another instance took since', async () => {
    const a = cacheWith().cache;
    const b = cacheWith().cache;
    const lockKey = `${a.redisKey('k')}:lock`;
    const releaseA = await a.lock.acquire('k');
    await redis.del(lockKey); // what its expiry does
    const releaseB = await b.lock.acquire('k');
    const ownerB = await redis.get(lockKey);
    await releaseA?.();
    expect(await redis.get(lockKey)).toBe(ownerB);
    await releaseB?.();
    expect(await redis.exists(lockKey)).toBe(0);
  });

  it('is renewed while its holder is alive, past its lifetime, until released', async () => {
    // Long enough that a loaded machine's event-loop stalls (hundreds of ms) do not outlast it:
    // the test is about renewal, not about how short a lifetime can be.
    const lockTtl = 1_500;
    const holder = renewalObserver();
    const { cache, errors } = cacheWith({ redis: holder.redis, lockTtl });
    const lockKey = `${cache.redisKey('k')}:lock`;
    const acquiredAt = Date.now();
    const release = await cache.lock.acquire('k');
    const owner = await redis.get(lockKey);
    // Every third of lockTtl: four renewals mean the lock has lived longer than lockTtl.
    await holder.renewals(4);
    expect(Date.now() - acquiredAt).toBeGreaterThan(lockTtl);
    expect(await redis.get(lockKey)).toBe(owner);
    expect(await redis.pTTL(lockKey)).toBeGreaterThan(0);
    await release?.();
    expect(await redis.exists(lockKey)).toBe(0);
    const renewedBeforeRelease = holder.count();

    // Another holder renews meanwhile; the released one never again.
    const next = renewalObserver();
    const other = cacheWith({ redis: next.redis, lockTtl }).cache;
    const releaseOther = await other.lock.acquire('k');
    await next.renewals(3);
    expect(holder.count()).toBe(renewedBeforeRelease);
    await releaseOther?.();
    expect(errors).toEqual([]);
  });

  it("a holder stops renewing once the lock is not its own, and never extends another's", async () => {
    const holder = renewalObserver();
    const { cache } = cacheWith({ redis: holder.redis, lockTtl: 300 });
    const lockKey = `${cache.redisKey('k')}:lock`;
    const release = await cache.lock.acquire('k');
    await redis.set(lockKey, 'another-instance', { expiration: { type: 'PX', value: 60_000 } }); // expired, then taken
    const attempts = holder.count();
    await holder.renewals(attempts + 1);
    expect(await redis.get(lockKey)).toBe('another-instance');
    expect(await redis.pTTL(lockKey)).toBeGreaterThan(1_000);
    await release?.();
    expect(await redis.get(lockKey)).toBe('another-instance');
  });

  it('releases after the script cache was flushed (EVALSHA falls back to EVAL), and with a client without evalSha', async () => {
    const { cache, errors } = cacheWith();
    const lockKey = `${cache.redisKey('k')}:lock`;
    await (await cache.lock.acquire('k'))?.(); // loads the script
    await redis.scriptFlush();
    await (await cache.lock.acquire('k'))?.();
    expect(await redis.exists(lockKey)).toBe(0);

    const evalOnly = new RedisTokenCache({
      encryptionKey: ENCRYPTION_KEY,
      redis: { get: (k) => redis.get(k), set: (k, v, o) => redis.set(k, v, o), del: (k) => redis.del(k), eval: (s, o) => redis.eval(s, o) },
    });
    await (await evalOnly.lock.acquire('k'))?.();
    expect(await redis.exists(lockKey)).toBe(0);
    expect(errors).toEqual([]);
  });
});

describe('single flight across instances (getClientCredentialsToken)', () => {
  async function instance(options: Partial<RedisTokenCacheOptions> = {}) {
    const tokenCache = new RedisTokenCache({ encryptionKey: ENCRYPTION_KEY, redis: await connect(), ...options });
    return { tokenCache, client: createNodeClient({ ...service, tokenCache }) };
  }

  it('three instances with their own connections on a cold cache cause one token request', async () => {
    const instances = await Promise.all([instance(), instance(), instance()]);
    const before = tokenRequests();
    const results = await Promise.all(instances.flatMap(({ client }) => [1, 2].map(() => client.getClientCredentialsToken({ scope: 'api.read' }))));
    expect(tokenRequests() - before).toBe(1);
    expect(new Set(results.map((t) => t.accessToken)).size).toBe(1);
  });

  it('a waiter takes the token another instance stores while it waits, without a request', async () => {
    // Observes the instance's SET NX, to store the token only once it is waiting for it.
    const connection = await connect();
    let lockFoundTaken = () => {};
    const waiting = new Promise<void>((resolve) => {
      lockFoundTaken = resolve;
    });
    const observed: RedisClientLike = {
      get: (k) => connection.get(k),
      del: (k) => connection.del(k),
      eval: (script, o) => connection.eval(script, o),
      async set(k, v, o) {
        const reply = await connection.set(k, v, o);
        if (o.condition === 'NX' && reply === null) lockFoundTaken();
        return reply;
      },
    };
    const tokenCache = new RedisTokenCache({ encryptionKey: ENCRYPTION_KEY, redis: observed });
    const client = createNodeClient({ ...service, tokenCache });
    const key = `oidc-rp:cc:${server.issuer}:service:api.read`;
    await redis.set(`${tokenCache.redisKey(key)}:lock`, 'another-instance', { expiration: { type: 'PX', value: 10_000 } });
    const before = tokenRequests();
    const pending = client.getClientCredentialsToken({ scope: 'api.read' });
    await waiting;
    await new RedisTokenCache({ encryptionKey: ENCRYPTION_KEY, redis }).set(key, entry('stored-by-the-holder'), 60);
    expect((await pending).accessToken).toBe('stored-by-the-holder');
    expect(tokenRequests()).toBe(before);
  });

  it('while another instance renews early, the current token is served without waiting', async () => {
    const { client, tokenCache } = await instance();
    const key = `oidc-rp:cc:${server.issuer}:service:api.read`;
    const now = Math.floor(Date.now() / 1000);
    await tokenCache.set(key, { tokens: { accessToken: 'due-for-renewal', tokenType: 'Bearer', expiresAt: now + 30 }, renewAt: now - 1, expiresAt: now + 30 }, 30);
    await redis.set(`${tokenCache.redisKey(key)}:lock`, 'the-renewing-instance', { expiration: { type: 'PX', value: 10_000 } });
    const before = tokenRequests();
    expect((await client.getClientCredentialsToken({ scope: 'api.read' })).accessToken).toBe('due-for-renewal');
    expect(tokenRequests()).toBe(before);
  });

  it('when the holder neither stores a token nor lets go within lockWait, the waiter requests its own', async () => {
    const { client, tokenCache } = await instance({ lockTtl: 60_000, lockWait: 200 });
    const key = `oidc-rp:cc:${server.issuer}:service:api.read`;
    await redis.set(`${tokenCache.redisKey(key)}:lock`, 'a-stuck-instance', { expiration: { type: 'PX', value: 60_000 } });
    const before = tokenRequests();
    const started = Date.now();
    const tokens = await client.getClientCredentialsToken({ scope: 'api.read' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(tokens.accessToken).toEqual(expect.any(String));
    expect(tokenRequests() - before).toBe(1);
    expect((await tokenCache.get(key))?.tokens.accessToken).toBe(tokens.accessToken);
  });
});

describe('options', () => {
  it.each([
    [{ redis: undefined }, '`redis` must be a connected Redis client'],
    [{ redis: { get() {} } }, '`redis` must be a connected Redis client'],
    [{ encryptionKey: undefined }, '`encryptionKey` is required'],
    [{ encryptionKey: 'short' }, '`encryptionKey` must be at least 32 characters'],
    [{ encryptionKey: [] }, '`encryptionKey` must be a secret or a non-empty array of secrets'],
    [{ encryptionKey: 'redis-token-cache-key-0123456789' }, '`encryptionKey` does not look random'],
    [{ encryptionKey: [ENCRYPTION_KEY, 'qwertyuiopQWERTYUIOP1234567890!!'] }, '`encryptionKey[1]` does not look random'],
    [{ whenUnavailable: 'retry' }, '`whenUnavailable` must be "fetch" or "fail"'],
    [{ lockTtl: 0 }, '`lockTtl` must be a whole number of milliseconds'],
    [{ lockWait: -1 }, '`lockWait` must be a whole number of milliseconds'],
    [{ commandTimeout: 1.5 }, '`commandTimeout` must be a whole number of milliseconds'],
    [{ onError: 'log' }, '`onError` must be a function'],
  ])('refuses %o', (options, message) => {
    let error: unknown;
    try {
      new RedisTokenCache({ encryptionKey: ENCRYPTION_KEY, redis, ...(options as object) } as RedisTokenCacheOptions);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(OidcError);
    expect(error).toMatchObject({ code: 'invalid_options' });
    expect((error as Error).message).toContain(message);
  });

  it('createNodeClient refuses a tokenCache whose lock is malformed', () => {
    const tokenCache = { get: () => undefined, set() {}, delete() {}, lock: { acquire: async () => undefined, maxWait: -1 } };
    expect(() => createNodeClient({ ...service, tokenCache })).toThrow(
      expect.objectContaining({ code: 'invalid_options', message: expect.stringContaining('`tokenCache.lock`') }),
    );
  });
});
