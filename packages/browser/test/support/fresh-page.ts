// Runs before every test file of the shared projects (vitest.config.ts). The files share one page
// and module graph; this gives each the page a process of its own gave it: empty storage, the
// app's URL, no cookies, no timers, stubs or mocks left on, and none of the earlier files'
// BroadcastChannels or window listeners still answering (an earlier file's client hearing this
// file's logout would clear this file's storage).
import { clearJwksCache } from '@oidc-rp/core';
import { vi } from 'vitest';

const PAGE = 'http://127.0.0.1:5173/';
/** happy-dom's own controls of the page (not on the DOM's `Window` type). */
type HappyDomWindow = { happyDOM: { abort(): Promise<void>; setURL(url: string): void } };

interface Leftovers {
  channels: Set<BroadcastChannel>;
  listeners: Array<{ type: string; listener: EventListenerOrEventListenerObject; options?: boolean | EventListenerOptions }>;
}

/** What the earlier files opened, recorded by the wrappers installed on the first file. */
function leftovers(): Leftovers {
  const key = Symbol.for('oidc-rp.test.fresh-page');
  const holder = globalThis as unknown as Record<symbol, Leftovers | undefined>;
  if (holder[key]) return holder[key];
  const recorded: Leftovers = { channels: new Set(), listeners: [] };
  holder[key] = recorded;
  if (typeof BroadcastChannel === 'function') {
    globalThis.BroadcastChannel = class extends BroadcastChannel {
      constructor(name: string) {
        super(name);
        recorded.channels.add(this);
      }
      override close() {
        recorded.channels.delete(this);
        super.close();
      }
    };
  }
  if (typeof window !== 'undefined') {
    // The global `addEventListener` is a bound copy of the window's: both are wrapped.
    const add = window.addEventListener.bind(window);
    const wrapped = (type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions) => {
      if (!listener) return;
      recorded.listeners.push({ type, listener, options });
      add(type, listener, options);
    };
    window.addEventListener = wrapped as typeof window.addEventListener;
    globalThis.addEventListener = wrapped as typeof globalThis.addEventListener;
  }
  return recorded;
}

const earlier = leftovers();
for (const channel of [...earlier.channels]) channel.close();
vi.useRealTimers();
vi.unstubAllGlobals();
vi.unstubAllEnvs();
clearJwksCache();

if (typeof window !== 'undefined') {
  for (const { type, listener, options } of earlier.listeners.splice(0)) window.removeEventListener(type, listener, options);
  // Timers and fetches the earlier files' page still had going.
  await (window as unknown as HappyDomWindow).happyDOM.abort();
  localStorage.clear();
  sessionStorage.clear();
  // A test page's cookies: expired by hand (no Cookie Store in happy-dom).
  for (const cookie of document.cookie.split(';')) {
    const name = cookie.split('=')[0]!.trim();
    // biome-ignore lint/suspicious/noDocumentCookie: the only cookie API happy-dom has
    if (name) document.cookie = `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
  }
  (window as unknown as HappyDomWindow).happyDOM.setURL(PAGE);
  history.replaceState(null, '', PAGE);
  Reflect.deleteProperty(window, 'opener');
  document.head.replaceChildren();
  document.body.replaceChildren();
}
