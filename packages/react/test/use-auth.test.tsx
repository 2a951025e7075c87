import type { BrowserClient } from '@oidc-rp/browser';
import { OidcError, isOidcError } from '@oidc-rp/core';
import { act, cleanup, render, renderHook, screen } from '@testing-library/react';
import { renderToString } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthProvider, useAuth } from '../src/index';
import { alice, fakeClient } from './fake-client';

afterEach(cleanup);

function Status() {
  const { status, user, error } = useAuth();
  return (
    <p data-testid="status">
      {status}
      {user ? ` ${user.name}` : ''}
      {error ? ` ${error.code}` : ''}
    </p>
  );
}

function RenderCounter({ onRender }: { onRender: () => void }) {
  useAuth();
  onRender();
  return null;
}

describe('useAuth', () => {
  it('follows the client through loading, authenticated, error and unauthenticated', () => {
    const fake = fakeClient();
    render(
      <AuthProvider client={fake.client}>
        <Status />
      </AuthProvider>,
    );
    expect(screen.getByTestId('status').textContent).toBe('loading');

    act(() => fake.set({ status: 'authenticated', user: alice, expiresAt: 2_000_000_000 }));
    expect(screen.getByTestId('status').textContent).toBe('authenticated Alice Liddell');

    act(() => fake.set({ status: 'error', error: new OidcError('state_mismatch', 'The state does not match.') }));
    expect(screen.getByTestId('status').textContent).toBe('error state_mismatch');

    act(() => fake.set({ status: 'unauthenticated' }));
    expect(screen.getByTestId('status').textContent).toBe('unauthenticated');
  });

  it('re-renders only when the snapshot changes identity, not on every notification', () => {
    const fake = fakeClient({ status: 'authenticated', user: alice });
    let renders = 0;
    render(
      <AuthProvider client={fake.client}>
        <RenderCounter
          onRender={() => {
            renders += 1;
          }}
        />
      </AuthProvider>,
    );
    const afterMount = renders;

    act(() => {
      fake.notify();
      fake.notify();
    });
    expect(renders).toBe(afterMount);

    act(() => fake.set({ status: 'unauthenticated' }));
    expect(renders).toBe(afterMount + 1);
  });

  it('returns the same object and the same functions while nothing changes', () => {
    const fake = fakeClient({ status: 'authenticated', user: alice });
    const { result, rerender } = renderHook(() => useAuth(), {
      wrapper: ({ children }) => <AuthProvider client={fake.client}>{children}</AuthProvider>,
    });
    const first = result.current;
    rerender();
    expect(result.current).toBe(first);

    act(() => fake.set({ status: 'authenticated', user: { ...alice, name: 'Alice' } }));
    expect(result.current).not.toBe(first);
    expect(result.current.login).toBe(first.login);
    expect(result.current.fetch).toBe(first.fetch);
  });

  it('passes actions through to the client with their arguments', async () => {
    const fake = fakeClient({ status: 'authenticated', user: alice });
    const { result } = renderHook(() => useAuth(), {
      wrapper: ({ children }) => <AuthProvider client={fake.client}>{children}</AuthProvider>,
    });

    // fetch is the browser package's authorizedFetch over this client: its token, the global fetch.
    const api = vi.fn(async (request: Request) => new Response(request.headers.get('authorization')));
    vi.stubGlobal('fetch', api);
    try {
      const response = await result.current.fetch('http://127.0.0.1:4000/demo/oidc/userinfo', { method: 'GET' });
      expect(await response.text()).toBe('Bearer access-token');
    } finally {
      vi.unstubAllGlobals();
    }
    expect(api.mock.calls[0]?.[0].url).toBe('http://127.0.0.1:4000/demo/oidc/userinfo');
    fake.client.getAccessToken.mockClear();

    await expect(result.current.getAccessToken({ minValidity: 10 })).resolves.toBe('access-token');
    expect(fake.client.getAccessToken).toHaveBeenCalledWith({ minValidity: 10 });

    await result.current.login({ prompt: 'login' });
    expect(fake.client.login).toHaveBeenCalledWith({ prompt: 'login' });

    await result.current.logout({ returnTo: 'http://127.0.0.1:5173/' });
    expect(fake.client.logout).toHaveBeenCalledWith({ returnTo: 'http://127.0.0.1:5173/' });
    expect(result.current.client).toBe(fake.client);
  });

  it('sends fetch through the client’s DPoP key when the client has the dpop part, never as Bearer', async () => {
    const fake = fakeClient({ status: 'authenticated', user: alice });
    const request = vi.fn(async (token: string, input: RequestInfo | URL) => new Response(`DPoP ${token} ${String(input instanceof Request ? input.url : input)}`));
    fake.client.dpop = {
      handle: vi.fn(),
      proof: vi.fn(),
      request,
    } as unknown as BrowserClient['dpop'];
    const api = vi.fn(async () => new Response('bearer'));
    vi.stubGlobal('fetch', api);
    try {
      const { result } = renderHook(() => useAuth(), {
        wrapper: ({ children }) => <AuthProvider client={fake.client}>{children}</AuthProvider>,
      });
      const response = await result.current.fetch('http://127.0.0.1:4000/demo/oidc/userinfo');
      expect(await response.text()).toBe('DPoP access-token http://127.0.0.1:4000/demo/oidc/userinfo');
    } finally {
      vi.unstubAllGlobals();
    }
    expect(request).toHaveBeenCalledTimes(1);
    expect(api).not.toHaveBeenCalled();
  });

  it('throws an error naming AuthProvider when used outside one', () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    let thrown: unknown;
    try {
      renderHook(() => useAuth());
    } catch (error) {
      thrown = error;
    }
    expect(isOidcError(thrown) && thrown.code).toBe('invalid_options');
    expect((thrown as Error).message).toMatch(/outside <AuthProvider>.*AuthProvider client=/);
  });

  it('renders status "loading" on the server and starts nothing there', () => {
    const fake = fakeClient({ status: 'authenticated', user: alice });
    const html = renderToString(
      <AuthProvider client={fake.client}>
        <Status />
      </AuthProvider>,
    );
    expect(html).toContain('loading');
    expect(html).not.toContain('Alice');
    expect(fake.client.init).not.toHaveBeenCalled();
    expect(fake.client.subscribe).not.toHaveBeenCalled();
  });

  it('follows a new client when the provider is given another one, and unsubscribes from the old', () => {
    const first = fakeClient({ status: 'unauthenticated' });
    const second = fakeClient({ status: 'authenticated', user: alice });
    const { rerender } = render(
      <AuthProvider client={first.client}>
        <Status />
      </AuthProvider>,
    );
    expect(screen.getByTestId('status').textContent).toBe('unauthenticated');

    rerender(
      <AuthProvider client={second.client}>
        <Status />
      </AuthProvider>,
    );
    expect(screen.getByTestId('status').textContent).toBe('authenticated Alice Liddell');
    expect(first.listenerCount()).toBe(0);
    expect(second.client.init).toHaveBeenCalledTimes(1);
  });
});
