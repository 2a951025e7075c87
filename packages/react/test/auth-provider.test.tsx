import { act, cleanup, render, screen } from '@testing-library/react';
import { StrictMode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthProvider, useAuth } from '../src/index';
import { alice, fakeClient } from './fake-client';

afterEach(() => {
  cleanup();
  window.history.replaceState(null, '', '/');
});

function Status() {
  return <p data-testid="status">{useAuth().status}</p>;
}

describe('AuthProvider', () => {
  it('starts the client once, even under StrictMode double effects', async () => {
    const fake = fakeClient();
    render(
      <StrictMode>
        <AuthProvider client={fake.client}>
          <Status />
        </AuthProvider>
      </StrictMode>,
    );
    await act(async () => {});
    expect(fake.client.init).toHaveBeenCalledTimes(1);
    // StrictMode resubscribes, but only one subscription stays alive.
    expect(fake.listenerCount()).toBe(1);

    act(() => fake.set({ status: 'authenticated', user: alice }));
    expect(screen.getByTestId('status').textContent).toBe('authenticated');
  });

  it('does not surface a rejected init() as an unhandled rejection (the snapshot reports it)', async () => {
    const fake = fakeClient();
    const failure = new Error('discovery failed');
    fake.client.init.mockImplementation(() => Promise.reject(failure));
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      render(
        <AuthProvider client={fake.client}>
          <Status />
        </AuthProvider>,
      );
      await act(async () => {});
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });

  it('hands the login appState to onRedirectCallback once when the page is the callback', async () => {
    window.history.replaceState(null, '', '/callback?code=c&state=s&iss=x');
    const callbackUrl = window.location.href;
    const fake = fakeClient();
    fake.client.isRedirectCallback.mockImplementation((url?: string) => (url ?? '').includes('/callback?'));
    fake.client.handleRedirectCallback.mockResolvedValue({ appState: { returnTo: '/orders?page=2' }, user: alice });
    const onRedirectCallback = vi.fn();

    render(
      <StrictMode>
        <AuthProvider client={fake.client} onRedirectCallback={onRedirectCallback}>
          <Status />
        </AuthProvider>
      </StrictMode>,
    );
    await act(async () => {});

    expect(fake.client.handleRedirectCallback).toHaveBeenCalledTimes(1);
    expect(fake.client.handleRedirectCallback).toHaveBeenCalledWith(callbackUrl);
    expect(onRedirectCallback).toHaveBeenCalledTimes(1);
    expect(onRedirectCallback).toHaveBeenCalledWith({ returnTo: '/orders?page=2' });
  });

  it('does not call onRedirectCallback when the page is not a callback, or when the callback failed', async () => {
    const onRedirectCallback = vi.fn();
    const plain = fakeClient();
    render(<AuthProvider client={plain.client} onRedirectCallback={onRedirectCallback} />);
    await act(async () => {});
    expect(plain.client.handleRedirectCallback).not.toHaveBeenCalled();

    cleanup();
    window.history.replaceState(null, '', '/callback?code=c&state=tampered');
    const failing = fakeClient();
    failing.client.isRedirectCallback.mockReturnValue(true);
    failing.client.handleRedirectCallback.mockRejectedValue(new Error('state mismatch'));
    render(<AuthProvider client={failing.client} onRedirectCallback={onRedirectCallback} />);
    await act(async () => {});
    expect(failing.client.handleRedirectCallback).toHaveBeenCalledTimes(1);
    expect(onRedirectCallback).not.toHaveBeenCalled();
  });
});
