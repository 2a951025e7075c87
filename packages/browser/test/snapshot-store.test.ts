import { OidcError } from '@oidc-rp/core';
import { describe, expect, it, vi } from 'vitest';
import { createSnapshotStore } from '../src/snapshot-store';

const alice = { iss: 'i', sub: 'alice', aud: 'spa', exp: 2, iat: 1 };

describe('snapshot store (subscribe / getSnapshot)', () => {
  it('starts frozen in loading', () => {
    const state = createSnapshotStore();
    expect(state.get()).toEqual({ status: 'loading' });
    expect(Object.isFrozen(state.get())).toBe(true);
  });

  it('keeps the snapshot identity while nothing changes, and notifies nobody', () => {
    const state = createSnapshotStore();
    const listener = vi.fn();
    state.subscribe(listener);
    state.set({ status: 'authenticated', user: alice, expiresAt: 10 });
    const first = state.get();
    state.set({ status: 'authenticated', user: alice, expiresAt: 10 });
    expect(state.get()).toBe(first);
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it('replaces the snapshot on any change and calls every listener', () => {
    const state = createSnapshotStore();
    const one = vi.fn();
    const two = vi.fn();
    state.subscribe(one);
    state.subscribe(two);
    state.set({ status: 'authenticated', user: alice, expiresAt: 10 });
    const before = state.get();
    state.set({ status: 'authenticated', user: alice, expiresAt: 20 });
    expect(state.get()).not.toBe(before);
    expect(state.get().expiresAt).toBe(20);
    const beforeIdToken = state.get();
    state.set({ status: 'authenticated', user: alice, expiresAt: 20, idToken: 'new.id.token' });
    expect(state.get()).not.toBe(beforeIdToken);
    state.set({ status: 'unauthenticated', error: new OidcError('login_required', 'x') });
    expect(state.get().status).toBe('unauthenticated');
    expect(one).toHaveBeenCalledTimes(4);
    expect(two).toHaveBeenCalledTimes(4);
  });

  it('subscribe returns an unsubscribe that stops notifications', () => {
    const state = createSnapshotStore();
    const listener = vi.fn();
    const unsubscribe = state.subscribe(listener);
    unsubscribe();
    state.set({ status: 'unauthenticated' });
    expect(listener).not.toHaveBeenCalled();
  });

  it('a snapshot cannot be mutated by a consumer', () => {
    const state = createSnapshotStore();
    state.set({ status: 'unauthenticated' });
    expect(() => {
      (state.get() as { status: string }).status = 'authenticated';
    }).toThrow(TypeError);
    expect(state.get().status).toBe('unauthenticated');
  });
});
