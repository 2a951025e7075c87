import { describe, expect, it } from 'vitest';
import {
  type AuthorizationRequestParams,
  type ResponseMode,
  type ResponseType,
  buildAuthorizationRequest,
  codeChallengeS256,
  serviceProvider,
} from '../src/index';

const provider = serviceProvider('https://login.example.com/acme');
const base = {
  provider,
  clientId: 'web',
  redirectUri: 'https://app.example.com/callback',
  scope: 'openid profile',
} satisfies AuthorizationRequestParams;

async function build(overrides: Partial<AuthorizationRequestParams> = {}) {
  return buildAuthorizationRequest({ ...base, ...overrides });
}

async function rejection(overrides: Partial<AuthorizationRequestParams>) {
  return build(overrides).then(
    () => {
      throw new Error('expected buildAuthorizationRequest to reject');
    },
    (error: unknown) => error as { code: string; message: string },
  );
}

describe('buildAuthorizationRequest: code flow', () => {
  it('sends the protocol parameters to the service authorize endpoint, PKCE S256 on by default', async () => {
    const { url, transaction } = await build();
    expect(`${url.origin}${url.pathname}`).toBe('https://login.example.com/acme/oidc/authorize');
    const q = url.searchParams;
    expect(q.get('response_type')).toBe('code');
    expect(q.get('client_id')).toBe('web');
    expect(q.get('redirect_uri')).toBe('https://app.example.com/callback');
    expect(q.get('scope')).toBe('openid profile');
    expect(q.get('state')).toBe(transaction.state);
    expect(q.get('nonce')).toBe(transaction.nonce);
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toBe(await codeChallengeS256(transaction.codeVerifier!));
    expect(q.has('response_mode')).toBe(false);
  });

  it('never puts the code verifier in the URL', async () => {
    const { url, transaction } = await build();
    expect(url.href).not.toContain(transaction.codeVerifier!);
  });

  it('returns a transaction with everything the callback needs', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { transaction } = await build({ maxAge: 300, appState: { returnTo: '/orders' } });
    expect(transaction).toMatchObject({
      redirectUri: base.redirectUri,
      responseType: 'code',
      responseMode: 'query',
      scope: 'openid profile',
      clientId: 'web',
      issuer: 'https://login.example.com/acme',
      maxAge: 300,
      appState: { returnTo: '/orders' },
    });
    expect(transaction.createdAt).toBeGreaterThanOrEqual(before);
    expect(transaction.createdAt).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(JSON.parse(JSON.stringify(transaction))).toEqual(transaction);
  });

  it('generates fresh state, nonce and verifier for every request', async () => {
    const [a, b] = await Promise.all([build(), build()]);
    expect(a.transaction.state).not.toBe(b.transaction.state);
    expect(a.transaction.nonce).not.toBe(b.transaction.nonce);
    expect(a.transaction.codeVerifier).not.toBe(b.transaction.codeVerifier);
    expect(a.transaction.state).not.toBe(a.transaction.nonce);
  });

  it('omits PKCE with pkce: false (confidential client using its secret)', async () => {
    const { url, transaction } = await build({ pkce: false });
    expect(url.searchParams.has('code_challenge')).toBe(false);
    expect(url.searchParams.has('code_challenge_method')).toBe(false);
    expect(transaction.codeVerifier).toBeUndefined();
  });

  it('sends no nonce without openid, and accepts scope as a list (deduplicated)', async () => {
    const { url, transaction } = await build({ scope: ['api.read', 'api.read', 'offline_access'] });
    expect(url.searchParams.get('scope')).toBe('api.read offline_access');
    expect(url.searchParams.has('nonce')).toBe(false);
    expect(transaction.nonce).toBeUndefined();
  });

  it('sends max_age, prompt, login_hint and extra parameters', async () => {
    const { url } = await build({ maxAge: 0, prompt: 'login', loginHint: 'alice', extra: { ui_locales: 'de' } });
    expect(url.searchParams.get('max_age')).toBe('0');
    expect(url.searchParams.get('prompt')).toBe('login');
    expect(url.searchParams.get('login_hint')).toBe('alice');
    expect(url.searchParams.get('ui_locales')).toBe('de');
  });

  it('sends response_mode only when it differs from the default', async () => {
    const { url, transaction } = await build({ responseMode: 'form_post' });
    expect(url.searchParams.get('response_mode')).toBe('form_post');
    expect(transaction.responseMode).toBe('form_post');
    const explicitDefault = await build({ responseMode: 'query' });
    expect(explicitDefault.url.searchParams.has('response_mode')).toBe(false);
  });
});

