// Issue 23 item 8: every secret the package takes is refused when obviously not random, with a
// message naming the option and how to generate one, never quoting the secret; the output of the
// usual generators (base64, base64url, hex of 32 random bytes) always passes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OidcError } from '@oidc-rp/core';
import { checkSecrets, weakSecretProblem } from '../src/secret-strength';

const GUESSABLE = [
  ['a'.repeat(32), 'it repeats one short piece'],
  ['abc1'.repeat(8), 'it repeats one short piece'],
  ['aaaaaaaabbbbbbbbccccccccdddddddd', 'it has only 4 different characters'],
  ['thisisonlylowercaselettersreally', 'it uses a single kind of character'],
  ['98237461029384756102938475610293', 'it uses a single kind of character'],
  ['Zq1abcdefgh9X2m4Lp7Rt6Ww3Yv8Ks5N', 'it contains a keyboard or alphabet sequence'],
  ['Zq1X2m4Lp7Rt6Ww3Yv8Ks5N9876543B', 'it contains a keyboard or alphabet sequence'],
  ['Xqwerty9Lp7Rt6Ww3Yv8Ks5NmZq1B4cD', 'it contains a keyboard or alphabet sequence'],
  ['ZQ1X2M4LP7RT6WW3YV8KS5N-ASDFGH-b', 'it contains a keyboard or alphabet sequence'],
  ['9f3e0123456789b2c4d6e8fa1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c', 'it contains a keyboard or alphabet sequence'],
  ['my-super-Secret-key-for-prod-2024', 'it contains a common word'],
  ['Password!Password!Password!Pass1', 'it contains a common word'],
  ['correct-horse-battery-staple-now', 'it is words joined by separators'],
  ['Correct-Horse-Battery-Staple-Now', 'it is words joined by separators'],
] as const;

describe('weakSecretProblem', () => {
  it.each(GUESSABLE)('%s: %s', (secret, why) => {
    expect(weakSecretProblem(secret)).toBe(why);
  });

  // Unbiased bytes with a fixed seed: fast-check's default bias towards small and repeated
  // values is exactly what the check refuses, and a fixed seed keeps the test deterministic.
  const randomBytes = fc.noBias(fc.uint8Array({ minLength: 32, maxLength: 32 }));

  it.each(['base64', 'base64url', 'hex'] as const)('passes %s of 32 random bytes (2,000 samples, no refusal)', (encoding) => {
    fc.assert(
      fc.property(randomBytes, (bytes) => weakSecretProblem(Buffer.from(bytes).toString(encoding)) === undefined),
      { numRuns: 2_000, seed: 20261127 },
    );
  });

  it('passes random hex with a 6-digit run, which random hex has about once in 20,000', () => {
    expect(weakSecretProblem('9f3e012345b2c4d6e8fa1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e')).toBeUndefined();
    expect(weakSecretProblem('9f3e01234567b2c4d6e8fa1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d')).toBe(
      'it contains a keyboard or alphabet sequence',
    );
  });
});

describe('checkSecrets', () => {
  const strong = 'test-cookie-AtAE9OxzcznqoR6nacFM-e9MnATZvZ-9';

  function refusal(value: unknown): OidcError {
    try {
      checkSecrets(value, 'cookieSecret');
    } catch (error) {
      if (error instanceof OidcError) return error;
      throw error;
    }
    throw new Error('expected a refusal');
  }

  it('returns one secret or a rotation list as a list', () => {
    expect(checkSecrets(strong, 'x')).toEqual([strong]);
    expect(checkSecrets([strong, `${strong}Q`], 'x')).toEqual([strong, `${strong}Q`]);
  });

  it.each([
    ['a missing secret', undefined, '`cookieSecret` must be at least 32 characters'],
    ['a non-string', 42, '`cookieSecret` must be at least 32 characters'],
    ['an empty list', [], '`cookieSecret` must be a secret or a non-empty array of secrets'],
    ['a short secret', 'Zq1X2m4Lp7Rt6', '`cookieSecret` must be at least 32 characters'],
    ['a guessable secret', 'my-cookie-secret-for-production-2024', '`cookieSecret` does not look random (it contains a common word)'],
    ['a guessable old secret in a rotation list', [strong, 'x'.repeat(40)], '`cookieSecret[1]` does not look random (it repeats one short piece)'],
  ])('refuses %s with invalid_options, the option, and how to generate one', (_, value, message) => {
    const error = refusal(value);
    expect(error.code).toBe('invalid_options');
    expect(error.message).toContain(message);
    expect(error.message).toContain('openssl rand -base64 32');
    expect(error.message).toContain("randomBytes(32).toString('base64url')");
  });

  it('never quotes the secret, not even the word it contains', () => {
    const secret = 'Tr0ub4dor-PASSWORD-Tr0ub4dor-xyz';
    const { message } = refusal(secret);
    expect(message).not.toContain(secret);
    expect(message.toLowerCase()).not.toContain('password');
  });
});
