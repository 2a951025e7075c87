import { describe, expect, it } from 'vitest';
import { type NodeClientOptions, createNodeClient, serviceProvider } from '../src/index';
const STRONG = 'test-cookie-AtAE9OxzcznqoR6nacFM-e9MnATZvZ-9';

const valid: NodeClientOptions = {
  provider: serviceProvider('https://id.example.com/acme'),
  clientId: 'web',
  clientSecret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
  redirectUri: 'https://app.example.com/callback',
};

function creationError(options: Partial<NodeClientOptions> & Record<string, unknown>) {
  try {
    createNodeClient(options as NodeClientOptions);
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error('expected createNodeClient to throw');
}

describe('createNodeClient: options are validated at creation', () => {
  it('accepts a provider preset or an https issuer', () => {
    expect(() => createNodeClient(valid)).not.toThrow();
    const { provider: _, ...rest } = valid;
    expect(() => createNodeClient({ ...rest, issuer: 'https://id.example.com/acme' })).not.toThrow();
  });

  it('refuses a missing or empty client secret and points public clients to the browser package', () => {
    const { clientSecret: _, ...withoutSecret } = valid;
    for (const options of [withoutSecret, { ...valid, clientSecret: '' }]) {
      const error = creationError(options);
      expect(error.code).toBe('invalid_options');
      expect(error.message).toContain('clientSecret');
      expect(error.message).toContain('@oidc-rp/browser');
    }
  });

  it('refuses a missing client ID', () => {
    expect(creationError({ ...valid, clientId: '' })).toMatchObject({ code: 'invalid_options', message: expect.stringContaining('clientId') });
  });

  it('refuses an http issuer outside loopback, and allows it on loopback', () => {
    const { provider: _, ...rest } = valid;
    expect(creationError({ ...rest, issuer: 'http://id.example.com/acme' }).code).toBe('invalid_options');
    const httpProvider = { ...serviceProvider('https://id.example.com/acme'), issuer: 'http://id.example.com/acme' };
    expect(creationError({ ...valid, provider: httpProvider }).code).toBe('invalid_options');
    const httpTokenEndpoint = { ...serviceProvider('https://id.example.com/acme'), token_endpoint: 'http://id.example.com/token' };
    expect(creationError({ ...valid, provider: httpTokenEndpoint }).message).toContain('token endpoint');
    for (const issuer of ['http://127.0.0.1:4000/demo', 'http://localhost:4000/demo', 'http://[::1]:4000/demo']) {
      expect(() => createNodeClient({ ...rest, issuer })).not.toThrow();
    }
  });

  it('wants exactly one of issuer and provider', () => {
    const { provider: _, ...neither } = valid;
    expect(creationError(neither).message).toContain('exactly one');
    expect(creationError({ ...valid, issuer: 'https://id.example.com/acme' }).message).toContain('exactly one');
  });

  it('refuses provider metadata without a token endpoint', () => {
    const { token_endpoint: _, ...provider } = serviceProvider('https://id.example.com/acme');
    expect(creationError({ ...valid, provider: provider as never }).message).toContain('token_endpoint');
  });

  it('refuses an unknown grant, naming it', () => {
    const error = creationError({ ...valid, grants: ['authorization_code', 'password' as never] });
    expect(error.code).toBe('invalid_options');
    expect(error.message).toContain('"password"');
  });

  it('requires a redirect URI when the authorization_code grant is asked for explicitly', () => {
    const { redirectUri: _, ...rest } = valid;
    expect(creationError({ ...rest, grants: ['authorization_code'] }).message).toContain('redirectUri');
    expect(() => createNodeClient({ ...rest, grants: ['client_credentials'] })).not.toThrow();
  });

  it('refuses a redirect URI that is relative, not http(s) or has a fragment', () => {
    for (const redirectUri of ['/callback', 'ftp://app.example.com/cb', 'https://app.example.com/cb#x']) {
      expect(creationError({ ...valid, redirectUri }).code).toBe('invalid_options');
    }
  });

  it('refuses response types the service does not have', () => {
    const error = creationError({ ...valid, responseType: 'code refresh_token' as never });
    expect(error.code).toBe('invalid_options');
    expect(error.message).toContain('Unsupported response type');
  });

  it('takes the fragment response mode (relayed by the callback page) and refuses an unknown one', () => {
    expect(() => createNodeClient({ ...valid, responseType: 'code id_token', responseMode: 'fragment' })).not.toThrow();
    const error = creationError({ ...valid, responseType: 'code id_token', responseMode: 'web_message' as never });
    expect(error.message).toContain('Unsupported response mode');
  });

  it('refuses tokens in the query (hybrid with query mode)', () => {
    expect(creationError({ ...valid, responseType: 'code id_token', responseMode: 'query' }).message).toContain('form_post');
  });

  it('refuses a short cookie secret, in a single value or a rotation list', () => {
    expect(creationError({ ...valid, cookieSecret: 'too-short' }).message).toContain('32');
    expect(creationError({ ...valid, cookieSecret: [STRONG, 'short'] }).message).toContain('`cookieSecret[1]` must be at least 32');
    expect(() => createNodeClient({ ...valid, cookieSecret: STRONG })).not.toThrow();
  });

  it('refuses a guessable cookie secret, also an old one in a rotation list, naming the option and how to generate one', () => {
    for (const cookieSecret of ['x'.repeat(32), 'my-cookie-secret-for-production-2024', [STRONG, 'abcdefgh12345678abcdefgh12345678']]) {
      const error = creationError({ ...valid, cookieSecret });
      expect(error.code).toBe('invalid_options');
      expect(error.message).toContain('`cookieSecret');
      expect(error.message).toContain('openssl rand -base64 32');
      expect(error.message).not.toContain(Array.isArray(cookieSecret) ? cookieSecret[1] : cookieSecret);
    }
  });

  it('refuses nonsense numbers, cache and retry settings', () => {
    const cases: Array<Partial<NodeClientOptions>> = [
      { timeout: 0 },
      { transactionMaxAge: -1 },
      { renewBeforeExpiry: Number.NaN },
      { unknownLifetimeTtl: 0 },
      { tokenCacheMaxEntries: 0 },
      { retry: { retries: 11 } },
      { retry: { baseDelay: -5 } },
      { tokenCache: { get() {} } as never },
      { scope: [] },
      { scope: 'openid "quoted"' },
      { authMethod: 'none' as never },
      { cookieName: 'bad name;' },
    ];
    for (const overrides of cases) expect(creationError({ ...valid, ...overrides }).code).toBe('invalid_options');
  });

  it('refuses a method for a grant the client was created without', async () => {
    const client = createNodeClient({ ...valid, grants: ['client_credentials'] });
    await expect(client.startLogin()).rejects.toMatchObject({ code: 'invalid_options', message: expect.stringContaining('authorization_code') });
    await expect(client.refresh('rt')).rejects.toMatchObject({ code: 'invalid_options', message: expect.stringContaining('refresh_token') });
  });

  it('needs a cookie secret to seal transactions, and says so', async () => {
    const client = createNodeClient(valid);
    const { transaction } = await client.startLogin();
    await expect(client.sealTransaction(transaction)).rejects.toMatchObject({
      code: 'invalid_options',
      message: expect.stringContaining('cookieSecret'),
    });
  });
});

describe('startLogin: what a backend asks for', () => {
  // As the reference server's discovery says: HTTP Basic is accepted, so PKCE and the secret go together.
  const provider = serviceProvider('https://id.example.com/acme', {
    token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'none'],
  });
  const client = createNodeClient({ ...valid, provider, scope: 'openid profile' });

  it('uses the code flow with PKCE (beside HTTP Basic) and the query mode by default', async () => {
    const { url, transaction } = await client.startLogin({ appState: { returnTo: '/orders' } });
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('scope')).toBe('openid profile');
    expect(url.searchParams.has('response_mode')).toBe(false);
    expect(transaction).toMatchObject({ responseMode: 'query', clientId: 'web', appState: { returnTo: '/orders' } });
    expect(transaction.codeVerifier).toBeTypeOf('string');
  });

  it('delivers hybrid responses by form_post, since a server never sees a fragment', async () => {
    const { url, transaction } = await client.startLogin({ responseType: 'code id_token' });
    expect(url.searchParams.get('response_mode')).toBe('form_post');
    expect(url.searchParams.get('nonce')).toBe(transaction.nonce);
    expect(transaction.responseMode).toBe('form_post');
  });

  it('leaves PKCE out with pkce: false', async () => {
    const { url, transaction } = await client.startLogin({ pkce: false });
    expect(url.searchParams.has('code_challenge')).toBe(false);
    expect(transaction.codeVerifier).toBeUndefined();
  });

  it('refuses per-login response settings a backend cannot receive', async () => {
    await expect(client.startLogin({ responseType: 'code id_token', responseMode: 'query' })).rejects.toMatchObject({
      code: 'invalid_options',
    });
    await expect(client.startLogin({ responseMode: 'web_message' as never })).rejects.toMatchObject({ code: 'invalid_options' });
  });

  it('refuses PKCE together with an explicitly chosen secret method against this service, before any request', async () => {
    let requests = 0;
    const explicit = createNodeClient({
      ...valid,
      authMethod: 'client_secret_post',
      fetch: async () => {
        requests++;
        return new Response(null, { status: 500 });
      },
    });
    await expect(explicit.startLogin({ pkce: true })).rejects.toMatchObject({ code: 'pkce_with_client_secret' });
    // By default such a client logs in without PKCE: its secret authenticates the exchange.
    const { url } = await explicit.startLogin();
    expect(url.searchParams.has('code_challenge')).toBe(false);
    await expect(explicit.startLogin({ pkce: false })).resolves.toBeDefined();
    expect(requests).toBe(0);
  });
});
