// Item 8 of issue 23: configured secrets (the key encryption secret, the control API's secret)
// are refused when obviously not random, with a message saying how to generate one; random
// ones of the usual generators pass. Over real HTTP: a guessable key encryption secret stops a
// Redis-backed server before it listens, so nothing is ever sealed under it.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { weakSecretProblem } from '../src/crypto/secret-strength';
import { ConfigError, createReferenceServer, demoConfig } from '../src/index';
import { refusal } from './helpers';

const GUESSABLE = [
  ['a'.repeat(32), 'repeats one short piece'],
  ['abc1'.repeat(8), 'repeats one short piece'],
  ['aaaaaaaabbbbbbbbccccccccdddddddd', 'has only 4 different characters'],
  ['thisisonlylowercaselettersreally', 'uses a single kind of character'],
  ['98237461029384756102938475610293', 'uses a single kind of character'],
  ['Zq1abcdefgh9X2m4Lp7Rt6Ww3Yv8Ks5N', 'contains a keyboard or alphabet sequence'],
  ['Zq1X2m4Lp7Rt6Ww3Yv8Ks5N9876543B', 'contains a keyboard or alphabet sequence'],
  ['Xqwerty9Lp7Rt6Ww3Yv8Ks5NmZq1B4cD', 'contains a keyboard or alphabet sequence'],
  ['my-super-secret-key-for-prod-2024', 'contains the word "secret"'],
  ['correct-horse-battery-staple-now', 'is words joined by separators'],
] as const;

describe('secrets that are obviously not random are refused', () => {
  it.each(GUESSABLE)('%s: %s', (secret, why) => {
    expect(weakSecretProblem(secret)).toBe(why);
  });

  it('random output as openssl rand -base64 32 / -hex 32 and base64url prints it passes (1000 fixed samples each)', () => {
    // Deterministic random-looking bytes (SHA-256 of a counter), so the test cannot flake.
    const bytes = (i: number) => createHash('sha256').update(`sample ${i}`).digest();
    const refused: string[] = [];
    for (let i = 0; i < 1000; i++) {
      for (const secret of [bytes(i).toString('base64'), bytes(i).toString('hex'), bytes(i).subarray(0, 12).toString('base64url')]) {
        if (weakSecretProblem(secret) !== undefined) refused.push(secret);
      }
    }
    expect(refused).toEqual([]);
  });

  it('hex output with a six-digit run passes (about 1 in 20,000 openssl rand -hex 32 has one); an eight-digit run does not', () => {
    const hex = '3f9a0c7e5b' + '123456' + 'd8e1f04a7c9b2e6d5a3f8c1b0e7d4a9f2c6b';
    expect(weakSecretProblem(hex)).toBeUndefined();
    expect(weakSecretProblem(hex.replace('123456', '12345678'))).toBe('contains a keyboard or alphabet sequence');
  });

  it('store.key_encryption_secret in the config: refused naming the field and the way to generate one, never echoing it', () => {
    const error = refusal({ ...demoConfig(), store: { type: 'redis', url: 'redis://127.0.0.1:6379', key_encryption_secret: 'my-super-secret-key-for-prod-2024' } });
    expect(error.field).toBe('store.key_encryption_secret');
    expect(error.message).toContain('openssl rand -base64 32');
    expect(error.message).not.toContain('my-super-secret-key-for-prod-2024');
  });

  it('keyEncryptionSecret and controlApi.secret options: refused at start, before any listener or Redis connection', async () => {
    const config = demoConfig();
    config.store = { type: 'redis', url: 'redis://127.0.0.1:1', prefix: 'never:' };
    const key = await createReferenceServer(config, { logger: false, keyEncryptionSecret: 'x'.repeat(40) }).catch((e: unknown) => e);
    expect(key).toBeInstanceOf(ConfigError);
    expect((key as ConfigError).field).toBe('keyEncryptionSecret');
    const control = await createReferenceServer(demoConfig(), { logger: false, controlApi: { secret: '1234567890123456' } }).catch((e: unknown) => e);
    expect(control).toBeInstanceOf(ConfigError);
    expect((control as ConfigError).field).toBe('controlApi.secret');
  });

  it('guard: a random control secret starts, and the control API answers its bearer over HTTP', async () => {
    const secret = randomBytes(32).toString('base64');
    const server = await createReferenceServer(demoConfig(), { logger: false, controlApi: { secret } });
    const { origin } = await server.listen({ port: 0 });
    try {
      const res = await fetch(`${origin}/_control/users`, { headers: { authorization: `Bearer ${secret}`, 'x-control-request': '1' } });
      expect(res.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
