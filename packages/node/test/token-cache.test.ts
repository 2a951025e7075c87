import { afterEach, describe, expect, it, vi } from 'vitest';
import { type CachedToken, MemoryTokenCache } from '../src/index';

function entry(accessToken: string): CachedToken {
  return { tokens: { accessToken, tokenType: 'Bearer' }, renewAt: 0, expiresAt: 0 };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('MemoryTokenCache', () => {
  it('returns what was set, until its TTL ends', () => {
    vi.useFakeTimers({ now: 0 });
    const cache = new MemoryTokenCache();
    cache.set('k', entry('a'), 10);
    vi.advanceTimersByTime(9_999);
    expect(cache.get('k')?.tokens.accessToken).toBe('a');
    vi.advanceTimersByTime(1);
    expect(cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('stays within maxEntries, evicting the least recently used entry', () => {
    const cache = new MemoryTokenCache({ maxEntries: 2 });
    cache.set('a', entry('a'), 60);
    cache.set('b', entry('b'), 60);
    cache.get('a'); // a is now more recent than b
    cache.set('c', entry('c'), 60);
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.tokens.accessToken).toBe('a');
    expect(cache.get('c')?.tokens.accessToken).toBe('c');
  });

  it('replaces an entry on set and forgets it on delete', () => {
    const cache = new MemoryTokenCache();
    cache.set('k', entry('a'), 60);
    cache.set('k', entry('b'), 60);
    expect(cache.size).toBe(1);
    expect(cache.get('k')?.tokens.accessToken).toBe('b');
    cache.delete('k');
    expect(cache.get('k')).toBeUndefined();
  });

  it('refuses a size bound below one', () => {
    expect(() => new MemoryTokenCache({ maxEntries: 0 })).toThrow(TypeError);
  });
});
