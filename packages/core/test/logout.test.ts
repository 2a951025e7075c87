import { describe, expect, it } from 'vitest';
import { buildEndSessionUrl, serviceProvider } from '../src/index';

const ISSUER = 'https://login.example.com/acme';
const provider = serviceProvider(ISSUER);

describe('buildEndSessionUrl', () => {
  it('builds the RP-initiated logout URL', () => {
    const url = buildEndSessionUrl({
      provider,
      clientId: 'spa',
      idTokenHint: 'id.token.value',
      postLogoutRedirectUri: 'https://app.example.com/',
      state: 'logout-state',
    });
    expect(url?.origin + url!.pathname).toBe(`${ISSUER}/oidc/logout`);
    expect(Object.fromEntries(url!.searchParams)).toEqual({
      client_id: 'spa',
      id_token_hint: 'id.token.value',
      post_logout_redirect_uri: 'https://app.example.com/',
      state: 'logout-state',
    });
  });

  it('leaves out what is not given', () => {
    const url = buildEndSessionUrl({ provider, clientId: 'spa' });
    expect(Object.fromEntries(url!.searchParams)).toEqual({ client_id: 'spa' });
  });

  it('returns undefined when the provider has no end_session_endpoint', () => {
    expect(buildEndSessionUrl({ provider: { ...provider, end_session_endpoint: undefined }, clientId: 'spa' })).toBeUndefined();
  });

  it('refuses a relative post-logout redirect URI', () => {
    expect(() => buildEndSessionUrl({ provider, clientId: 'spa', postLogoutRedirectUri: '/home' })).toThrow(
      expect.objectContaining({ code: 'invalid_options' }),
    );
  });
});
