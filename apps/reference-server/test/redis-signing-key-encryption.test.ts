// The signing keys in Redis are sealed with the key encryption secret: unreadable in Redis,
// and a document swapped in or tampered with by someone who can write to Redis is refused with
// a log line while the server keeps its keys. Without a secret only development tenants may
// use Redis. Real redis-server, servers over real HTTP.
import { exportJWK, generateKeyPair, calculateJwkThumbprint, type JSONWebKeySet } from 'jose';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, createReferenceServer, demoConfig, type ReferenceServer, type ServerConfig } from '../src/index';
import { startRedisServer, type RunningRedis } from '../../../test-support/redis-server';
import { until } from './support/fleet';

const SECRET = 'R7mK2xQ9vLp4Wz8NcT3bY6hJ1fD5gS0a';
let redis: RunningRedis;
let client: ReturnType<typeof createClient>;

beforeAll(async () => {
  redis = await startRedisServer();
  client = createClient({ url: redis.url });
  await client.connect();
});
afterAll(async () => {
  await client?.close();
  await redis?.stop();
});

/** The demo config as a production tenant on Redis under `prefix`. */
function productionOnRedis(prefix: string, secret?: string): ServerConfig {
  const config = demoConfig();
  const tenant = config.tenants[0];
  if (tenant) {
    tenant.development = false;
    tenant.demo_login = false;
    for (const c of tenant.clients ?? []) delete c.backchannel_logout_uri; // http on loopback needs a development tenant
  }
  config.store = { type: 'redis', url: redis.url, prefix, ...(secret ? { key_encryption_secret: secret } : {}) };
  return config;
}

interface Running {
  server: ReferenceServer;
  issuer: string;
  logs: string[];
}

async function start(config: ServerConfig, options: { keyEncryptionSecret?: string } = {}): Promise<Running> {
  const logs: string[] = [];
  const server = await createReferenceServer(config, { logger: { info: (m) => logs.push(m), error: (m) => logs.push(m) }, ...options });
  const { origin } = await server.listen({ port: 0 });
  return { server, issuer: `${origin}/demo`, logs };
}

async function jwks(issuer: string): Promise<Response> {
  return fetch(`${issuer}/oidc/jwks`);
}

async function kids(issuer: string): Promise<string[]> {
  const res = await jwks(issuer);
  expect(res.status).toBe(200);
  return ((await res.json()) as JSONWebKeySet).keys.map((k) => k.kid ?? '');
}

/** A plaintext key document with a key the attacker holds. */
async function attackerDocument(): Promise<{ text: string; kid: string }> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = await calculateJwkThumbprint(await exportJWK(publicKey));
  const jwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256' };
  return { text: JSON.stringify({ v: 1, keys: [{ jwk }] }), kid };
}

