/**
 * Test parts: the reference server in a child process, reached over real HTTP from the DOM
 * environment (so CORS applies as in a browser), with its real login form driven by
 * completeLogin; and "tabs": browser clients over storage, lock and channel a test may share.
 */

import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { vi } from 'vitest';
import {
  createBrowserClient,
  memoryStorage,
  mutexLock,
  type BrowserClient,
  type BrowserClientOptions,
  type Channel,
  type ChannelMessage,
  type Lock,
  type Navigation,
  type StorageAdapter,
} from '../src/index';

export const PAGE = 'http://127.0.0.1:5173/';
export const REDIRECT_URI = 'http://127.0.0.1:5173/callback';

export interface Provider {
  origin: string;
  issuer: string;
  /** Signs alice in at `authorizeUrl` on the real login and consent pages; the redirect back to the app. */
  login(authorizeUrl: string, consent?: 'allow' | 'deny'): Promise<string>;
  /** Moves the provider's clock (seconds). */
  advance(seconds: number): Promise<void>;
  /** Puts the provider's clock back on real time. */
  resetClock(): Promise<void>;
  /** How many requests reached `path` (below the tenant, e.g. '/oauth/token') so far. */
  count(path: string, method?: string): Promise<number>;
  stop(): Promise<void>;
}

/** Starts the reference server (demo config) in a child process on 127.0.0.1, port 0. */
export async function startProvider(settings: { accessTokenLifetime?: number } = {}): Promise<Provider> {
  const script = join(import.meta.dirname, 'provider-process.mjs');
  const child: ChildProcess = fork(script, [JSON.stringify(settings)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  const origin = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`provider process exited with ${code}`)));
    child.on('message', (message: { ready?: boolean; origin?: string; id?: number; ok?: boolean; value?: unknown; message?: string }) => {
      if (message.ready) return resolve(message.origin!);
      const call = pending.get(message.id!);
      pending.delete(message.id!);
      if (message.ok) call?.resolve(message.value);
      else call?.reject(new Error(message.message));
    });
  });
  const call = <T>(type: string, args: object = {}) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.send({ id, type, ...args });
    });
  const issuer = `${origin}/demo`;
  return {
    origin,
    issuer,
    async login(authorizeUrl, consent) {
      const result = await call<{ type: string; location?: string }>('login', { url: authorizeUrl, consent });
      if (result.type !== 'redirect' || !result.location) throw new Error(`unexpected ${result.type} response`);
      return result.location;
    },
    advance: (seconds) => call('advance', { ms: seconds * 1000 }),
    resetClock: () => call('resetClock'),
    async count(path, method) {
      const paths = await call<string[]>('paths');
      return paths.filter((entry) => entry === `${method ?? 'POST'} /demo${path}`).length;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}

/** Channels between tabs of one simulated browser; like BroadcastChannel, a tab never hears itself. */
export function channelHub(): () => Channel {
  const everyone = new Set<(message: ChannelMessage) => void>();
  return () => {
    const mine = new Set<(message: ChannelMessage) => void>();
    return {
      post(message) {
        const copy = structuredClone(message);
        for (const handler of everyone) if (!mine.has(handler)) queueMicrotask(() => handler(copy));
      },
      listen(handler) {
        mine.add(handler);
        everyone.add(handler);
        return () => {
          mine.delete(handler);
          everyone.delete(handler);
        };
      },
    };
  };
}

export interface Tab {
  client: BrowserClient;
  /** URLs the client navigated the page to (login, logout). */
  redirects: string[];
  /** The tab's address bar. */
  url: string;
}

/** The platform parts of a simulated tab; share them between tabs to simulate one browser. */
export interface TabParts {
  tokenStorage?: StorageAdapter;
  transactionStorage?: StorageAdapter;
  lock?: Lock;
  channel?: Channel;
  navigate?: Partial<Navigation>;
}

/** A client in a simulated tab whose address bar is `tab.url`. */
export function createTab(provider: Provider, parts: TabParts = {}, options: Partial<BrowserClientOptions> = {}): Tab {
  const tab: Tab = { client: undefined as unknown as BrowserClient, redirects: [], url: PAGE };
  const navigate: Navigation = {
    currentUrl: () => tab.url,
    redirect: (url) => void tab.redirects.push(url),
    replaceUrl: (url) => {
      tab.url = url;
    },
    openPopup: () => null,
    ...parts.navigate,
  };
  tab.client = createBrowserClient({
    issuer: provider.issuer,
    clientId: 'spa',
    redirectUri: REDIRECT_URI,
    postLogoutRedirectUri: PAGE,
    navigate,
    tokenStorage: parts.tokenStorage ?? memoryStorage(),
    transactionStorage: parts.transactionStorage ?? memoryStorage(),
    lock: parts.lock ?? mutexLock(),
    channel: parts.channel ?? channelHub()(),
    ...options,
  });
  return tab;
}

/** Starts a login in `tab` and signs in on the provider; returns the callback URL. */
export async function signIn(tab: Tab, provider: Provider, consent: 'allow' | 'deny' = 'allow'): Promise<string> {
  const before = tab.redirects.length;
  await tab.client.login();
  const authorizeUrl = tab.redirects[before];
  if (!authorizeUrl) throw new Error('login() did not navigate');
  return provider.login(authorizeUrl, consent);
}

/** A tab that went through a whole login: signed in, landed on the callback, `init()` done. */
export async function loggedInTab(provider: Provider, parts: TabParts = {}, options: Partial<BrowserClientOptions> = {}): Promise<Tab> {
  const tab = createTab(provider, parts, options);
  tab.url = await signIn(tab, provider);
  await tab.client.init();
  if (tab.client.getSnapshot().status !== 'authenticated') throw new Error('login failed');
  return tab;
}

/** Status of the provider's userinfo endpoint (a protected resource) for `accessToken`. */
export async function userinfoStatus(provider: Provider, accessToken: string): Promise<number> {
  const response = await fetch(`${provider.issuer}/oidc/userinfo`, { headers: { Authorization: `Bearer ${accessToken}` } });
  await response.text();
  return response.status;
}

/**
 * Fakes Date and timers for the client; `advance` moves the client's and the provider's clocks
 * together. Undo with `vi.useRealTimers()` and `provider.resetClock()`.
 */
export function fakeClock(provider: Provider) {
  vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  return {
    async advance(seconds: number) {
      await provider.advance(seconds);
      await vi.advanceTimersByTimeAsync(seconds * 1000);
    },
  };
}

export { mutexLock };
