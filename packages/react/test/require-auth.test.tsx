import { act, cleanup, render, screen } from '@testing-library/react';
import { Component, StrictMode, type ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthProvider, RequireAuth } from '../src/index';
import { alice, fakeClient } from './fake-client';

afterEach(() => {
  cleanup();
  window.history.replaceState(null, '', '/');
});

class Boundary extends Component<{ children: ReactNode }, { error?: Error }> {
  override state: { error?: Error } = {};
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override render() {
    return this.state.error ? <p data-testid="boundary">{this.state.error.message}</p> : this.props.children;
  }
}

function protectedPage(client: ReturnType<typeof fakeClient>['client'], strict = false) {
  const tree = (
    <AuthProvider client={client}>
      <RequireAuth fallback={<p data-testid="fallback">signing in</p>}>
        <p data-testid="secret">secret</p>
      </RequireAuth>
    </AuthProvider>
  );
  return render(strict ? <StrictMode>{tree}</StrictMode> : tree);
}

describe('RequireAuth', () => {
  it('renders its children when signed in, without starting a login', async () => {
    const fake = fakeClient({ status: 'authenticated', user: alice });
    protectedPage(fake.client);
    await act(async () => {});
    expect(screen.getByTestId('secret')).toBeTruthy();
    expect(fake.client.login).not.toHaveBeenCalled();
  });

  it('shows the fallback while loading and waits for the session before deciding', async () => {
    const fake = fakeClient({ status: 'loading' });
    protectedPage(fake.client);
    await act(async () => {});
    expect(screen.getByTestId('fallback')).toBeTruthy();
    expect(screen.queryByTestId('secret')).toBeNull();
    expect(fake.client.login).not.toHaveBeenCalled();

    act(() => fake.set({ status: 'authenticated', user: alice }));
    expect(screen.getByTestId('secret')).toBeTruthy();
    expect(fake.client.login).not.toHaveBeenCalled();
  });

  it.each([
    ['when the session turns out absent after loading', 'loading'],
    ['when mounted already signed out (StrictMode double effects)', 'unauthenticated'],
  ] as const)('starts exactly one login under StrictMode %s, returning to the current path', async (_, initial) => {
    window.history.replaceState(null, '', '/orders?page=2#latest');
    const fake = fakeClient({ status: initial });
    protectedPage(fake.client, true);
    act(() => fake.set({ status: 'unauthenticated' }));
    await act(async () => {});

    expect(screen.getByTestId('fallback')).toBeTruthy();
    expect(screen.queryByTestId('secret')).toBeNull();
    expect(fake.client.login).toHaveBeenCalledTimes(1);
    expect(fake.client.login).toHaveBeenCalledWith({ appState: { returnTo: '/orders?page=2#latest' } });

    // Another notification with the same status does not start a second login.
    act(() => fake.set({ status: 'unauthenticated' }));
    await act(async () => {});
    expect(fake.client.login).toHaveBeenCalledTimes(1);
  });

  it('passes loginOptions along with the return path', async () => {
    window.history.replaceState(null, '', '/admin');
    const fake = fakeClient({ status: 'unauthenticated' });
    render(
      <AuthProvider client={fake.client}>
        <RequireAuth loginOptions={{ prompt: 'login' }}>
          <p>admin</p>
        </RequireAuth>
      </AuthProvider>,
    );
    await act(async () => {});
    expect(fake.client.login).toHaveBeenCalledWith({ appState: { returnTo: '/admin' }, prompt: 'login' });
    expect(screen.queryByText('admin')).toBeNull();
  });

  it('does not start a login after a failed one (status "error"): no redirect loop', async () => {
    const fake = fakeClient({ status: 'error' });
    protectedPage(fake.client);
    await act(async () => {});
    expect(screen.getByTestId('fallback')).toBeTruthy();
    expect(fake.client.login).not.toHaveBeenCalled();
  });

  it('throws a login that cannot start to the nearest error boundary', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const fake = fakeClient({ status: 'unauthenticated' });
    fake.client.login.mockRejectedValue(new Error('discovery failed'));
    render(
      <AuthProvider client={fake.client}>
        <Boundary>
          <RequireAuth>
            <p>secret</p>
          </RequireAuth>
        </Boundary>
      </AuthProvider>,
    );
    await act(async () => {});
    expect(screen.getByTestId('boundary').textContent).toBe('discovery failed');
  });
});
