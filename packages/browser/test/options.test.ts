import { type OidcError, isOidcError, serviceProvider } from '@oidc-rp/core';
import { describe, expect, it } from 'vitest';
import { type BrowserClientOptions, createBrowserClient, crossTab, discovery, implicitFlow, memoryStorage, mutexLock } from '../src/index';

const ISSUER = 'http://127.0.0.1:4000/demo';
const base: BrowserClientOptions = {
  provider: discovery(ISSUER),
  clientId: 'spa',
  redirectUri: 'http://127.0.0.1:5173/callback',
};
const page = (redirects: string[]) => ({
  currentUrl: () => 'http://127.0.0.1:5173/',
  redirect: (url: string) => void redirects.push(url),
  replaceUrl: () => undefined,
});

function refusal(options: unknown): OidcError {
  try {
    createBrowserClient(options as BrowserClientOptions);
  } catch (error) {
    if (isOidcError(error)) return error;
    throw error;
  }
  throw new Error('createBrowserClient accepted the options');
}

describe('options', () => {
  it('refuses a client secret and says why', () => {
    const error = refusal({ ...base, clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4' });
    expect(error.code).toBe('client_secret_in_browser');
    expect(error.message).toMatch(/public client/);
    expect(error.message).toMatch(/PKCE/);
    expect(error.message).not.toContain('web-secret-of-the-demo-Zq7Xk2Lm9Vb4');
  });

  it('refuses a client secret under its OAuth name too', () => {
    expect(refusal({ ...base, client_secret: 's' }).code).toBe('client_secret_in_browser');
  });

  it.each([
    ['no client ID', { ...base, clientId: '' }, /clientId/],
    ['a relative redirect URI', { ...base, redirectUri: '/callback' }, /redirectUri/],
    ['a redirect URI with a fragment', { ...base, redirectUri: 'http://127.0.0.1:5173/callback#x' }, /redirectUri/],
    ['no provider', { clientId: 'spa', redirectUri: base.redirectUri }, /provider/],
    ['an issuer string instead of a provider', { clientId: 'spa', redirectUri: base.redirectUri, issuer: ISSUER }, /provider/],
    ['a negative refresh leeway', { ...base, refreshLeeway: -1 }, /refreshLeeway/],
    ['an unknown token storage', { ...base, tokenStorage: 'cookies' }, /tokenStorage/],
    // Tabs sharing a rotating refresh token must refresh one at a time: shared tokens come with crossTab.
    // Chromium caches localStorage per tab: a tab taking the refresh lock can read a used refresh token.
    ['localStorage tokens', { ...base, tokenStorage: 'localStorage', crossTab: crossTab() }, /crossTab\(\{ storage: 'indexedDB' \}\)/],
    ['indexedDB tokens outside the crossTab part', { ...base, tokenStorage: 'indexedDB' }, /crossTab\(\{ storage: 'indexedDB' \}\)/],
    ['two places for the tokens', { ...base, tokenStorage: 'sessionStorage', crossTab: crossTab({ storage: 'indexedDB' }) }, /keep one/],
  ])('refuses %s with invalid_options', (_name, options, message) => {
    const error = refusal(options);
    expect(error.code).toBe('invalid_options');
    expect(error.message).toMatch(message);
  });

  it('accepts the minimal options, each part as one value, and ready metadata', () => {
    expect(createBrowserClient(base).getSnapshot().status).toBe('loading');
    expect(createBrowserClient({ ...base, implicitFlow }).getSnapshot().status).toBe('loading');
    expect(createBrowserClient({ ...base, provider: serviceProvider(ISSUER) })).toBeDefined();
    expect(createBrowserClient({ ...base, crossTab: crossTab({ storage: 'indexedDB' }) }).getSnapshot().status).toBe('loading');
    expect(createBrowserClient({ ...base, crossTab: crossTab({ storage: memoryStorage(), lock: mutexLock() }) })).toBeDefined();
  });

  it('discovers once per client, and tries again on the next call after a failed discovery', async () => {
    const asked: string[] = [];
    const fetch = (async (input: RequestInfo | URL) => {
      asked.push(String(input));
      if (asked.length === 1) return new Response('down', { status: 503 });
      return Response.json(serviceProvider(ISSUER));
    }) as typeof globalThis.fetch;
    const redirects: string[] = [];
    const client = createBrowserClient({ ...base, provider: discovery(ISSUER), http: { fetch }, transactionStorage: memoryStorage(), navigate: page(redirects) });
    await expect(client.login()).rejects.toMatchObject({ code: 'discovery_failed' });
    await client.login();
    await client.login();
    expect(asked).toEqual([`${ISSUER}/.well-known/openid-configuration`, `${ISSUER}/.well-known/openid-configuration`]);
    expect(redirects.map((url) => new URL(url).pathname)).toEqual(['/demo/oidc/authorize', '/demo/oidc/authorize']);
  });

  it('sends no option to the provider that is not a typed, documented parameter', async () => {
    const redirects: string[] = [];
    // An untyped option (max_age, a prompt, anything) given to the client never reaches the URL.
    const untyped = { maxAge: 0, max_age: '0', prompt: 'none', acr_values: 'x', extra: { foo: 'bar' }, responseMode: 'fragment' };
    const client = createBrowserClient({
      ...base,
      provider: serviceProvider(ISSUER),
      transactionStorage: memoryStorage(),
      navigate: page(redirects),
      ...untyped,
    } as BrowserClientOptions);
    await client.login();
    const sent = new URL(redirects[0]!).searchParams;
    expect([...sent.keys()].sort()).toEqual(
      ['client_id', 'code_challenge', 'code_challenge_method', 'nonce', 'redirect_uri', 'response_type', 'scope', 'state'].sort(),
    );
    expect(sent.has('prompt')).toBe(false); // not the untyped 'none' (and the service needs no prompt for offline_access, below)
  });

  it('asks for consent with offline_access (OpenID Connect Core 11), and sends a prompt the app chose as is', async () => {
    const redirects: string[] = [];
    // A standard provider: not the service profile (no pkce_replaces_client_secret).
    const standard = serviceProvider(ISSUER, { pkce_replaces_client_secret: false });
    const client = createBrowserClient({ ...base, provider: standard, transactionStorage: memoryStorage(), navigate: page(redirects) });
    await client.login();
    await client.login({ prompt: 'login' });
    const withoutOffline = createBrowserClient({
      ...base,
      provider: standard,
      scope: 'openid profile',
      transactionStorage: memoryStorage(),
      navigate: page(redirects),
    });
    await withoutOffline.login();
    const [first, chosen, plain] = redirects.map((url) => new URL(url).searchParams);
    expect(first!.get('scope')).toContain('offline_access');
    expect(first!.get('prompt')).toBe('consent');
    expect(chosen!.get('prompt')).toBe('login');
    expect(plain!.has('prompt')).toBe(false);
  });

  it('sends no prompt with offline_access to the service, which asks for consent only when not yet given', async () => {
    const redirects: string[] = [];
    const client = createBrowserClient({ ...base, provider: serviceProvider(ISSUER), transactionStorage: memoryStorage(), navigate: page(redirects) });
    await client.login();
    const sent = new URL(redirects[0]!).searchParams;
    expect(sent.get('scope')).toContain('offline_access');
    expect(sent.has('prompt')).toBe(false);
  });
});