describe('buildAuthorizationRequest: hybrid and implicit flows', () => {
  it.each<[ResponseType, ResponseMode, boolean]>([
    ['code id_token', 'fragment', true],
    ['code token', 'fragment', true],
    ['code token id_token', 'fragment', true],
    ['token', 'fragment', false],
    ['id_token token', 'fragment', false],
    ['id_token', 'form_post', false],
  ])('%s defaults to %s, nonce present, PKCE %s', async (responseType, mode, pkce) => {
    const { url, transaction } = await build({ responseType });
    expect(url.searchParams.get('response_type')).toBe(responseType);
    expect(transaction.responseMode).toBe(mode);
    expect(url.searchParams.get('response_mode')).toBe(mode === 'fragment' ? null : mode);
    expect(url.searchParams.get('nonce')).toBe(transaction.nonce);
    expect(transaction.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.has('code_challenge')).toBe(pkce);
    expect(transaction.codeVerifier !== undefined).toBe(pkce);
  });

  it('allows form_post for hybrid responses', async () => {
    const { url } = await build({ responseType: 'code id_token', responseMode: 'form_post' });
    expect(url.searchParams.get('response_mode')).toBe('form_post');
  });

  it.each<ResponseType>(['code id_token', 'code token', 'code token id_token', 'token', 'id_token token', 'id_token'])(
    'refuses response_mode=query for %s (tokens never travel in the query)',
    async (responseType) => {
      const error = await rejection({ responseType, responseMode: 'query' });
      expect(error.code).toBe('invalid_options');
    },
  );

  it('sends response_type=id_token for the fragment (OIDC Core 3.2.2.5 default) without response_mode', async () => {
    const { url, transaction } = await build({ responseType: 'id_token', responseMode: 'fragment' });
    expect(transaction.responseMode).toBe('fragment');
    expect(url.searchParams.has('response_mode')).toBe(false);
    expect(url.searchParams.has('code_challenge')).toBe(false);
  });

  it.each<ResponseType>(['code id_token', 'code token id_token', 'id_token token', 'id_token'])(
    'refuses %s without openid in the scope',
    async (responseType) => {
      const error = await rejection({ responseType, scope: 'profile email' });
      expect(error.code).toBe('invalid_options');
      expect(error.message).toContain('openid');
    },
  );

  it('allows response_type=token without openid (plain OAuth implicit)', async () => {
    const { url, transaction } = await build({ responseType: 'token', scope: 'api.read' });
    expect(url.searchParams.has('nonce')).toBe(false);
    expect(transaction.nonce).toBeUndefined();
  });

  it.each<ResponseType>(['token', 'id_token token', 'id_token'])('refuses pkce: true with %s', async (responseType) => {
    const error = await rejection({ responseType, pkce: true });
    expect(error.code).toBe('invalid_options');
    expect(error.message).toContain('PKCE');
  });
});

describe('buildAuthorizationRequest: caller mistakes', () => {
  it.each([
    'state',
    'nonce',
    'code_challenge',
    'code_challenge_method',
    'client_id',
    'redirect_uri',
    'response_type',
    'response_mode',
    'scope',
    'max_age',
    'request',
  ])('extra cannot override %s', async (name) => {
    const error = await rejection({ extra: { [name]: 'attacker-chosen' } });
    expect(error.code).toBe('invalid_options');
    expect(error.message).toContain(name);
  });

  it.each<[string, Partial<AuthorizationRequestParams>]>([
    ['an empty scope', { scope: '  ' }],
    ['an empty scope list', { scope: [] }],
    ['a relative redirect URI', { redirectUri: '/callback' }],
    ['a redirect URI with a fragment', { redirectUri: 'https://app.example.com/cb#x' }],
    ['an empty client ID', { clientId: '' }],
    ['an unknown response type', { responseType: 'code refresh_token' as ResponseType }],
    ['an unknown response mode', { responseMode: 'web_message' as ResponseMode }],
    ['a negative maxAge', { maxAge: -1 }],
    ['a fractional maxAge', { maxAge: 1.5 }],
    ['an http authorize endpoint off loopback', { provider: { ...provider, authorization_endpoint: 'http://login.example.com/a' } }],
  ])('refuses %s', async (_, overrides) => {
    const error = await rejection(overrides);
    expect(error.code).toBe('invalid_options');
  });

  it('accepts a custom-scheme redirect URI (mobile apps)', async () => {
    const { url } = await build({ redirectUri: 'com.example.app:/callback' });
    expect(url.searchParams.get('redirect_uri')).toBe('com.example.app:/callback');
  });
});
