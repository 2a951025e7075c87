import type { AuthorizationTransaction } from '@oidc-rp/core';
import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../src/storage';
import { TRANSACTION_TTL, USED_STATES, createTransactionStore } from '../src/transaction-store';

const NOW = 1_700_000_000;

function transaction(state: string, createdAt = NOW): AuthorizationTransaction {
  return {
    state,
    nonce: `nonce-${state}`,
    codeVerifier: 'v'.repeat(43),
    redirectUri: 'http://127.0.0.1:5173/callback',
    responseType: 'code',
    responseMode: 'query',
    scope: 'openid',
    clientId: 'spa',
    issuer: 'http://127.0.0.1:4000/demo',
    createdAt,
  };
}

describe('transaction store', () => {
  it('keys transactions by state and hands each out once', async () => {
    const store = createTransactionStore(memoryStorage());
    await store.save(transaction('one'));
    await store.save(transaction('two'));
    expect((await store.take('two', NOW))?.nonce).toBe('nonce-two');
    expect(await store.take('two', NOW)).toBeUndefined();
    expect((await store.take('one', NOW))?.nonce).toBe('nonce-one');
  });

  it('returns undefined for an unknown state', async () => {
    const store = createTransactionStore(memoryStorage());
    await store.save(transaction('one'));
    expect(await store.take('other', NOW)).toBeUndefined();
  });

  it('refuses (and removes) a transaction older than the TTL', async () => {
    const storage = memoryStorage();
    const store = createTransactionStore(storage);
    await store.save(transaction('old', NOW - TRANSACTION_TTL - 1));
    await expect(store.take('old', NOW)).rejects.toMatchObject({ code: 'transaction_expired' });
    expect(await storage.keys()).toEqual([]);
  });

  it('accepts a transaction exactly at the TTL', async () => {
    const store = createTransactionStore(memoryStorage());
    await store.save(transaction('edge', NOW - TRANSACTION_TTL));
    expect((await store.take('edge', NOW))?.state).toBe('edge');
  });

  it('refuses an unreadable entry with transaction_invalid', async () => {
    const storage = memoryStorage();
    await storage.set('oidc-rp.tx.bad', '{not json');
    await expect(createTransactionStore(storage).take('bad', NOW)).rejects.toMatchObject({ code: 'transaction_invalid' });
    expect(await storage.get('oidc-rp.tx.bad')).toBeNull();
  });

  it('clean removes expired and unreadable transactions only, and never foreign keys', async () => {
    const storage = memoryStorage();
    const store = createTransactionStore(storage);
    await store.save(transaction('fresh', NOW - 10));
    await store.save(transaction('stale', NOW - TRANSACTION_TTL - 5));
    await storage.set('oidc-rp.tx.garbage', 'null');
    await storage.set('app-setting', 'keep me');
    await store.clean(NOW);
    expect((await storage.keys()).sort()).toEqual(['app-setting', 'oidc-rp.tx.fresh']);
  });

  it('remembers handled states for a day, as hashes only, and at most USED_STATES of them', async () => {
    const storage = memoryStorage();
    const store = createTransactionStore(storage);
    await store.markUsed('state-one', NOW);
    expect(await store.wasUsed('state-one', NOW + 86_400)).toBe(true);
    expect(await store.wasUsed('state-one', NOW + 86_401)).toBe(false);
    expect(await store.wasUsed('state-two', NOW)).toBe(false);
    for (const key of await storage.keys()) expect(await storage.get(key)).not.toContain('state-one');

    for (let i = 0; i < USED_STATES; i++) await store.markUsed(`later-${i}`, NOW + 1);
    expect(await store.wasUsed('state-one', NOW + 1)).toBe(false); // the oldest made room
    expect(await store.wasUsed(`later-${USED_STATES - 1}`, NOW + 1)).toBe(true);
  });

  it('reads an unreadable record of handled states as none', async () => {
    const storage = memoryStorage();
    await storage.set('oidc-rp.used', '{broken');
    expect(await createTransactionStore(storage).wasUsed('s', NOW)).toBe(false);
  });
});
