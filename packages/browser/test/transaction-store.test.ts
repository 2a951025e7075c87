import type { AuthorizationTransaction } from '@oidc-rp/core';
import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../src/storage';
import { TRANSACTION_TTL, USED_TTL, createTransactionStore } from '../src/transaction-store';

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
    await store.keep_(transaction('one'));
    await store.keep_(transaction('two'));
    expect(await store.redeem_('two', NOW)).toMatchObject({ nonce: 'nonce-two' });
    expect(await store.redeem_('two', NOW)).toBe('used');
    expect(await store.redeem_('one', NOW)).toMatchObject({ nonce: 'nonce-one' });
  });

  it('returns undefined for an unknown state', async () => {
    const store = createTransactionStore(memoryStorage());
    await store.keep_(transaction('one'));
    expect(await store.redeem_('other', NOW)).toBeUndefined();
  });

  it('refuses (and removes) a transaction older than the TTL', async () => {
    const storage = memoryStorage();
    const store = createTransactionStore(storage);
    await store.keep_(transaction('old', NOW - TRANSACTION_TTL - 1));
    await expect(store.redeem_('old', NOW)).rejects.toMatchObject({ code: 'transaction_expired' });
    expect(JSON.parse((await storage.get('oidc-rp.tx.old')) ?? '')).toEqual({ used: true, createdAt: NOW });
  });

  it('accepts a transaction exactly at the TTL', async () => {
    const store = createTransactionStore(memoryStorage());
    await store.keep_(transaction('edge', NOW - TRANSACTION_TTL));
    expect(await store.redeem_('edge', NOW)).toMatchObject({ state: 'edge' });
  });

  it('refuses an unreadable entry with transaction_invalid', async () => {
    const storage = memoryStorage();
    await storage.set('oidc-rp.tx.bad', '{not json');
    await expect(createTransactionStore(storage).redeem_('bad', NOW)).rejects.toMatchObject({ code: 'transaction_invalid' });
    expect(await storage.get('oidc-rp.tx.bad')).not.toContain('not json'); // a tombstone took its place
  });

  it('clean removes expired and unreadable transactions only, and never foreign keys', async () => {
    const storage = memoryStorage();
    const store = createTransactionStore(storage);
    await store.keep_(transaction('fresh', NOW - 10));
    await store.keep_(transaction('stale', NOW - TRANSACTION_TTL - 5));
    await storage.set('oidc-rp.tx.garbage', 'null');
    await storage.set('app-setting', 'keep me');
    await store.clean_(NOW);
    expect((await storage.keys()).sort()).toEqual(['app-setting', 'oidc-rp.tx.fresh']);
  });

  it('leaves a tombstone for a day: when it was handled, nothing of the transaction', async () => {
    const storage = memoryStorage();
    const store = createTransactionStore(storage);
    await store.keep_(transaction('state-one'));
    await store.redeem_('state-one', NOW + 5);
    const stored = (await storage.get('oidc-rp.tx.state-one')) ?? '';
    expect(JSON.parse(stored)).toEqual({ used: true, createdAt: NOW + 5 });
    expect(stored).not.toContain('state-one');
    expect(stored).not.toContain('nonce');
    expect(stored).not.toContain('v'.repeat(43));
    expect(await store.redeem_('state-one', NOW + 5 + USED_TTL)).toBe('used');
    expect(await store.redeem_('state-one', NOW + 6 + USED_TTL)).toBeUndefined(); // forgotten after a day
  });

  it('clean keeps tombstones for a day, then removes them', async () => {
    const storage = memoryStorage();
    const store = createTransactionStore(storage);
    await store.keep_(transaction('done'));
    await store.redeem_('done', NOW);
    await store.clean_(NOW + TRANSACTION_TTL + 1); // older than a transaction may be, yet kept
    expect(await storage.keys()).toEqual(['oidc-rp.tx.done']);
    await store.clean_(NOW + USED_TTL + 1);
    expect(await storage.keys()).toEqual([]);
  });
});
