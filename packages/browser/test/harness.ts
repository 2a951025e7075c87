/**
 * Test parts: the reference server in a child process (startServerProcess), reached over
 * real HTTP from the DOM environment (so CORS applies as in a browser), with its real login
 * form driven there; and "tabs": browser clients over storage, lock and channel a test may share
 * (a tab given a lock or a channel has the crossTab part).
 */

import { demoConfig } from '@oidc-rp/reference-server';
import { startServerProcess } from '@oidc-rp/reference-server/testing';
import { vi } from 'vitest';
import {
  createBrowserClient,
  crossTab,
  discovery,
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
  /** Makes the provider misbehave for `clientId` (a conformance fault), for its next `times` requests that meet it. */
  fault(clientId: string, fault: Parameters<Awaited<ReturnType<typeof startServerProcess>>['control']['faults']['set']>[1], times?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the reference server (demo config) in a child process on 127.0.0.1, port 0. */
export async function startProvider(
  settings: { accessTokenLifetime?: number; configure?: (config: ReturnType<typeof demoConfig>) => void } = {},
): Promise<Provider> {
  const config = demoConfig();
  const tenant = config.tenants[0]!;
  if (settings.accessTokenLifetime) tenant.lifetimes = { ...tenant.lifetimes, access_token: settings.accessTokenLifetime };
  settings.configure?.(config);
  const server = await startServerProcess(config);
  return {
    origin: server.origin,
    issuer: `${server.origin}/demo`,
    async login(authorizeUrl, consent) {
      const result = await server.login(authorizeUrl, { consent: consent ?? 'allow' });
      if (result.type !== 'redirect') throw new Error(`unexpected ${result.type} response`);
      return result.location;
    },
    advance: (seconds) => server.advanceClock(seconds * 1000),
    resetClock: () => server.resetClock(),
    async count(path, method) {
      const requests = await server.requests();
      return requests.filter((entry) => entry === `${method ?? 'POST'} /demo${path}`).length;
    },
    fault: (clientId, fault, times) => server.control.faults.set(clientId, fault, times === undefined ? undefined : { times }),
    stop: () => server.stop(),
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
  const tokens = parts.tokenStorage ?? memoryStorage();
  tab.client = createBrowserClient({
    provider: discovery(provider.issuer),
    clientId: 'spa',
    redirectUri: REDIRECT_URI,
    postLogoutRedirectUri: PAGE,
    navigate,
    transactionStorage: parts.transactionStorage ?? memoryStorage(),
    // Tabs given a lock or a channel act as one (the crossTab part, holding the tokens); others are sessions of their own.
    ...(parts.lock || parts.channel
      ? { crossTab: crossTab({ storage: tokens, lock: parts.lock ?? mutexLock(), channel: parts.channel ?? channelHub()() }) }
      : { tokenStorage: tokens }),
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
