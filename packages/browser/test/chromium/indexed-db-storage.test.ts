// @vitest-environment node
/**
 * The shared token storage of `crossTab({ storage: 'indexedDB' })`, in real Chromium with two tabs. The
 * property the refresh relies on: the tab that is handed the refresh lock reads what the tab
 * that released it wrote. (Chromium's localStorage fails it in about one hand-over in three:
 * each tab reads its own cached copy, so the next tab would send a used refresh token.)
 */
import type { Browser, Page } from 'playwright-core';
import { connectChromium } from '../support/chromium';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PageServer, startPageServer } from '../../../../test-support/page-server';
import { bundleSdkFromSources } from '../support/sdk-bundle';

declare global {
  interface Window {
    /** The package, bundled from its sources. */
    oidcRp: typeof import('../../src/index');
    release?: () => void;
  }
}

let server: PageServer;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  server = await startPageServer({ script: await bundleSdkFromSources(), page: '<!doctype html><title>tab</title><script src="/sdk.js"></script>' });
  origin = server.origin;
  browser = await connectChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Two tabs of one origin in a fresh profile (the test closes it: no tab stays open while the file runs on). */
async function twoTabs(): Promise<[Page, Page]> {
  const context = await browser.newContext();
  const tab = async () => {
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    return page;
  };
  return [await tab(), await tab()];
}

describe('indexedDbStorage in Chromium', () => {
  it('stores, lists and removes values that every tab of the origin sees, also after a reload', async () => {
    const [a, b] = await twoTabs();
    expect(await a.evaluate(() => window.oidcRp.indexedDbStorage().get('missing'))).toBeNull();
    await a.evaluate(async () => {
      const storage = window.oidcRp.indexedDbStorage();
      await storage.set('session', '{"id":"s1"}');
      await storage.set('other', '1');
    });
    expect(await b.evaluate(() => window.oidcRp.indexedDbStorage().get('session'))).toBe('{"id":"s1"}');
    expect((await b.evaluate(() => window.oidcRp.indexedDbStorage().keys())).sort()).toEqual(['other', 'session']);

    await b.reload();
    await b.evaluate(() => window.oidcRp.indexedDbStorage().remove('session'));
    expect(await a.evaluate(() => window.oidcRp.indexedDbStorage().get('session'))).toBeNull();
    expect(await a.evaluate(() => window.oidcRp.indexedDbStorage().keys())).toEqual(['other']);
    // Databases are separate by name.
    expect(await a.evaluate(() => window.oidcRp.indexedDbStorage('elsewhere').keys())).toEqual([]);
    await a.context().close();
  });

  it('holds no connection between operations: another tab deletes the database unblocked, and a database without its store is refused', async () => {
    const [a, b] = await twoTabs();
    const deleteDatabase = (page: Page, name: string) =>
      page.evaluate(
        (database) =>
          new Promise<string>((resolve) => {
            const request = indexedDB.deleteDatabase(database);
            request.onsuccess = () => resolve('deleted');
            request.onblocked = () => resolve('blocked');
            request.onerror = () => resolve('failed');
          }),
        name,
      );
    await a.evaluate(() => window.oidcRp.indexedDbStorage().set('session', '{"id":"s1"}'));
    expect(await deleteDatabase(b, 'oidc-rp')).toBe('deleted');
    expect(await a.evaluate(() => window.oidcRp.indexedDbStorage().get('session'))).toBeNull();

    // A database of that name made by other code, without the store: the call fails, it does not hang.
    const outcome = await a.evaluate(async () => {
      await new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('theirs', 1);
        open.onupgradeneeded = () => open.result.createObjectStore('other');
        open.onsuccess = () => {
          open.result.close();
          resolve();
        };
        open.onerror = () => reject(open.error);
      });
      return window.oidcRp.indexedDbStorage('theirs').get('session').then(
        () => 'read',
        (error: Error) => error.name,
      );
    });
    expect(outcome).toBe('NotFoundError');
    // Nor does the failed call keep a connection open.
    expect(await deleteDatabase(b, 'theirs')).toBe('deleted');
    await a.context().close();
  });

  it('hands every write over with the refresh lock: the next holder never reads the previous value', async () => {
    const [a, b] = await twoTabs();
    const handOvers = 150;
    const stale: Array<{ wrote: string; read: string | null }> = [];
    for (let i = 0; i < handOvers; i++) {
      // Tab A holds the lock (as the crossTab part gives it to the refresh); tab B queues for it.
      await a.evaluate(
        () =>
          new Promise<void>((held) => {
            void window.oidcRp.webLock().run('refresh', () => new Promise<void>((release) => {
              window.release = release;
              held();
            }));
          }),
      );
      const read = b.evaluate(() => {
        const storage = window.oidcRp.indexedDbStorage();
        return window.oidcRp.webLock().run('refresh', () => storage.get('session'));
      });
      // A writes the rotated session, then releases the lock: B's read starts the moment it gets it.
      const wrote = `rotation-${i}`;
      await a.evaluate(async (value) => {
        await window.oidcRp.indexedDbStorage().set('session', value);
        window.release?.();
      }, wrote);
      const value = await read;
      if (value !== wrote) stale.push({ wrote, read: value });
    }
    expect(stale).toEqual([]);
    await a.context().close();
  });
});
