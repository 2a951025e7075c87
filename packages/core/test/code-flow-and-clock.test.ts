// The code-flow-only entry points (what small SPA bundles use) and the one injected clock.
import { HttpResponse, http } from 'msw';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ClientConfig,
  buildAuthorizationRequest,
  clearJwksCache,
  parseAuthorizationResponse,
  refreshTokens,
  serviceProvider,
  validateIdToken,
  none,
} from '../src/index';
import { buildCodeAuthorizationRequest, completeCodeAuthorization } from '../src/internal';
import { CLIENT_ID, ISSUER, type TestKey, createTestKey, serveJwks, signIdToken, validClaims } from './support/id-tokens';
import { useMswServer } from './support/msw-server';

const { server } = useMswServer();
const provider = serviceProvider(ISSUER);
const client: ClientConfig = { clientId: CLIENT_ID };
const REDIRECT = 'https://app.example.com/callback';
// A clock far from the machine's: every time judgement must come from it.
const CLOCK_NOW = 2_000_000_000;
const clock = () => CLOCK_NOW;

let key: TestKey;
beforeAll(async () => {
  key = await createTestKey('RS256');
});
beforeEach(() => {
  clearJwksCache();
  serveJwks(server, () => [key.jwk]);
});

const claimsAt = (now: number, extra: Record<string, unknown> = {}) => validClaims({ iat: now - 10, exp: now + 300, ...extra });

