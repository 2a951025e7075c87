import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { memoryStorage, popupLogin } from '../src/index';
import { createTab, signIn, startProvider, type Provider } from './harness';

let provider: Provider;
beforeAll(async () => {
  provider = await startProvider();
});
afterAll(() => provider.stop());
afterEach(() => {
  Reflect.deleteProperty(window, 'opener');
});

function fakePopup() {
  const popup = {
    location: { href: '' },
    closed: false,
    close: vi.fn(() => {
      popup.closed = true;
    }),
  };
  return popup;
}

function relay(url: string, from: { origin: string; source: unknown }) {
  window.dispatchEvent(
    new MessageEvent('message', { data: { type: 'oidc-rp:callback', url }, origin: from.origin, source: from.source as Window }),
  );
}

describe('login in a popup', () => {
  it('logs in without leaving the page, trusting only its own popup on its own origin', async () => {
    const popup = fakePopup();
    const transactions = memoryStorage();
    const tab = createTab(provider, { transactionStorage: transactions, navigate: { openPopup: () => popup as unknown as Window } }, { popupLogin });
    const finished = tab.client.login({ popup: true, appState: 'x' });
    await vi.waitFor(() => expect(popup.location.href).toContain('/oidc/authorize'), { timeout: 10_000 });
    expect(await transactions.keys()).toEqual([]); // the popup's transaction stays in memory
    const callbackUrl = await provider.login(popup.location.href);

    relay(callbackUrl, { origin: 'http://evil.test', source: popup }); // another origin
    relay(callbackUrl, { origin: location.origin, source: window }); // not the popup
    expect(popup.close).not.toHaveBeenCalled();
    relay(callbackUrl, { origin: location.origin, source: popup });
    await finished;

    expect(tab.redirects).toEqual([]);
    expect(popup.close).toHaveBeenCalled();
    expect(tab.client.getSnapshot()).toMatchObject({ status: 'authenticated', user: { sub: 'alice' } });
  });

  it('the app loaded in the popup hands the callback to its opener instead of redeeming it', async () => {
    const opener = { location: { origin: location.origin }, postMessage: vi.fn() };
    Object.defineProperty(window, 'opener', { value: opener, configurable: true });
    const starter = createTab(provider);
    const callbackUrl = await signIn(starter, provider);
    const inPopup = createTab(provider, {}, { popupLogin });
    const exchanges = await provider.count('/oidc/token');

    await expect(inPopup.client.handleRedirectCallback(callbackUrl)).rejects.toMatchObject({ code: 'transaction_not_found' });

    expect(opener.postMessage).toHaveBeenCalledWith({ type: 'oidc-rp:callback', url: callbackUrl }, location.origin);
    expect(await provider.count('/oidc/token')).toBe(exchanges);
  });

  it('never relays to an opener of another origin', async () => {
    const opener = { location: { origin: 'http://evil.test' }, postMessage: vi.fn() };
    Object.defineProperty(window, 'opener', { value: opener, configurable: true });
    const tab = createTab(provider, {}, { popupLogin });
    await expect(tab.client.handleRedirectCallback(`http://127.0.0.1:5173/callback?code=c&state=s`)).rejects.toMatchObject({
      code: 'transaction_not_found',
    });
    expect(opener.postMessage).not.toHaveBeenCalled();
  });

  it('reports a blocked popup with popup_blocked', async () => {
    const tab = createTab(provider, {}, { popupLogin });
    const errors = vi.fn();
    tab.client.on('error', errors);
    await expect(tab.client.login({ popup: true })).rejects.toMatchObject({ code: 'popup_blocked' });
    expect(errors).toHaveBeenCalledWith(expect.objectContaining({ code: 'popup_blocked' }));
  });

  it('opens the popup with window.open when the navigation has no openPopup of its own', async () => {
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    try {
      const tab = createTab(provider, { navigate: { openPopup: undefined } }, { popupLogin });
      await expect(tab.client.login({ popup: true })).rejects.toMatchObject({ code: 'popup_blocked' });
      expect(open).toHaveBeenCalledWith('', 'oidc-rp-login', expect.stringContaining('popup'));
    } finally {
      open.mockRestore();
    }
  });

  it('reports a popup closed by the user with popup_closed, and stays logged out', async () => {
    const popup = fakePopup();
    const tab = createTab(provider, { navigate: { openPopup: () => popup as unknown as Window } }, { popupLogin });
    await tab.client.init();
    const finished = tab.client.login({ popup: true });
    await vi.waitFor(() => expect(popup.location.href).toContain('/oidc/authorize'), { timeout: 10_000 });
    popup.closed = true;
    await expect(finished).rejects.toMatchObject({ code: 'popup_closed' });
    expect(tab.client.getSnapshot().status).toBe('unauthenticated');
  });

  it('is opt-in: without the popupLogin part, login({ popup: true }) opens nothing and says what to add', async () => {
    const openPopup = vi.fn(() => null);
    const tab = createTab(provider, { navigate: { openPopup } });
    await expect(tab.client.login({ popup: true })).rejects.toMatchObject({ code: 'invalid_options', message: /popupLogin/ });
    expect(openPopup).not.toHaveBeenCalled();
    expect(tab.redirects).toEqual([]);
  });
});
