// The deployment settings of the security review: public_origin, trusted_hosts, trust_proxy
// and store.key_encryption_secret are validated like every other key, naming the field.
import { describe, expect, it } from 'vitest';
import { ConfigError, demoConfig, validateConfig, type ServerConfig } from '../src/index';

function refusal(change: (config: ServerConfig) => void): ConfigError | undefined {
  const config = demoConfig();
  change(config);
  try {
    validateConfig(config);
    return undefined;
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
}

describe('deployment settings in the config', () => {
  it('accepts an https public origin, an http loopback one, trusted hosts and trust_proxy', () => {
    for (const origin of ['https://login.example.com', 'https://login.example.com:8443', 'http://127.0.0.1:4000', 'http://localhost:4000']) {
      expect(refusal((c) => (c.public_origin = origin))).toBeUndefined();
    }
    expect(refusal((c) => (c.trusted_hosts = ['login.internal', 'login.internal:8443', '10.0.0.5']))).toBeUndefined();
    expect(refusal((c) => (c.trust_proxy = true))).toBeUndefined();
  });

  it.each([
    ['https://login.example.com/demo', 'no path'],
    ['http://login.example.com', 'must use https'],
    ['login.example.com', 'must be an origin'],
    ['https://user:pw@login.example.com', 'no path, query or credentials'],
  ])('refuses the public origin %s', (origin, message) => {
    const error = refusal((c) => (c.public_origin = origin));
    expect(error?.field).toBe('public_origin');
    expect(error?.message).toContain(message);
  });

  it('refuses a trusted host with a path or a scheme, and a trust_proxy that is not a boolean', () => {
    expect(refusal((c) => (c.trusted_hosts = ['https://login.internal']))?.field).toBe('trusted_hosts[0]');
    expect(refusal((c) => (c.trusted_hosts = ['login.internal/x']))?.field).toBe('trusted_hosts[0]');
    expect(refusal((c) => ((c as unknown as Record<string, unknown>).trust_proxy = 'yes'))?.field).toBe('trust_proxy');
  });

  it('refuses a key encryption secret shorter than 32 characters, and one on the memory store', () => {
    const short = refusal((c) => (c.store = { type: 'redis', url: 'redis://127.0.0.1:6379', key_encryption_secret: 'short' }));
    expect(short?.field).toBe('store.key_encryption_secret');
    const memory = refusal((c) => (c.store = { type: 'memory', key_encryption_secret: 'x'.repeat(40) } as never));
    expect(memory?.field).toBe('store.key_encryption_secret');
  });
});