describe('buildCodeAuthorizationRequest', () => {
  it('builds the same code + PKCE request as buildAuthorizationRequest, with createdAt from the clock', async () => {
    const params = { provider, clientId: CLIENT_ID, redirectUri: REDIRECT, scope: 'openid profile', now: clock };
    const small = await buildCodeAuthorizationRequest(params);
    const full = await buildAuthorizationRequest(params);
    const names = (url: URL) => [...url.searchParams.keys()].sort();
    expect(names(small.url)).toEqual(names(full.url));
    expect(small.url.searchParams.get('response_type')).toBe('code');
    expect(small.url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(small.transaction).toMatchObject({ responseType: 'code', responseMode: 'query', createdAt: CLOCK_NOW });
    expect(small.transaction.codeVerifier).toMatch(/^[\w-]{43}$/);
  });

  it('checks what it is given like the general builder', async () => {
    const bad = buildCodeAuthorizationRequest({ provider, clientId: CLIENT_ID, redirectUri: REDIRECT, scope: 'openid', extra: { state: 'x' } });
    await expect(bad).rejects.toMatchObject({ code: 'invalid_options', message: /state/ });
    await expect(
      buildCodeAuthorizationRequest({ provider, clientId: CLIENT_ID, redirectUri: `${REDIRECT}#x`, scope: 'openid' }),
    ).rejects.toMatchObject({ code: 'invalid_options' });
  });
});

describe('completeCodeAuthorization', () => {
  it('finishes a code login with every check, judging times by the injected clock', async () => {
    const { transaction } = await buildCodeAuthorizationRequest({ provider, clientId: CLIENT_ID, redirectUri: REDIRECT, scope: 'openid', now: clock });
    const idToken = await signIdToken(key, claimsAt(CLOCK_NOW, { nonce: transaction.nonce }));
    server.use(http.post(`${ISSUER}/oidc/token`, () => HttpResponse.json({ access_token: 'at', token_type: 'Bearer', id_token: idToken, expires_in: 60 })));
    const input = new URL(`${REDIRECT}?code=c&state=${transaction.state}&iss=${encodeURIComponent(ISSUER)}`);

    const tokens = await completeCodeAuthorization({ provider, client, clientAuth: none(), input, transaction, now: clock });

    expect(tokens.claims?.sub).toBe('user-42');
    expect(tokens.expiresAt).toBe(CLOCK_NOW + 60);
  });

  it('refuses a wrong nonce like completeAuthorization', async () => {
    const { transaction } = await buildCodeAuthorizationRequest({ provider, clientId: CLIENT_ID, redirectUri: REDIRECT, scope: 'openid', now: clock });
    const idToken = await signIdToken(key, claimsAt(CLOCK_NOW, { nonce: 'another' }));
    server.use(http.post(`${ISSUER}/oidc/token`, () => HttpResponse.json({ access_token: 'at', token_type: 'Bearer', id_token: idToken })));
    const input = new URL(`${REDIRECT}?code=c&state=${transaction.state}&iss=${encodeURIComponent(ISSUER)}`);
    await expect(completeCodeAuthorization({ provider, client, clientAuth: none(), input, transaction, now: clock })).rejects.toMatchObject({
      code: 'id_token_nonce_mismatch',
    });
  });

  it('refuses a transaction of another flow', async () => {
    const { transaction } = await buildAuthorizationRequest({
      provider,
      clientId: CLIENT_ID,
      redirectUri: REDIRECT,
      scope: 'openid',
      responseType: 'id_token token',
    });
    await expect(
      completeCodeAuthorization({ provider, client, clientAuth: none(), input: `${REDIRECT}#state=${transaction.state}`, transaction }),
    ).rejects.toMatchObject({ code: 'invalid_options', message: /completeAuthorization/ });
  });
});

describe('completeCodeAuthorization: the response checks of the general parser, before any request', () => {
  // Each bad callback fails with the same code as parseAuthorizationResponse gives it, and no token request is sent.
  const cases: [string, (state: string) => string, string][] = [
    ['a duplicate parameter', (state) => `code=c&code=d&state=${state}&iss=${encodeURIComponent(ISSUER)}`, 'authorization_response_invalid'],
    ['no state', () => `code=c&iss=${encodeURIComponent(ISSUER)}`, 'state_missing'],
    ['another login\'s state', () => `code=c&state=other&iss=${encodeURIComponent(ISSUER)}`, 'state_mismatch'],
    ['another issuer', (state) => `code=c&state=${state}&iss=${encodeURIComponent('https://evil.example')}`, 'iss_mismatch'],
    ['no iss from an RFC 9207 provider', (state) => `code=c&state=${state}`, 'iss_missing'],
    ['the provider\'s error', (state) => `error=access_denied&state=${state}&iss=${encodeURIComponent(ISSUER)}`, 'authorization_error'],
    ['no code', (state) => `state=${state}&iss=${encodeURIComponent(ISSUER)}`, 'authorization_response_invalid'],
  ];
  for (const [name, query, code] of cases) {
    it(`refuses ${name} (${code})`, async () => {
      let requests = 0;
      server.use(http.post(`${ISSUER}/oidc/token`, () => {
        requests += 1;
        return HttpResponse.json({ error: 'invalid_grant' }, { status: 400 });
      }));
      const { transaction } = await buildCodeAuthorizationRequest({ provider, clientId: CLIENT_ID, redirectUri: REDIRECT, scope: 'openid' });
      const input = new URL(`${REDIRECT}?${query(transaction.state)}`);
      await expect(completeCodeAuthorization({ provider, client, clientAuth: none(), input, transaction })).rejects.toMatchObject({ code });
      expect(() => parseAuthorizationResponse(input, transaction, provider)).toThrow(expect.objectContaining({ code }));
      expect(requests).toBe(0);
    });
  }

  it('refuses a code flow answered elsewhere than in the query', async () => {
    const { transaction } = await buildAuthorizationRequest({ provider, clientId: CLIENT_ID, redirectUri: REDIRECT, scope: 'openid', responseMode: 'form_post' });
    await expect(
      completeCodeAuthorization({ provider, client, clientAuth: none(), input: new URLSearchParams({ code: 'c', state: transaction.state }), transaction }),
    ).rejects.toMatchObject({ code: 'invalid_options', message: /completeAuthorization/ });
  });
});

describe('one clock', () => {
  it('validateIdToken judges exp by the injected clock, not Date.now()', async () => {
    const token = await signIdToken(key, claimsAt(CLOCK_NOW));
    await expect(validateIdToken(token, { provider, clientId: CLIENT_ID, now: clock })).resolves.toMatchObject({ sub: 'user-42' });
    // The machine's clock is years before iat: without the injected clock the token is from the future.
    await expect(validateIdToken(token, { provider, clientId: CLIENT_ID })).rejects.toMatchObject({ code: 'id_token_iat_future' });
    await expect(validateIdToken(token, { provider, clientId: CLIENT_ID, now: () => CLOCK_NOW + 3600 })).rejects.toMatchObject({
      code: 'id_token_expired',
    });
  });

  it('refreshTokens computes expiresAt from the injected clock', async () => {
    server.use(http.post(`${ISSUER}/oauth/token`, () => HttpResponse.json({ access_token: 'at', token_type: 'bearer', expires_in: 120 })));
    const tokens = await refreshTokens({ provider, client, clientAuth: none(), refreshToken: 'rt', now: clock });
    expect(tokens.expiresAt).toBe(CLOCK_NOW + 120);
  });
});
