// <AuthProviderWithOptions options={…}>: plain, serialisable options (what a Next.js server layout can
// pass) instead of a client object; the provider creates the client once.
import { act, cleanup, render, screen } from '@testing-library/react';
import { renderToString } from 'react-dom/server';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthProviderWithOptions, type AuthState, useAuth } from '../src/index';

afterEach(cleanup);

const options = {
  issuer: 'http://127.0.0.1:4000/demo',
  clientId: 'spa',
  // The page's own origin: on another one the client reports that at start (development build).
  redirectUri: `${location.origin}/callback`,
};

const seen: AuthState['client'][] = [];
function Probe() {
  const { client, status } = useAuth();
  seen.push(client);
  return <p data-testid="status">{status}</p>;
}

function LoadingProbe() {
  const { isLoading } = useAuth();
  return <p>{isLoading ? 'loading' : 'known'}</p>;
}

describe('AuthProviderWithOptions', () => {
  it('creates one client from the options and keeps it across re-renders with new option objects', async () => {
    seen.length = 0;
    const { rerender } = render(
      <AuthProviderWithOptions options={{ ...options }}>
        <Probe />
      </AuthProviderWithOptions>,
    );
    // No session stored in this tab: signed out, without a login callback in the URL.
    await act(async () => {});
    expect(screen.getByTestId('status').textContent).toBe('unauthenticated');
    rerender(
      <AuthProviderWithOptions options={{ ...options, clientId: 'ignored-after-creation' }}>
        <Probe />
      </AuthProviderWithOptions>,
    );
    await act(async () => {});
    expect(new Set(seen).size).toBe(1);
    expect(typeof seen[0]?.login).toBe('function');
  });

  it('with resources, the client has the resources part: useAuth().fetch sends nothing to a URL of no listed API', async () => {
    seen.length = 0;
    const api = 'http://127.0.0.1:3000/api';
    render(
      <AuthProviderWithOptions options={{ ...options, resources: [api] }}>
        <Probe />
      </AuthProviderWithOptions>,
    );
    await act(async () => {});
    const client = seen[0]!;
    expect(client.resources?.resources).toEqual([api]);
    expect(client.resources?.forUrl(`${api}/orders`)).toBe(api);
    expect(() => client.resources?.forUrl('http://127.0.0.1:3000/admin')).toThrow(expect.objectContaining({ code: 'resource_not_configured' }));
    // Without the option, no part: the client is as before.
    seen.length = 0;
    cleanup();
    render(
      <AuthProviderWithOptions options={options}>
        <Probe />
      </AuthProviderWithOptions>,
    );
    await act(async () => {});
    expect(seen[0]!.resources).toBeUndefined();
  });

  it('renders on the server (status loading) without touching window', () => {
    expect(renderToString(<AuthProviderWithOptions options={options}><LoadingProbe /></AuthProviderWithOptions>)).toContain('loading');
  });

  it('refuses invalid options with the browser client\u2019s clear error', () => {
    expect(() => renderToString(<AuthProviderWithOptions options={{ ...options, redirectUri: 'not a url' }} />)).toThrow(/redirectUri/);
  });
});
