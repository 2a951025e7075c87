// The resources part against the reference server (a child process, real HTTP; the demo's `spa`
// may ask tokens for http://127.0.0.1:3000/api): its options, the login asking for the APIs, a
// token per API from the refresh token, kept beside the session, and the refresh token spent one
// request at a time however the app's calls interleave (a rotated token spent twice would make the
// provider revoke the session). The two-API, DPoP and cross-origin cases run in Chromium
// (tests/conformance/test/api-resources-chromium.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizedFetch, memoryStorage, resourceIndicators, revocation } from '../src/index';
import { createTab, loggedInTab, signIn, startProvider, type Provider } from './harness';

const API = 'http://127.0.0.1:3000/api';
let provider: Provider;
beforeAll(async () => {
  provider = await startProvider();
});
afterAll(() => provider.stop());

const codeOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return 'accepted';
};

describe('resourceIndicators', () => {
  it('refuses a resource that is not an absolute URI without a fragment, a repeat, and an unknown otherUrls', () => {
    expect(codeOf(() => resourceIndicators({ resources: ['/api'] }))).toBe('invalid_options');
    expect(codeOf(() => resourceIndicators({ resources: [`${API}#x`] }))).toBe('invalid_options');
    expect(codeOf(() => resourceIndicators({ resources: [API, API] }))).toBe('invalid_options');
    expect(codeOf(() => resourceIndicators({ resources: [API], otherUrls: 'anything' as 'refuse' }))).toBe('invalid_options');
  });

  it('the login asks for the APIs; a token per API comes from the refresh token once, then from beside the session', async () => {
    const tab = createTab(provider, {}, { resources: resourceIndicators({ resources: [API] }) });
    tab.url = await signIn(tab, provider);
    expect(new URL(tab.redirects[0]!).searchParams.getAll('resource')).toEqual([API]);
    await tab.client.init();
    const refreshes = await provider.count('/oauth/token');
    const token = await tab.client.resources!.getAccessToken(API);
    expect(token).not.toBe(await tab.client.getAccessToken());
    expect(await tab.client.resources!.getAccessToken(API)).toBe(token);
    expect(await provider.count('/oauth/token')).toBe(refreshes + 1);
    // forceRefresh: a new one (the API refused the old one).
    const renewed = await tab.client.resources!.getAccessToken(API, { forceRefresh: true });
    expect(renewed).not.toBe(token);
    expect(await provider.count('/oauth/token')).toBe(refreshes + 2);
  });

  it('a refresh for an API and the session’s own refresh at once spend the refresh token one after the other', async () => {
    const tokenStorage = memoryStorage();
    const tab = await loggedInTab(provider, { tokenStorage }, { resources: resourceIndicators({ resources: [API] }) });
    const before = await tab.client.getAccessToken();
    const refreshes = await provider.count('/oauth/token');
    const [own, api] = await Promise.all([tab.client.getAccessToken({ forceRefresh: true }), tab.client.resources!.getAccessToken(API)]);
    expect(own).not.toBe(before);
    expect(api).not.toBe(own);
    expect(await provider.count('/oauth/token')).toBe(refreshes + 2);
    // Both rotations were kept: the session goes on refreshing.
    expect(await tab.client.getAccessToken({ forceRefresh: true })).not.toBe(own);
    expect(tab.client.getSnapshot().status).toBe('authenticated');
  });

  it('authorizedFetch: a URL of no listed API gets nothing by default, the login’s token with otherUrls: defaultToken', async () => {
    const userinfo = `${provider.issuer}/oidc/userinfo`;
    const refusing = await loggedInTab(provider, {}, { resources: resourceIndicators({ resources: [API] }) });
    const calls = await provider.count('/oidc/userinfo', 'GET');
    await expect(authorizedFetch(refusing.client)(userinfo)).rejects.toMatchObject({ code: 'resource_not_configured' });
    expect(await provider.count('/oidc/userinfo', 'GET')).toBe(calls);
    expect(refusing.client.resources!.forUrl(`${API}/orders`)).toBe(API);
    expect(codeOf(() => refusing.client.resources!.forUrl('http://127.0.0.1:3000/apix'))).toBe('resource_not_configured');

    const lenient = await loggedInTab(provider, {}, { resources: resourceIndicators({ resources: [API], otherUrls: 'defaultToken' }) });
    const response = await authorizedFetch(lenient.client)(userinfo);
    expect(response.status).toBe(200);
    expect(lenient.client.resources!.forUrl(userinfo)).toBeUndefined();
  });

  it('a new login starts without the API tokens of the session it replaces; logout leaves none behind', async () => {
    const tokenStorage = memoryStorage();
    const tab = await loggedInTab(provider, { tokenStorage }, { resources: resourceIndicators({ resources: [API] }) });
    const first = await tab.client.resources!.getAccessToken(API);
    const cacheKey = `oidc-rp.resources:spa:${provider.issuer}`;
    expect(await tokenStorage.keys()).toContain(cacheKey);
    tab.url = await signIn(tab, provider);
    await tab.client.handleRedirectCallback(tab.url);
    expect(await tokenStorage.keys()).not.toContain(cacheKey);
    const second = await tab.client.resources!.getAccessToken(API);
    expect(second).not.toBe(first);
    await tab.client.logout({ redirect: false });
    expect(await tokenStorage.keys()).toEqual([]);
  });

  it('an unlisted resource: resource_not_configured, nothing sent, the session as it was', async () => {
    const tab = await loggedInTab(provider, {}, { resources: resourceIndicators({ resources: [API] }) });
    const refreshes = await provider.count('/oauth/token');
    await expect(tab.client.resources!.getAccessToken('http://127.0.0.1:3000/other')).rejects.toMatchObject({ code: 'resource_not_configured' });
    expect(await provider.count('/oauth/token')).toBe(refreshes);
    expect(tab.client.getSnapshot().status).toBe('authenticated');
  });

  it('logout with revocation revokes the refresh token an API refresh rotated, not the spent one it replaced', async () => {
    const tokenStorage = memoryStorage();
    const tab = await loggedInTab(provider, { tokenStorage }, { resources: resourceIndicators({ resources: [API] }), revocation });
    const sessionKey = `oidc-rp.session:spa:${provider.issuer}`;
    const refreshTokenNow = async () => JSON.parse((await tokenStorage.get(sessionKey)) as string).refreshToken as string;
    const before = await refreshTokenNow();
    await tab.client.resources!.getAccessToken(API);
    const rotated = await refreshTokenNow();
    expect(rotated).not.toBe(before); // the demo provider rotates refresh tokens
    await tab.client.logout({ redirect: false });
    // After logout the live refresh token is dead at the provider: nobody who copied it can use it.
    const refused = await fetch(`${provider.issuer}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: rotated, client_id: 'spa' }),
    });
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toBe('invalid_grant');
  });
});
