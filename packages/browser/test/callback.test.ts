import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { browserNavigation, memoryStorage } from '../src/index';
import { PAGE, createTab, signIn, startProvider, type Provider, type Tab } from './harness';

let provider: Provider;
beforeAll(async () => {
  provider = await startProvider();
});
afterAll(() => provider.stop());
afterEach(() => {
  history.replaceState(null, '', PAGE);
  sessionStorage.clear();
});

/** A tab on the real happy-dom page: its address bar is `location`, its history the page's. */
function pageTab(): Tab {
  const real = browserNavigation();
  return createTab(provider, { navigate: { currentUrl: real.currentUrl, replaceUrl: real.replaceUrl } });
}

async function landOnCallback(tab: Tab, consent: 'allow' | 'deny' = 'allow'): Promise<string> {
  const callbackUrl = await signIn(tab, provider, consent);
  history.replaceState(null, '', callbackUrl);
  return callbackUrl;
}

describe('handleRedirectCallback', () => {
  it('finishes a code + PKCE login: user, snapshot, login event, appState', async () => {
    const tab = createTab(provider);
    const onLogin = vi.fn();
    tab.client.on('login', onLogin);
    await tab.client.login({ appState: { returnTo: '/orders/42' } });
    const authorize = new URL(tab.redirects[0]!);
    expect(authorize.searchParams.get('response_type')).toBe('code');
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    const callbackUrl = await provider.login(authorize.href);

    const result = await tab.client.handleRedirectCallback(callbackUrl);

    expect(result.appState).toEqual({ returnTo: '/orders/42' });
    expect(result.user?.sub).toBe('alice');
    expect(tab.client.getUser()?.email).toBe('alice@example.com');
    expect(tab.client.getSnapshot()).toMatchObject({ status: 'authenticated', user: { sub: 'alice' } });
    // The raw ID token, for an id_token_hint: three base64url parts whose payload names alice.
    const idToken = tab.client.getSnapshot().idToken ?? '';
    expect(idToken.split('.')).toHaveLength(3);
    expect(JSON.parse(atob((idToken.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/')))).toMatchObject({ sub: 'alice' });
    expect(onLogin).toHaveBeenCalledWith({ user: expect.objectContaining({ sub: 'alice' }) });
    expect(await tab.client.getAccessToken()).toMatch(/.{20,}/);
  });

  it('returns the same result for the same URL twice and redeems the code once', async () => {
    const tab = createTab(provider);
    const callbackUrl = await signIn(tab, provider);
    const exchanges = await provider.count('/oidc/token');

    const first = await tab.client.handleRedirectCallback(callbackUrl);
    const second = await tab.client.handleRedirectCallback(callbackUrl);

    expect(second).toBe(first);
    expect(await provider.count('/oidc/token')).toBe(exchanges + 1);
    expect(tab.client.getSnapshot().status).toBe('authenticated');
  });

  it('shares one redemption between concurrent calls', async () => {
    const tab = createTab(provider);
    const callbackUrl = await signIn(tab, provider);
    const exchanges = await provider.count('/oidc/token');

    const results = await Promise.all([
      tab.client.handleRedirectCallback(callbackUrl),
      tab.client.handleRedirectCallback(callbackUrl),
      tab.client.init(),
    ]);

    expect(results[1]).toBe(results[0]);
    expect(results[2].status).toBe('authenticated');
    expect(await provider.count('/oidc/token')).toBe(exchanges + 1);
  });

  it('survives React StrictMode: a second call without a URL, after the address bar was cleaned, gets the same result', async () => {
    const tab = pageTab();
    await landOnCallback(tab);

    const first = tab.client.handleRedirectCallback(); // effect, first run
    const second = tab.client.handleRedirectCallback(); // effect, StrictMode re-run
    const third = await (async () => {
      await first;
      return tab.client.handleRedirectCallback(); // a later mount
    })();

    expect(await second).toBe(await first);
    expect(third).toBe(await first);
    expect(tab.client.getSnapshot().status).toBe('authenticated');
  });

  it('init() followed by handleRedirectCallback(url read before) shares one result (as @oidc-rp/react does)', async () => {
    const tab = pageTab();
    await landOnCallback(tab);
    const exchanges = await provider.count('/oidc/token');
    const url = location.href;

    const started = tab.client.init();
    expect(location.href).toBe('http://127.0.0.1:5173/callback'); // init cleaned it synchronously
    const result = await tab.client.handleRedirectCallback(url);

    expect((await started).status).toBe('authenticated');
    expect(result.user?.sub).toBe('alice');
    expect(await provider.count('/oidc/token')).toBe(exchanges + 1);
  });

  it('removes code, state and iss from the address bar at once, without adding a history entry', async () => {
    const tab = pageTab();
    const callbackUrl = await landOnCallback(tab);
    expect(new URL(callbackUrl).searchParams.has('code')).toBe(true);
    const entries = history.length;

    const pending = tab.client.handleRedirectCallback();
    expect(location.href).toBe('http://127.0.0.1:5173/callback'); // before the exchange even finished
    await pending;

    expect(location.href).toBe('http://127.0.0.1:5173/callback');
    expect(history.length).toBe(entries);
  });

  it('init() on the callback page finishes the login, and is idempotent', async () => {
    const tab = pageTab();
    await landOnCallback(tab);
    const exchanges = await provider.count('/oidc/token');

    const [one, two] = await Promise.all([tab.client.init(), tab.client.init()]);
    const three = await tab.client.init();

    expect(one).toBe(two);
    expect(three).toBe(one);
    expect(one.status).toBe('authenticated');
    expect(await provider.count('/oidc/token')).toBe(exchanges + 1);
    expect(location.search).toBe('');
  });

  it('a tampered state gives an error snapshot, no session, and redeems nothing', async () => {
    const tab = pageTab();
    const callbackUrl = new URL(await signIn(tab, provider));
    callbackUrl.searchParams.set('state', 'forged-state-value');
    history.replaceState(null, '', callbackUrl.href);
    const onError = vi.fn();
    tab.client.on('error', onError);
    const exchanges = await provider.count('/oidc/token');

    const snapshot = await tab.client.init();

    expect(snapshot.status).toBe('error');
    expect(snapshot.error?.code).toBe('transaction_not_found');
    expect(snapshot.user).toBeUndefined();
    expect(onError).toHaveBeenCalledWith(snapshot.error);
    expect(tab.client.getUser()).toBeUndefined();
    await expect(tab.client.getAccessToken()).rejects.toMatchObject({ code: 'login_required' });
    expect(await provider.count('/oidc/token')).toBe(exchanges);
    expect(location.search).toBe(''); // the code is gone from the address bar too
    expect(snapshot.error?.message).not.toContain(callbackUrl.searchParams.get('code')!);
  });

  it('a callback of a login started in another tab is refused with transaction_not_found', async () => {
    const starter = createTab(provider);
    const callbackUrl = await signIn(starter, provider);
    const other = createTab(provider);
    await expect(other.client.handleRedirectCallback(callbackUrl)).rejects.toMatchObject({ code: 'transaction_not_found' });
    expect(other.client.getSnapshot().status).toBe('error');
  });

  it('reports the provider refusing the login (consent denied) as an authorization_error snapshot', async () => {
    const tab = pageTab();
    await tab.client.login({ prompt: 'consent' }); // consent is remembered otherwise
    history.replaceState(null, '', await provider.login(tab.redirects[0]!, 'deny'));
    const snapshot = await tab.client.init();
    expect(snapshot.status).toBe('error');
    expect(snapshot.error).toMatchObject({ code: 'authorization_error', error: 'access_denied' });
    expect(tab.client.getUser()).toBeUndefined();
  });

  it('a bad callback does not end an existing session', async () => {
    const tab = createTab(provider);
    await tab.client.handleRedirectCallback(await signIn(tab, provider));
    const forged = `http://127.0.0.1:5173/callback?code=x&state=forged&iss=${encodeURIComponent(provider.issuer)}`;
    await expect(tab.client.handleRedirectCallback(forged)).rejects.toMatchObject({ code: 'transaction_not_found' });
    expect(tab.client.getSnapshot()).toMatchObject({ status: 'authenticated', error: { code: 'transaction_not_found' } });
    expect(await tab.client.getAccessToken()).toBeTruthy();
  });

  it('a replayed callback (Back button, reload) is quiet: callback_replayed, no error event, the session stays', async () => {
    const transactionStorage = memoryStorage();
    const tokenStorage = memoryStorage();
    const first = createTab(provider, { transactionStorage, tokenStorage });
    const callbackUrl = await signIn(first, provider);
    await first.client.handleRedirectCallback(callbackUrl);
    const exchanges = await provider.count('/oidc/token');

    // The page is loaded again on the same callback URL: a new client over the same storages.
    const again = createTab(provider, { transactionStorage, tokenStorage });
    again.url = callbackUrl;
    const errors = vi.fn();
    const replays = vi.fn();
    again.client.on('error', errors);
    again.client.on('callbackReplayed', replays);

    const snapshot = await again.client.init();
    await expect(again.client.handleRedirectCallback(callbackUrl)).rejects.toMatchObject({ code: 'callback_replayed' });

    expect(snapshot).toMatchObject({ status: 'authenticated', user: { sub: 'alice' } });
    expect(snapshot.error).toBeUndefined();
    expect(errors).not.toHaveBeenCalled();
    expect(replays).toHaveBeenCalledTimes(1);
    expect(again.url).toBe('http://127.0.0.1:5173/callback'); // cleaned as any callback
    expect(await provider.count('/oidc/token')).toBe(exchanges);
  });

  it('refuses a URL that is not a callback', async () => {
    const tab = createTab(provider);
    await expect(tab.client.handleRedirectCallback(`${PAGE}?page=2`)).rejects.toMatchObject({ code: 'state_missing' });
  });
});

describe('login transactions', () => {
  it('are kept in sessionStorage by default, keyed by state, and used once', async () => {
    const tab = createTab(provider, { transactionStorage: undefined }, { transactionStorage: undefined });
    const callbackUrl = await signIn(tab, provider);
    const state = new URL(callbackUrl).searchParams.get('state')!;
    expect(sessionStorage.getItem(`oidc-rp.tx.${state}`)).toContain('"codeVerifier"');

    await tab.client.handleRedirectCallback(callbackUrl);
    // Only a tombstone stays (to recognise a replay): no state value, verifier or nonce.
    expect(JSON.parse(sessionStorage.getItem(`oidc-rp.tx.${state}`) ?? '')).toEqual({ used: true, createdAt: expect.any(Number) });
  });

  it('older than 10 minutes are refused with transaction_expired', async () => {
    let offset = 0;
    const tab = createTab(provider, {}, { now: () => Math.floor(Date.now() / 1000) + offset });
    const callbackUrl = await signIn(tab, provider);
    offset = 601;
    await expect(tab.client.handleRedirectCallback(callbackUrl)).rejects.toMatchObject({ code: 'transaction_expired' });
  });

  it('expired ones are cleaned on every login (which is what adds entries); fresh ones and tombstones stay', async () => {
    const storage = memoryStorage();
    const tab = createTab(provider, { transactionStorage: storage });
    const now = Math.floor(Date.now() / 1000);
    const stale = (state: string) => JSON.stringify({ state, createdAt: now - 700, clientId: 'spa' });
    await storage.set('oidc-rp.tx.stale-1', stale('stale-1'));
    await storage.set('oidc-rp.tx.recent', JSON.stringify({ state: 'recent', createdAt: now - 60, clientId: 'spa' }));

    await tab.client.login();
    const afterLogin = await storage.keys();
    expect(afterLogin).not.toContain('oidc-rp.tx.stale-1');
    expect(afterLogin).toContain('oidc-rp.tx.recent');

    const callbackUrl = await provider.login(tab.redirects[0]!);
    const state = new URL(callbackUrl).searchParams.get('state')!;
    await storage.set('oidc-rp.tx.stale-2', stale('stale-2'));
    await tab.client.handleRedirectCallback(callbackUrl);
    const transactions = async () => (await storage.keys()).filter((key) => key.startsWith('oidc-rp.tx.')).sort();
    expect(await transactions()).toEqual(['oidc-rp.tx.recent', 'oidc-rp.tx.stale-2', `oidc-rp.tx.${state}`].sort());

    await tab.client.login();
    const next = new URL(tab.redirects[1]!).searchParams.get('state')!;
    // stale-2 is gone; the handled one stays as a tombstone (a day), the new login's entry is added.
    expect(await transactions()).toEqual(['oidc-rp.tx.recent', `oidc-rp.tx.${state}`, `oidc-rp.tx.${next}`].sort());
  });
});

describe('isRedirectCallback', () => {
  it('recognises the redirect URI with a response, and nothing else', () => {
    const tab = createTab(provider);
    expect(tab.client.isRedirectCallback('http://127.0.0.1:5173/callback?code=c&state=s')).toBe(true);
    expect(tab.client.isRedirectCallback('http://127.0.0.1:5173/callback?error=access_denied&state=s')).toBe(true);
    expect(tab.client.isRedirectCallback('http://127.0.0.1:5173/callback')).toBe(false);
    expect(tab.client.isRedirectCallback('http://127.0.0.1:5173/callback?code=c')).toBe(false);
    expect(tab.client.isRedirectCallback('http://127.0.0.1:5173/other?code=c&state=s')).toBe(false);
    expect(tab.client.isRedirectCallback('http://evil.test/callback?code=c&state=s')).toBe(false);
    expect(tab.client.isRedirectCallback('not a url')).toBe(false);
  });
});
