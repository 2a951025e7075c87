// The values that stand for optional behaviour in core: a discovered provider (discovery(issuer),
// one memo for both wrappers), and what an authorization request asks for offline_access
// (OpenID Connect Core 11: prompt=consent).
import { describe, expect, it } from 'vitest';
import {
  buildAuthorizationRequest,
  discovery,
  providerMetadata,
  serviceProvider,
} from '../src/index';
import {
  buildCodeAuthorizationRequest,
  checkRedirectUri,
  isDiscovered,
  normaliseScope,
} from '../src/internal';

const ISSUER = 'http://127.0.0.1:4000/demo';
// A standard provider (without the service's pkce_replaces_client_secret): the rule of OpenID Connect Core 11.
const provider = serviceProvider(ISSUER, { pkce_replaces_client_secret: false });
const base = { provider, clientId: 'spa', redirectUri: 'http://127.0.0.1:5173/callback' };

describe('prompt with offline_access (OpenID Connect Core 11)', () => {
  it('is consent when the scope asks for a refresh token, absent otherwise, and as given when the caller chose one', async () => {
    const prompt = async (params: Partial<Parameters<typeof buildCodeAuthorizationRequest>[0]>) =>
      (await buildCodeAuthorizationRequest({ ...base, scope: 'openid', ...params })).url.searchParams.get('prompt');
    expect(await prompt({ scope: 'openid profile offline_access' })).toBe('consent');
    expect(await prompt({ scope: ['openid', 'offline_access'] })).toBe('consent');
    expect(await prompt({ scope: 'openid profile' })).toBeNull();
    expect(await prompt({ scope: 'openid offline_access', prompt: 'login' })).toBe('login');
    expect(await prompt({ scope: 'openid offline_access', prompt: 'none' })).toBe('none');
  });

  it('is absent for the service, which grants offline_access without it and asks for consent only when not yet given', async () => {
    const service = serviceProvider(ISSUER);
    expect(service.pkce_replaces_client_secret).toBe(true);
    const { url } = await buildCodeAuthorizationRequest({ ...base, provider: service, scope: 'openid profile offline_access' });
    expect(url.searchParams.has('prompt')).toBe(false);
    const chosen = await buildCodeAuthorizationRequest({ ...base, provider: service, scope: 'openid offline_access', prompt: 'consent' });
    expect(chosen.url.searchParams.get('prompt')).toBe('consent');
  });

  it('is not added where no code comes back (the provider ignores offline_access there anyway)', async () => {
    const { url } = await buildAuthorizationRequest({ ...base, scope: 'openid offline_access', responseType: 'id_token token' });
    expect(url.searchParams.has('prompt')).toBe(false);
  });
});

describe('discovery(issuer)', () => {
  it('discovers once for concurrent and later callers, and again after a failure', async () => {
    const asked: string[] = [];
    let failNext = true;
    const fetch = (async (input: RequestInfo | URL) => {
      asked.push(String(input));
      if (failNext) {
        failNext = false;
        return new Response('down', { status: 503 });
      }
      return Response.json(serviceProvider(ISSUER));
    }) as typeof globalThis.fetch;
    const discovered = discovery(ISSUER);
    expect(discovered.issuer).toBe(ISSUER);
    expect(isDiscovered(discovered)).toBe(true);
    expect(isDiscovered(provider)).toBe(false);
    await expect(discovered.metadata({ fetch })).rejects.toMatchObject({ code: 'discovery_failed' });
    const [a, b] = await Promise.all([discovered.metadata({ fetch }), providerMetadata(discovered, { fetch })]);
    expect(a).toBe(b);
    expect(await discovered.metadata({ fetch })).toBe(a);
    expect(asked).toEqual([`${ISSUER}/.well-known/openid-configuration`, `${ISSUER}/.well-known/openid-configuration`]);
    expect(await providerMetadata(provider)).toBe(provider);
  });
});

describe('the shared checks of the wrappers', () => {
  it('normalise a scope once, each value once, and refuse what RFC 6749 3.3 does not allow', () => {
    expect(normaliseScope(' openid  profile openid ')).toBe('openid profile');
    expect(normaliseScope(['openid', ' email '])).toBe('openid email');
    for (const bad of ['', [], ['openid', 'a"b'], 'open\\id', [1 as unknown as string]]) {
      expect(() => normaliseScope(bad)).toThrow(expect.objectContaining({ code: 'invalid_options' }));
    }
  });

  it('take a redirect URI only as an absolute URL without a fragment', () => {
    expect(checkRedirectUri('http://127.0.0.1:5173/callback').origin).toBe('http://127.0.0.1:5173');
    for (const bad of ['/callback', 'http://127.0.0.1:5173/callback#x', 'not a url']) {
      expect(() => checkRedirectUri(bad)).toThrow(expect.objectContaining({ code: 'invalid_options', message: expect.stringMatching(/redirectUri/) }));
    }
  });
});
