// The "store" config key: its validation names the field, and a Redis that cannot be reached
// stops start-up with a message that says where, never with the password.
import { describe, expect, it } from 'vitest';
import { ConfigError, createReferenceServer, demoConfig, MemoryStore, validateConfig, type ServerConfig } from '../src/index';
import { freePort } from '../../../test-support/redis-server';

function withStore(store: unknown): ServerConfig {
  return { ...demoConfig(), store } as ServerConfig;
}

/** The error validateConfig throws for this store, or undefined. */
function refusal(store: unknown): unknown {
  try {
    validateConfig(withStore(store));
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('config: store', () => {
  it.each([
    ['store', 'redis', 'must be an object'],
    ['store.type', {}, 'must be one of "memory", "redis"'],
    ['store.type', { type: 'mongo' }, 'must be one of "memory", "redis"'],
    ['store.url', { type: 'redis' }, 'is required with "type": "redis"'],
    ['store.url', { type: 'redis', url: '' }, 'must be a non-empty string'],
    ['store.url', { type: 'redis', url: 'http://127.0.0.1:6379' }, 'must be a redis:// or rediss:// URL'],
    ['store.url', { type: 'redis', url: 'redis://' }, 'must be a redis:// or rediss:// URL'],
    ['store.prefix', { type: 'redis', url: 'redis://127.0.0.1', prefix: '' }, 'must be a non-empty string'],
    ['store.prefix', { type: 'redis', url: 'redis://127.0.0.1', prefix: 'has space:' }, 'at most 64 characters without spaces'],
    ['store.prefix', { type: 'redis', url: 'redis://127.0.0.1', prefix: 'x'.repeat(65) }, 'at most 64 characters without spaces'],
    ['store.url', { type: 'memory', url: 'redis://127.0.0.1' }, 'only applies to "type": "redis"'],
    ['store.ttl', { type: 'redis', url: 'redis://127.0.0.1', ttl: 5 }, 'unknown key'],
  ])('refuses %s in %j', (field, store, message) => {
    const error = refusal(store);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).field).toBe(field);
    expect((error as ConfigError).message).toContain(message);
  });

  it('never repeats the URL (it may hold a password) in an error', () => {
    const error = refusal({ type: 'redis', url: 'http://user:hunter2@cache.internal' });
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain('hunter2');
  });

  it('accepts memory, and Redis with or without a prefix', () => {
    const stores = [
      { type: 'memory' },
      { type: 'redis', url: 'redis://127.0.0.1:6379' },
      { type: 'redis', url: 'rediss://user:pw@cache.internal:6380/2', prefix: 'team-a:' },
    ];
    for (const store of stores) expect(refusal(store)).toBeUndefined();
  });

  it('stops start-up when Redis refuses the connection, naming host and port but not the password', async () => {
    const port = await freePort();
    const error = await createReferenceServer(withStore({ type: 'redis', url: `redis://:hunter2@127.0.0.1:${port}` }), { logger: false }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(
      `cannot connect to the Redis store at 127.0.0.1:${port} (ECONNREFUSED); start Redis or fix "store.url" in the config`,
    );
  });

  it('refuses a Redis config together with options.store', async () => {
    await expect(
      createReferenceServer(withStore({ type: 'redis', url: 'redis://127.0.0.1:1' }), { logger: false, store: new MemoryStore() }),
    ).rejects.toThrow('the config asks for the Redis store and options.store passes another: use one of them');
  });
});
