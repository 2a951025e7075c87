// @vitest-environment node
import { describe, expect, it } from 'vitest';

describe('server-side rendering', () => {
  it('runs in an environment without window, document or storage', () => {
    expect(typeof (globalThis as { window?: unknown }).window).toBe('undefined');
    expect(typeof (globalThis as { document?: unknown }).document).toBe('undefined');
    expect(typeof (globalThis as { sessionStorage?: unknown }).sessionStorage).toBe('undefined');
  });

  it('imports the package and creates a client without touching browser APIs', async () => {
    const { createBrowserClient, discovery } = await import('../src/index');
    const client = createBrowserClient({
      provider: discovery('http://127.0.0.1:4000/demo'),
      clientId: 'spa',
      redirectUri: 'http://127.0.0.1:5173/callback',
    });
    const unsubscribe = client.subscribe(() => undefined);
    expect(client.getSnapshot()).toEqual({ status: 'loading' });
    expect(client.getSnapshot()).toBe(client.getSnapshot());
    expect(client.getUser()).toBeUndefined();
    expect(client.isRedirectCallback()).toBe(false);
    expect(client.isRedirectCallback('http://127.0.0.1:5173/callback?code=c&state=s')).toBe(true);
    unsubscribe();
  });
});
