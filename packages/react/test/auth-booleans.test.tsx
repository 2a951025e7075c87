// The incumbents' hook shape: isLoading / isAuthenticated beside status, the raw ID token, and
// the withAuthenticationRequired HOC beside <RequireAuth>.
import { OidcError } from '@oidc-rp/core';
import { act, cleanup, render, renderHook, screen } from '@testing-library/react';
import { StrictMode, type ReactNode } from 'react';
import { renderToString } from 'react-dom/server';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthProvider, useAuth, withAuthenticationRequired } from '../src/index';
import { alice, fakeClient } from './fake-client';

afterEach(() => {
  cleanup();
  window.history.replaceState(null, '', '/');
});

describe('useAuth booleans and idToken', () => {
  it('derives isLoading and isAuthenticated from status in every state, and passes the ID token through', () => {
    const fake = fakeClient();
    const wrapper = ({ children }: { children: ReactNode }) => <AuthProvider client={fake.client}>{children}</AuthProvider>;
    const { result } = renderHook(() => useAuth(), { wrapper });
    expect(result.current).toMatchObject({ status: 'loading', isLoading: true, isAuthenticated: false, idToken: undefined });

    act(() => fake.set({ status: 'authenticated', user: alice, idToken: 'header.payload.signature' }));
    expect(result.current).toMatchObject({ isLoading: false, isAuthenticated: true, idToken: 'header.payload.signature', user: alice });

    act(() => fake.set({ status: 'error', error: new OidcError('state_mismatch', 'x') }));
    expect(result.current).toMatchObject({ isLoading: false, isAuthenticated: false, idToken: undefined });
    expect(result.current.error?.code).toBe('state_mismatch');

    act(() => fake.set({ status: 'unauthenticated' }));
    expect(result.current).toMatchObject({ isLoading: false, isAuthenticated: false, user: undefined });
  });

  it('renders isLoading on the server', () => {
    const fake = fakeClient({ status: 'authenticated', user: alice });
    expect(renderToString(<AuthProvider client={fake.client}><Flags /></AuthProvider>)).toContain('true/false');
  });
});

function Flags() {
  const { isLoading, isAuthenticated } = useAuth();
  return <p>{`${isLoading}/${isAuthenticated}`}</p>;
}

function Orders({ page }: { page: number }) {
  const { user } = useAuth();
  return <p data-testid="orders">{`orders of ${user?.name} page ${page}`}</p>;
}
const ProtectedOrders = withAuthenticationRequired(Orders, { fallback: <p data-testid="fallback">signing in</p> });

describe('withAuthenticationRequired', () => {

  it('renders the component with its props when signed in', async () => {
    const fake = fakeClient({ status: 'authenticated', user: alice });
    render(<AuthProvider client={fake.client}><ProtectedOrders page={3} /></AuthProvider>);
    await act(async () => {});
    expect(screen.getByTestId('orders').textContent).toBe('orders of Alice Liddell page 3');
    expect(fake.client.login).not.toHaveBeenCalled();
    expect(ProtectedOrders.displayName).toBe('withAuthenticationRequired(Orders)');
  });

  it('shows the fallback and starts exactly one login (StrictMode) with returnTo when signed out', async () => {
    window.history.replaceState(null, '', '/orders?page=3');
    const fake = fakeClient({ status: 'unauthenticated' });
    render(<StrictMode><AuthProvider client={fake.client}><ProtectedOrders page={3} /></AuthProvider></StrictMode>);
    await act(async () => {});
    expect(screen.getByTestId('fallback')).toBeTruthy();
    expect(screen.queryByTestId('orders')).toBeNull();
    expect(fake.client.login).toHaveBeenCalledTimes(1);
    expect(fake.client.login).toHaveBeenCalledWith({ appState: { returnTo: '/orders?page=3' } });
  });

  it('passes loginOptions to the login it starts', async () => {
    const Strict = withAuthenticationRequired(Orders, { loginOptions: { prompt: 'login' } });
    const fake = fakeClient({ status: 'unauthenticated' });
    render(<AuthProvider client={fake.client}><Strict page={1} /></AuthProvider>);
    await act(async () => {});
    expect(fake.client.login).toHaveBeenCalledWith(expect.objectContaining({ prompt: 'login' }));
  });
});
