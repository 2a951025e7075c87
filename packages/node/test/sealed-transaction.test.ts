import { afterEach, describe, expect, it, vi } from 'vitest';
import { type AuthorizationTransaction, sealTransaction, unsealTransaction } from '../src/index';

const secret = 'test-cookie-AtAE9OxzcznqoR6nacFM-e9MnATZvZ-9';
const otherSecret = 'other-test-cookie-C0QNrzvBjh2rFgRQ1734yU-g-elC8buq';

const transaction: AuthorizationTransaction = {
  state: 'state-value-0123456789abcdefghijklmnopqrstuv',
  nonce: 'nonce-value-0123456789abcdefghijklmnopqrstuv',
  codeVerifier: 'verifier-0123456789abcdefghijklmnopqrstuvwxyz',
  redirectUri: 'https://app.example.com/callback',
  responseType: 'code',
  responseMode: 'query',
  scope: 'openid',
  clientId: 'web',
  issuer: 'https://id.example.com/acme',
  createdAt: 1_700_000_000,
  appState: { returnTo: '/orders' },
};

async function rejection(promise: Promise<unknown>) {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as { code: string; message: string },
  );
}

/** Flips one character of the ciphertext part of a compact JWE. */
function tamper(sealed: string): string {
  const parts = sealed.split('.');
  const ciphertext = parts[3] as string;
  const flipped = ciphertext[0] === 'A' ? 'B' : 'A';
  parts[3] = flipped + ciphertext.slice(1);
  return parts.join('.');
}

afterEach(() => {
  vi.useRealTimers();
});

describe('sealed transaction', () => {
  it('round-trips the transaction and hides its secrets from the browser', async () => {
    const sealed = await sealTransaction(transaction, { secret });
    expect(sealed.split('.')).toHaveLength(5);
    expect(sealed).not.toContain(transaction.codeVerifier);
    expect(atob(sealed.split('.')[0] as string)).toBe('{"alg":"dir","enc":"A256GCM"}');
    for (const part of sealed.split('.').slice(1)) {
      expect(part).not.toContain('verifier');
    }
    await expect(unsealTransaction(sealed, { secret })).resolves.toEqual(transaction);
  });

  it('produces a different value for each seal (fresh IV)', async () => {
    expect(await sealTransaction(transaction, { secret })).not.toBe(await sealTransaction(transaction, { secret }));
  });

  it('rejects a tampered value as transaction_invalid', async () => {
    const sealed = await sealTransaction(transaction, { secret });
    const error = await rejection(unsealTransaction(tamper(sealed), { secret }));
    expect(error.code).toBe('transaction_invalid');
    expect(error.message).toContain('changed or sealed with a different cookieSecret');
  });

  it('rejects a value sealed with another secret, without echoing either secret', async () => {
    const sealed = await sealTransaction(transaction, { secret: otherSecret });
    const error = await rejection(unsealTransaction(sealed, { secret }));
    expect(error.code).toBe('transaction_invalid');
    expect(error.message).not.toContain(secret);
    expect(error.message).not.toContain(otherSecret);
  });

  it('rejects garbage that is not a compact JWE', async () => {
    for (const value of ['', 'abc', 'a.b.c', `${'a'.repeat(9000)}.b.c.d.e`, 'a.b.c.d.e']) {
      const error = await rejection(unsealTransaction(value, { secret }));
      expect(error.code).toBe('transaction_invalid');
    }
  });

  it('expires after its max age as transaction_expired, not before', async () => {
    vi.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
    const sealed = await sealTransaction(transaction, { secret, maxAge: 600 });
    vi.setSystemTime(new Date('2030-01-01T00:09:59Z'));
    await expect(unsealTransaction(sealed, { secret })).resolves.toEqual(transaction);
    vi.setSystemTime(new Date('2030-01-01T00:10:01Z'));
    const error = await rejection(unsealTransaction(sealed, { secret }));
    expect(error.code).toBe('transaction_expired');
    expect(error.message).toContain('start a new login');
  });

  it('unseals with any secret of a rotation list and seals with the first', async () => {
    const old = await sealTransaction(transaction, { secret: otherSecret });
    await expect(unsealTransaction(old, { secret: [secret, otherSecret] })).resolves.toEqual(transaction);
    const fresh = await sealTransaction(transaction, { secret: [secret, otherSecret] });
    await expect(unsealTransaction(fresh, { secret })).resolves.toEqual(transaction);
    expect((await rejection(unsealTransaction(fresh, { secret: otherSecret }))).code).toBe('transaction_invalid');
  });

  it('refuses a secret shorter than 32 characters', async () => {
    const error = await rejection(sealTransaction(transaction, { secret: 'short' }));
    expect(error.code).toBe('invalid_options');
  });

  it('refuses a guessable secret to seal or to open, without quoting it', async () => {
    const guessable = 'ChangeMe-ChangeMe-ChangeMe-2024!';
    for (const attempt of [sealTransaction(transaction, { secret: guessable }), unsealTransaction('a.b.c.d.e', { secret: [secret, guessable] })]) {
      const error = await rejection(attempt);
      expect(error).toMatchObject({ code: 'invalid_options', message: expect.stringContaining('does not look random') });
      expect(error.message).not.toContain(guessable);
    }
  });
});
