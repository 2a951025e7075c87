import { get } from 'node:http';
import { none, refreshTokens, serviceProvider } from '@oidc-rp/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logoutState, memoryStorage, revocation } from '../src/index';
import { PAGE, createTab, loggedInTab, startProvider, userinfoStatus, type Provider } from './harness';

let provider: Provider;
beforeAll(async () => {
  provider = await startProvider();
});
afterAll(() => provider.stop());

async function storedSession(storage: ReturnType<typeof memoryStorage>) {
  const [key] = await storage.keys();
  return JSON.parse((await storage.get(key!))!) as { refreshToken: string; idToken: string; accessToken: string };
}

describe('logout with the revocation part', () => {
  it('clears local state first, revokes the refresh token, then goes to the end-session endpoint', async () => {
    const storage = memoryStorage();
    let atRevocation: { status: string; stored: string[] } | undefined;
    const tab = await loggedInTab(
      provider,
      { tokenStorage: storage },
      {
        revocation,
        http: {
          fetch: async (input, init) => {
            if (String(input).endsWith('/oauth/revoke')) {
              atRevocation = { status: tab.client.getSnapshot().status, stored: await storage.keys() };
            }
            return fetch(input, init);
          },
        },
      },
    );
    const session = await storedSession(storage);
    const onLogout = vi.fn();
    tab.client.on('logout', onLogout);

    await tab.client.logout();

    expect(atRevocation).toEqual({ status: 'unauthenticated', stored: [] });
    expect(tab.client.getSnapshot().status).toBe('unauthenticated');
    expect(tab.client.getUser()).toBeUndefined();
    expect(onLogout).toHaveBeenCalledTimes(1);
    await expect(tab.client.getAccessToken()).rejects.toMatchObject({ code: 'login_required' });

    const endSession = new URL(tab.redirects.at(-1)!);
    expect(`${endSession.origin}${endSession.pathname}`).toBe(`${provider.issuer}/oidc/logout`);
    expect(endSession.searchParams.get('client_id')).toBe('spa');
    expect(endSession.searchParams.get('id_token_hint')).toBe(session.idToken);
    expect(endSession.searchParams.get('post_logout_redirect_uri')).toBe(PAGE);

    // The revoked refresh token is dead at the provider.
    await expect(
      refreshTokens({ provider: serviceProvider(provider.issuer), client: { clientId: 'spa' }, clientAuth: none(), refreshToken: session.refreshToken }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('uses returnTo, and does not navigate with redirect: false', async () => {
    const tab = await loggedInTab(provider);
    const redirects = tab.redirects.length;
    await tab.client.logout({ redirect: false });
    expect(tab.redirects).toHaveLength(redirects);

    const other = await loggedInTab(provider);
    await other.client.logout({ returnTo: 'http://localhost:5173/' });
    expect(new URL(other.redirects.at(-1)!).searchParams.get('post_logout_redirect_uri')).toBe('http://localhost:5173/');
  });

  it('still logs out locally and redirects when the revocation fails, and reports the failure', async () => {
    const tab = await loggedInTab(
      provider,
      {},
      {
        revocation,
        http: {
          fetch: (input, init) =>
            String(input).endsWith('/oauth/revoke') ? Promise.reject(new TypeError('Failed to fetch')) : fetch(input, init),
        },
      },
    );
    const errors = vi.fn();
    tab.client.on('error', errors);
    await tab.client.logout();
    expect(tab.client.getSnapshot().status).toBe('unauthenticated');
    expect(errors).toHaveBeenCalledWith(expect.objectContaining({ code: 'network_error' }));
    expect(tab.redirects.at(-1)).toContain('/oidc/logout');
  });

  it('without a session, revokes nothing but still ends the provider session', async () => {
    const tab = createTab(provider, {}, { revocation });
    await tab.client.init();
    const revocations = await provider.count('/oauth/revoke');
    const onLogout = vi.fn();
    tab.client.on('logout', onLogout);
    await tab.client.logout();
    expect(await provider.count('/oauth/revoke')).toBe(revocations);
    expect(onLogout).not.toHaveBeenCalled();
    const endSession = new URL(tab.redirects.at(-1)!);
    expect(endSession.pathname).toBe('/demo/oidc/logout');
    expect(endSession.searchParams.has('id_token_hint')).toBe(false);
  });

  it('leaves the access token of the ended session unusable at the resource', async () => {
    const storage = memoryStorage();
    const tab = await loggedInTab(provider, { tokenStorage: storage }, { revocation });
    const { accessToken } = await storedSession(storage);
    expect(await userinfoStatus(provider, accessToken)).toBe(200);
    await tab.client.logout({ redirect: false });
    expect(await userinfoStatus(provider, accessToken)).toBe(401);
  });
});

describe('logout without the revocation part', () => {
  it('ends the session locally and at the provider, but sends no revocation: the refresh token lives on at the provider', async () => {
    const storage = memoryStorage();
    const tab = await loggedInTab(provider, { tokenStorage: storage });
    const session = await storedSession(storage);
    const revocations = await provider.count('/oauth/revoke');
    await tab.client.logout();
    expect(tab.client.getSnapshot().status).toBe('unauthenticated');
    expect(await storage.keys()).toEqual([]);
    expect(new URL(tab.redirects.at(-1)!).pathname).toBe('/demo/oidc/logout');
    expect(await provider.count('/oauth/revoke')).toBe(revocations);
    // The trade-off the part exists for: a copy of the refresh token taken earlier still works.
    const renewed = await refreshTokens({
      provider: serviceProvider(provider.issuer),
      client: { clientId: 'spa' },
      clientAuth: none(),
      refreshToken: session.refreshToken,
    });
    expect(renewed.accessToken).toBeTruthy();
  });
});

describe('logout with the logoutState part (RP-Initiated Logout 1.0 state)', () => {
  /**
   * Follows the client's end-session URL at the provider as the browser's navigation would
   * (node:http: a page's fetch could not read the provider's redirect, cross-origin): where the
   * provider sends the browser back.
   */
  function atProvider(endSession: string): Promise<URL> {
    return new Promise((resolve, reject) => {
      get(endSession, (response) => {
        response.resume();
        if (response.statusCode !== 302) reject(new Error(`the provider answered ${response.statusCode}`));
        else resolve(new URL(response.headers.location as string));
      }).on('error', reject);
    });
  }

  it('sends a fresh state, which the provider returns on the post-logout redirect; handleLogoutCallback accepts it once', async () => {
    const states = memoryStorage();
    const check = logoutState({ storage: states });
    const tab = await loggedInTab(provider, {}, { logoutState: check });
    await tab.client.logout();
    const endSession = new URL(tab.redirects.at(-1) as string);
    const state = endSession.searchParams.get('state') as string;
    expect(state).toMatch(/^[\w-]{43}$/);
    const back = await atProvider(endSession.href);
    expect(`${back.origin}${back.pathname}`).toBe(PAGE);
    expect(back.searchParams.get('state')).toBe(state);

    await expect(check.handleLogoutCallback(back.href)).resolves.toBeUndefined();
    await expect(check.handleLogoutCallback(back.href)).rejects.toMatchObject({ code: 'logout_state_mismatch' }); // used once
    expect(await states.keys()).toEqual([]);
  });

  it('refuses a post-logout redirect with another state, none, or in a tab that sent no logout', async () => {
    const states = memoryStorage();
    const check = logoutState({ storage: states });
    const tab = await loggedInTab(provider, {}, { logoutState: check });
    await tab.client.logout();
    const back = await atProvider(tab.redirects.at(-1) as string);
    const forged = new URL(back);
    forged.searchParams.set('state', 'x'.repeat(43));
    await expect(check.handleLogoutCallback(forged.href)).rejects.toMatchObject({ code: 'logout_state_mismatch' });
    // The mismatch spent the stored state: the genuine response no longer passes either.
    await expect(check.handleLogoutCallback(back.href)).rejects.toMatchObject({ code: 'logout_state_mismatch' });

    await tab.client.logout();
    const noState = new URL(await atProvider(tab.redirects.at(-1) as string));
    noState.searchParams.delete('state');
    await expect(check.handleLogoutCallback(noState.href)).rejects.toMatchObject({ code: 'logout_state_mismatch' });
    await expect(logoutState({ storage: memoryStorage() }).handleLogoutCallback(back.href)).rejects.toMatchObject({ code: 'logout_state_mismatch' });
  });

  it('without the part, logout sends no state (as before)', async () => {
    const tab = await loggedInTab(provider);
    await tab.client.logout();
    expect(new URL(tab.redirects.at(-1) as string).searchParams.has('state')).toBe(false);
  });
});
