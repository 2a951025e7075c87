import { afterEach, describe, expect, it, vi } from 'vitest';
import { browserStorage, indexedDbStorage, memoryStorage, webStorage, type StorageAdapter } from '../src/index';

async function roundTrip(storage: StorageAdapter) {
  expect(await storage.get('a')).toBeNull();
  await storage.set('a', '1');
  await storage.set('b', '2');
  await storage.set('a', '3');
  expect(await storage.get('a')).toBe('3');
  expect((await storage.keys()).sort()).toEqual(['a', 'b']);
  await storage.remove('a');
  expect(await storage.get('a')).toBeNull();
  expect(await storage.keys()).toEqual(['b']);
}

describe('storage adapters', () => {
  afterEach(() => {
    sessionStorage.clear();
    localStorage.clear();
  });

  it('memoryStorage gets, sets, removes and lists keys', async () => {
    await roundTrip(memoryStorage());
  });

  it('memoryStorage instances do not share data', async () => {
    const one = memoryStorage();
    await one.set('k', 'v');
    expect(await memoryStorage().get('k')).toBeNull();
  });

  it('webStorage works over sessionStorage and writes through to it', async () => {
    const storage = webStorage(sessionStorage);
    await roundTrip(storage);
    expect(sessionStorage.getItem('b')).toBe('2');
  });

  it('browserStorage("localStorage") uses the real localStorage', async () => {
    await browserStorage('localStorage').set('x', 'y');
    expect(localStorage.getItem('x')).toBe('y');
    expect(sessionStorage.getItem('x')).toBeNull();
  });

  it('browserStorage falls back to memory when the storage cannot be touched', async () => {
    const denied = vi.spyOn(globalThis, 'sessionStorage', 'get').mockImplementation(() => {
      throw new DOMException('denied', 'SecurityError');
    });
    const storage = browserStorage('sessionStorage');
    denied.mockRestore();
    await roundTrip(storage);
    expect(sessionStorage.length).toBe(0); // the data went to memory
  });

  it('webStorage reports a full storage as a rejected promise, not a synchronous throw', async () => {
    const full = {
      ...sessionStorage,
      setItem: () => {
        throw new DOMException('full', 'QuotaExceededError');
      },
    } as unknown as Storage;
    const pending = webStorage(full).set('k', 'v');
    await expect(pending).rejects.toThrow('full');
  });

  it('indexedDbStorage is memory where IndexedDB is missing (server rendering; its real behaviour is tested in Chromium)', async () => {
    expect(globalThis.indexedDB).toBeUndefined();
    const storage = indexedDbStorage();
    await roundTrip(storage);
    expect(await indexedDbStorage().get('b')).toBeNull(); // nothing shared without a database
  });
});
