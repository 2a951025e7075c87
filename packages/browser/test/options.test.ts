import { OidcError, isOidcError, serviceProvider } from '@oidc-rp/core';
import { describe, expect, it } from 'vitest';
import { type BrowserClientOptions, type Discover, createBrowserClient, crossTab, discover, implicitFlow, mutexLock } from '../src/index';

const base: BrowserClientOptions = {
  issuer: 'http://127.0.0.1:4000/demo',
  discover,
  clientId: 'spa',
  redirectUri: 'http://127.0.0.1:5173/callback',
};

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
    const error = refusal({ ...base, clientSecret: 'web-secret' });
    expect(error.code).toBe('client_secret_in_browser');
    expect(error.message).toMatch(/public client/);
    expect(error.message).toMatch(/PKCE/);
    expect(error.message).not.toContain('web-secret');
  });

  it('refuses a client secret under its OAuth name too', () => {
    expect(refusal({ ...base, client_secret: 's' }).code).toBe('client_secret_in_browser');
  });

  it.each([
    ['no client ID', { ...base, clientId: '' }, /clientId/],
    ['a relative redirect URI', { ...base, redirectUri: '/callback' }, /redirectUri/],
    ['neither issuer nor provider', { clientId: 'spa', redirectUri: base.redirectUri }, /issuer/],
    ['an unsupported response type', { ...base, responseType: 'code id_token' }, /responseType/],
    ['an issuer without the discovery part', { ...base, discover: undefined }, /discover/],
    ['the implicit flow without its part', { ...base, responseType: 'id_token token' }, /implicitFlow/],
    ['a negative refresh leeway', { ...base, refreshLeeway: -1 }, /refreshLeeway/],
    ['an unknown token storage', { ...base, tokenStorage: 'cookies' }, /tokenStorage/],
    // Tabs sharing a rotating refresh token must refresh one at a time.
    // Chromium caches localStorage per tab: a tab taking the refresh lock can read a used refresh token.
    ['localStorage tokens, even with the crossTab part', { ...base, tokenStorage: 'localStorage', crossTab }, /indexedDB/],
    ['indexedDB tokens without the crossTab part', { ...base, tokenStorage: 'indexedDB' }, /crossTab/],
    ['a lock without the crossTab part', { ...base, lock: mutexLock() }, /crossTab/],
    ['a channel without the crossTab part', { ...base, channel: { post() {}, listen: () => () => undefined } }, /crossTab/],
  ])('refuses %s with invalid_options', (_name, options, message) => {
    const error = refusal(options);
    expect(error.code).toBe('invalid_options');
    expect(error.message).toMatch(message);
  });

  it('accepts the minimal options and the deprecated implicit flow', () => {
    expect(createBrowserClient(base).getSnapshot().status).toBe('loading');
    expect(createBrowserClient({ ...base, responseType: 'id_token token', implicitFlow }).getSnapshot().status).toBe('loading');
    expect(createBrowserClient({ ...base, issuer: undefined, provider: serviceProvider(base.issuer!) })).toBeDefined();
    expect(createBrowserClient({ ...base, tokenStorage: 'indexedDB', crossTab }).getSnapshot().status).toBe('loading');
  });

  it('discovers once per client, and tries again on the next call after a failed discovery', async () => {
    const asked: string[] = [];
    const flaky: Discover = async (issuer) => {
      asked.push(issuer);
      if (asked.length === 1) throw new OidcError('discovery_failed');
      return serviceProvider(issuer);
    };
    const redirects: string[] = [];
    const client = createBrowserClient({
      ...base,
      discover: flaky,
      navigate: { currentUrl: () => 'http://127.0.0.1:5173/', redirect: (url) => void redirects.push(url), replaceUrl: () => undefined },
    });
    await expect(client.login()).rejects.toMatchObject({ code: 'discovery_failed' });
    await client.login();
    await client.login();
    expect(asked).toEqual([base.issuer, base.issuer]);
    expect(redirects.map((url) => new URL(url).pathname)).toEqual(['/demo/oidc/authorize', '/demo/oidc/authorize']);
  });
});