describe('signing keys in Redis are encrypted', () => {
  it('a Redis-backed server with a production tenant refuses to start without a key encryption secret', async () => {
    const error = await createReferenceServer(productionOnRedis('enc-missing:'), { logger: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).field).toBe('store.key_encryption_secret');
    expect((error as Error).message).toContain('OIDC_RP_KEY_ENCRYPTION_SECRET');
    // A short secret is refused too.
    const short = await createReferenceServer(productionOnRedis('enc-short:'), { logger: false, keyEncryptionSecret: 'short' }).catch((e: unknown) => e);
    expect(short).toBeInstanceOf(ConfigError);
  });

  it('stores the keys sealed (no private key material readable in Redis); instances with the secret share them', async () => {
    const a = await start(productionOnRedis('enc-shared:', SECRET));
    const b = await start(productionOnRedis('enc-shared:'), { keyEncryptionSecret: SECRET });
    try {
      const first = await kids(a.issuer);
      expect(await kids(b.issuer)).toEqual(first);
      const stored = (await client.get('enc-shared:demo:signing-keys:RS256')) ?? '';
      expect(stored.split('.')).toHaveLength(5);
      expect(stored).not.toContain('"d"');
      expect(Buffer.from(stored.split('.')[0] ?? '', 'base64url').toString()).toContain('"place":"demo:RS256"');
    } finally {
      await Promise.all([a.server.close(), b.server.close()]);
    }
  });

  it('a plaintext document swapped in by someone who can write to Redis is refused: the server keeps its keys and logs why', async () => {
    const a = await start(productionOnRedis('enc-swap:', SECRET));
    try {
      const before = await kids(a.issuer);
      const attacker = await attackerDocument();
      await client.set('enc-swap:demo:signing-keys:RS256', attacker.text);
      // Each instance re-reads the document about once a second, on demand.
      await until('the swapped document is refused', async () => {
        await jwks(a.issuer);
        return a.logs.some((l) => l.includes('are refused: it is not encrypted'));
      });
      expect(await kids(a.issuer)).toEqual(before);
      expect(before).not.toContain(attacker.kid);
      // A server starting now does not adopt the attacker's key either: no keys, 503, not a forged JWKS.
      const fresh = await start(productionOnRedis('enc-swap:', SECRET));
      try {
        const res = await jwks(fresh.issuer);
        expect(res.status).toBe(503);
        expect(fresh.logs.join('\n')).toContain('the signing keys of tenant demo in Redis (enc-swap:demo:signing-keys:RS256) are refused: it is not encrypted');
        for (const line of [...a.logs, ...fresh.logs]) expect(line).not.toContain('"d"');
      } finally {
        await fresh.server.close();
      }
    } finally {
      await a.server.close();
    }
  });

  it('a tampered document, one sealed under another secret and one copied from another tenant are refused', async () => {
    const a = await start(productionOnRedis('enc-tamper:', SECRET));
    try {
      await kids(a.issuer);
      const key = 'enc-tamper:demo:signing-keys:RS256';
      const sealed = (await client.get(key)) ?? '';
      const parts = sealed.split('.');
      const ciphertext = parts[3] ?? '';
      parts[3] = `${ciphertext.slice(0, 10)}${ciphertext[10] === 'A' ? 'B' : 'A'}${ciphertext.slice(11)}`;
      await client.set(key, parts.join('.'));
      const fresh = await start(productionOnRedis('enc-tamper:', SECRET));
      expect((await jwks(fresh.issuer)).status).toBe(503);
      expect(fresh.logs.join('\n')).toContain('does not decrypt with the configured key encryption secret');
      await fresh.server.close();

      // Sealed by a server with another secret.
      await client.del(key);
      const other = await start(productionOnRedis('enc-tamper:', `${SECRET}-other`));
      await kids(other.issuer);
      await other.server.close();
      const mine = await start(productionOnRedis('enc-tamper:', SECRET));
      expect((await jwks(mine.issuer)).status).toBe(503);
      expect(mine.logs.join('\n')).toContain('does not decrypt with the configured key encryption secret');
      await mine.server.close();

      // Another tenant's sealed document copied over this one.
      const acme = productionOnRedis('enc-tamper:', SECRET);
      const demo = acme.tenants[0];
      if (demo) acme.tenants.push({ ...demo, id: 'acme' });
      await client.del(key);
      const both = await start(acme);
      const acmeKeys = await fetch(`${both.issuer.replace(/\/demo$/, '/acme')}/oidc/jwks`);
      expect(acmeKeys.status).toBe(200);
      await both.server.close();
      await client.set(key, (await client.get('enc-tamper:acme:signing-keys:RS256')) ?? '');
      const copied = await start(productionOnRedis('enc-tamper:', SECRET));
      expect((await jwks(copied.issuer)).status).toBe(503);
      expect(copied.logs.join('\n')).toContain('it was sealed for another tenant or algorithm (acme:RS256)');
      await copied.server.close();
    } finally {
      await a.server.close();
    }
  });

  it('development tenants may run on Redis without a secret (plaintext keys, as documented)', async () => {
    const config = demoConfig();
    config.store = { type: 'redis', url: redis.url, prefix: 'enc-dev:' };
    const dev = await start(config);
    try {
      expect((await kids(dev.issuer)).length).toBe(1);
      expect((await client.get('enc-dev:demo:signing-keys:RS256')) ?? '').toMatch(/^\{"v":1/);
    } finally {
      await dev.server.close();
    }
  });
});
