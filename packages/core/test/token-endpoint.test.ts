import { HttpResponse, type JsonBodyType, http } from 'msw';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type ClientAuthMethod,
  TokenEndpointError,
  clientSecret,
  clientSecretBasic,
  clientSecretPost,
  none,
  clearJwksCache,
  clientCredentials,
  exchangeCode,
  processTokenResponse,
  refreshTokens,
  serviceProvider,
} from '../src/index';
import { base64url, utf8 } from '../src/http/encoding';
import { CLIENT_ID, ISSUER, NOW, type TestKey, createTestKey, serveJwks, signIdToken, validClaims } from './support/id-tokens';
import { useMswServer } from './support/msw-server';

const { server, requests } = useMswServer();

const provider = serviceProvider(ISSUER);
const CODE_ENDPOINT = `${ISSUER}/oidc/token`;
const OAUTH_ENDPOINT = `${ISSUER}/oauth/token`;
const SECRET = 'p@ss w:rd/+%é';
/** A registered client: its id, and its secret and method when it has them. */
type Client = { clientId: string; clientSecret?: string; authMethod?: ClientAuthMethod };
const confidential: Client = { clientId: CLIENT_ID, clientSecret: SECRET };
const publicClient: Client = { clientId: CLIENT_ID };
/** The `client` and `clientAuth` arguments for `c`: a named method, else the provider's way for a secret, else none(). */
function as(c: Client) {
  const secret = c.clientSecret as string;
  const clientAuth =
    c.authMethod === 'client_secret_basic' ? clientSecretBasic(secret)
    : c.authMethod === 'client_secret_post' ? clientSecretPost(secret)
    : c.clientSecret ? clientSecret(secret)
    : none();
  return { client: { clientId: c.clientId }, clientAuth };
}
const REDIRECT = 'https://app.example.com/callback';
const VERIFIER = 'verifier-'.padEnd(50, 'v');

function answer(body: unknown, init?: ResponseInit, url = CODE_ENDPOINT) {
  server.use(http.post(url, () => HttpResponse.json(body as JsonBodyType, init)));
}
function answerRaw(body: string | null, init: ResponseInit, url = CODE_ENDPOINT) {
  server.use(http.post(url, () => new HttpResponse(body, init)));
}
async function sentForm(index = 0) {
  const request = requests[index]!;
  return { request, form: new URLSearchParams(await request.text()) };
}
async function failure(promise: Promise<unknown>) {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as TokenEndpointError,
  );
}
const exchange = (client: Client, extra: { codeVerifier?: string } = {}) =>
  exchangeCode({ provider, ...as(client), code: 'the-code-123', redirectUri: REDIRECT, ...extra });

/** An unsigned JWT-shaped access token: only its `exp` is read, for scheduling. */
function jwtAccessToken(payload: Record<string, unknown>): string {
  const encode = (value: unknown) => base64url(utf8(JSON.stringify(value)));
  return `${encode({ alg: 'RS256', typ: 'at+jwt' })}.${encode(payload)}.c2lnbmF0dXJl`;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW * 1000);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('exchangeCode: request', () => {
  it('posts the form to /oidc/token with client_secret_post by default', async () => {
    answer({ access_token: 'at', token_type: 'Bearer' });
    await exchange(confidential);
    const { request, form } = await sentForm();
    expect(request.url).toBe(CODE_ENDPOINT);
    expect(request.method).toBe('POST');
    expect(request.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    expect(request.headers.get('accept')).toBe('application/json');
    expect(request.headers.has('authorization')).toBe(false);
    expect(Object.fromEntries(form)).toEqual({
      grant_type: 'authorization_code',
      code: 'the-code-123',
      redirect_uri: REDIRECT,
      client_id: CLIENT_ID,
      client_secret: SECRET,
    });
  });

  it('never redeems a PKCE code of a confidential client on the service without its secret: refused before any request', async () => {
    answer({ access_token: 'at', token_type: 'Bearer' });
    // The preset lists only client_secret_post: the secret cannot go beside the verifier in the body.
    const error = await failure(exchange(confidential, { codeVerifier: VERIFIER }));
    expect(error.code).toBe('pkce_with_client_secret');
    expect(error.message).not.toContain(SECRET);
    expect(error.message).not.toContain(VERIFIER);
    expect(requests).toHaveLength(0);
  });

  it('sends the verifier beside HTTP Basic on the service when client_secret_basic is chosen or advertised', async () => {
    const advertised = serviceProvider(ISSUER, { token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'none'] });
    answer({ access_token: 'at', token_type: 'Bearer' });
    await exchangeCode({ provider: advertised, ...as(confidential), code: 'the-code-123', redirectUri: REDIRECT, codeVerifier: VERIFIER });
    answer({ access_token: 'at', token_type: 'Bearer' });
    await exchange({ ...confidential, authMethod: 'client_secret_basic' }, { codeVerifier: VERIFIER });
    for (const index of [0, 1]) {
      const { request, form } = await sentForm(index);
      expect(request.headers.get('authorization')).toMatch(/^Basic /);
      expect(Object.fromEntries(form)).toEqual({
        grant_type: 'authorization_code',
        code: 'the-code-123',
        redirect_uri: REDIRECT,
        code_verifier: VERIFIER,
      });
    }
  });

  it.each([
    ['only client_secret_basic', ['client_secret_basic'], 'basic'],
    ['no list (OIDC Discovery default)', undefined, 'basic'],
    ['both', ['client_secret_basic', 'client_secret_post'], 'post'],
    ['only client_secret_post', ['client_secret_post', 'private_key_jwt'], 'post'],
  ] as const)('follows token_endpoint_auth_methods_supported by default: %s', async (_, listed, expected) => {
    const other = { ...provider, pkce_replaces_client_secret: false, token_endpoint_auth_methods_supported: listed ? [...listed] : undefined };
    answer({ access_token: 'at', token_type: 'Bearer' });
    await exchangeCode({ provider: other, ...as(confidential), code: 'c', redirectUri: REDIRECT });
    const { request, form } = await sentForm();
    expect(request.headers.has('authorization')).toBe(expected === 'basic');
    expect(form.has('client_secret')).toBe(expected === 'post');
  });

  it('refuses a provider that lists no secret method unless authMethod forces one', async () => {
    const other = { ...provider, token_endpoint_auth_methods_supported: ['private_key_jwt'] };
    const error = await failure(exchangeCode({ provider: other, ...as(confidential), code: 'c', redirectUri: REDIRECT }));
    expect(error.code).toBe('invalid_options');
    expect(requests).toHaveLength(0);
    answer({ access_token: 'at', token_type: 'Bearer' });
    await exchangeCode({ provider: other, ...as({ ...confidential, authMethod: 'client_secret_post' }), code: 'c', redirectUri: REDIRECT });
    expect((await sentForm()).form.get('client_secret')).toBe(SECRET);
  });

  it('sends verifier AND client authentication to providers without the exclusive rule', async () => {
    const other = { ...provider, pkce_replaces_client_secret: false };
    answer({ access_token: 'at', token_type: 'Bearer' });
    await exchangeCode({ provider: other, ...as(confidential), code: 'c', redirectUri: REDIRECT, codeVerifier: VERIFIER });
    const { form } = await sentForm();
    expect(form.get('code_verifier')).toBe(VERIFIER);
    expect(form.get('client_secret')).toBe(SECRET);
  });

  it('authenticates with client_secret_basic using the RFC 6749 2.3.1 encoding', async () => {
    answer({ access_token: 'at', token_type: 'Bearer' });
    await exchange({ clientId: 'my client:1', clientSecret: SECRET, authMethod: 'client_secret_basic' });
    const { request, form } = await sentForm();
    // "my client:1" → "my+client%3A1"; "p@ss w:rd/+%é" → "p%40ss+w%3Ard%2F%2B%25%C3%A9"
    expect(request.headers.get('authorization')).toBe(`Basic ${btoa('my+client%3A1:p%40ss+w%3Ard%2F%2B%25%C3%A9')}`);
    expect(form.has('client_secret')).toBe(false);
    expect(form.has('client_id')).toBe(false);
  });

  it('sends only client_id for a public client', async () => {
    answer({ access_token: 'at', token_type: 'Bearer' });
    await exchange(publicClient, { codeVerifier: VERIFIER });
    const { form } = await sentForm();
    expect(form.get('client_id')).toBe(CLIENT_ID);
    expect(form.has('client_secret')).toBe(false);
  });

  it('refuses a secret auth method without a secret, no client authentication, and a missing code, before any request', async () => {
    for (const method of [clientSecretBasic, clientSecretPost, clientSecret]) {
      expect(() => method('')).toThrow(expect.objectContaining({ code: 'invalid_options' }));
    }
    const unauthenticated = exchangeCode({ provider, client: publicClient, code: 'c', redirectUri: REDIRECT } as never);
    expect((await failure(unauthenticated)).message).toMatch(/clientAuth is required/);
    const noCode = exchangeCode({ provider, ...as(confidential), code: '', redirectUri: REDIRECT });
    expect((await failure(noCode)).code).toBe('invalid_options');
    expect(requests).toHaveLength(0);
  });
});

describe('token responses', () => {
  it.each(['bearer', 'Bearer', 'BEARER'])('normalises token_type %s to Bearer', async (tokenType) => {
    answer({ access_token: 'at', token_type: tokenType });
    await expect(exchange(confidential)).resolves.toMatchObject({ tokenType: 'Bearer' });
  });

  it('rejects token_type mac and a missing token_type', async () => {
    answer({ access_token: 'at', token_type: 'mac' });
    expect((await failure(exchange(confidential))).code).toBe('token_response_invalid');
    answer({ access_token: 'at' });
    expect((await failure(exchange(confidential))).code).toBe('token_response_invalid');
  });

  it('returns every token of a full response, expiresAt from expires_in seconds', async () => {
    answer({ access_token: 'at', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt', id_token: 'it', scope: 'openid' });
    await expect(exchange(confidential)).resolves.toEqual({
      accessToken: 'at',
      tokenType: 'Bearer',
      expiresAt: NOW + 3600,
      refreshToken: 'rt',
      idToken: 'it',
      scope: 'openid',
    });
  });

  it('takes expiresAt from a JWT access token exp when expires_in is missing', async () => {
    answer({ access_token: jwtAccessToken({ exp: NOW + 900, sub: 'x' }), token_type: 'Bearer' });
    expect((await exchange(confidential)).expiresAt).toBe(NOW + 900);
  });

  it('prefers expires_in over the JWT exp', async () => {
    answer({ access_token: jwtAccessToken({ exp: NOW + 900 }), token_type: 'Bearer', expires_in: 60 });
    expect((await exchange(confidential)).expiresAt).toBe(NOW + 60);
  });

  it('leaves expiresAt undefined for an opaque token without expires_in', async () => {
    answer({ access_token: 'opaque-token', token_type: 'Bearer' });
    const tokens = await exchange(confidential);
    expect(tokens.expiresAt).toBeUndefined();
    expect('expiresAt' in tokens).toBe(false);
  });

  it.each([-1, 'soon', null])('ignores an unusable expires_in (%j)', async (expiresIn) => {
    answer({ access_token: 'opaque-token', token_type: 'Bearer', expires_in: expiresIn });
    expect((await exchange(confidential)).expiresAt).toBeUndefined();
  });

  it('surfaces 400 invalid_grant as TokenEndpointError with status, error and description', async () => {
    answer({ error: 'invalid_grant', error_description: 'code expired' }, { status: 400 });
    const error = await failure(exchange(confidential));
    expect(error).toBeInstanceOf(TokenEndpointError);
    expect(error).toMatchObject({
      code: 'token_endpoint_error',
      status: 400,
      error: 'invalid_grant',
      error_description: 'code expired',
    });
    expect(error.message).not.toContain('the-code-123');
  });

  it('surfaces 401 invalid_client without the secret in the message', async () => {
    answer({ error: 'invalid_client', error_description: 'client authentication failed' }, { status: 401 });
    const error = await failure(exchange(confidential));
    expect(error).toMatchObject({ status: 401, error: 'invalid_client', error_description: 'client authentication failed' });
    expect(error.message).not.toContain(SECRET);
    expect(error.message).not.toContain(encodeURIComponent(SECRET));
  });

  it('turns a 502 HTML page into TokenEndpointError without echoing the body', async () => {
    answerRaw('<html><body>Bad Gateway: upstream secret-host-42 down</body></html>', {
      status: 502,
      headers: { 'Content-Type': 'text/html' },
    });
    const error = await failure(exchange(confidential));
    expect(error).toBeInstanceOf(TokenEndpointError);
    expect(error).toMatchObject({ status: 502, error: 'server_error', error_description: undefined });
    expect(error.message).not.toContain('secret-host-42');
    expect(error.message).not.toContain('<html>');
  });

  it('turns a 404 without an OAuth body into invalid_response', async () => {
    answerRaw('not here', { status: 404 });
    expect(await failure(exchange(confidential))).toMatchObject({ status: 404, error: 'invalid_response' });
  });

  it.each<[string, string | null]>([
    ['non-JSON', 'access_token=at&token_type=bearer'],
    ['empty', null],
    ['a JSON array', '[{"access_token":"at","token_type":"Bearer"}]'],
    ['JSON null', 'null'],
    ['a number access_token', '{"access_token":42,"token_type":"Bearer"}'],
    ['an empty access_token', '{"access_token":"","token_type":"Bearer"}'],
    ['no access_token', '{"token_type":"Bearer","id_token":"it"}'],
    ['a non-string refresh_token', '{"access_token":"at","token_type":"Bearer","refresh_token":7}'],
    ['a non-string id_token', '{"access_token":"at","token_type":"Bearer","id_token":{}}'],
  ])('rejects a 200 with %s body as token_response_invalid', async (_, body) => {
    answerRaw(body, { status: 200, headers: { 'Content-Type': 'application/json' } });
    const error = await failure(exchange(confidential));
    expect(error.code).toBe('token_response_invalid');
  });

  it('processTokenResponse works on any Response (custom grants)', async () => {
    await expect(processTokenResponse(Response.json({ access_token: 'x', token_type: 'bearer', expires_in: 5 }))).resolves.toEqual({
      accessToken: 'x',
      tokenType: 'Bearer',
      expiresAt: NOW + 5,
    });
    await expect(processTokenResponse(Response.json({ error: 'slow_down' }, { status: 400 }))).rejects.toMatchObject({
      error: 'slow_down',
      status: 400,
    });
  });
});

describe('refreshTokens', () => {
  let key: TestKey;
  beforeAll(async () => {
    key = await createTestKey();
  });
  beforeEach(() => clearJwksCache());

  it('posts grant_type=refresh_token to /oauth/token with the client secret', async () => {
    answer({ access_token: 'at2', token_type: 'bearer', expires_in: 3600, refresh_token: 'rt2' }, undefined, OAUTH_ENDPOINT);
    const tokens = await refreshTokens({ provider, ...as(confidential), refreshToken: 'rt1', scope: 'openid' });
    expect(tokens).toEqual({ accessToken: 'at2', tokenType: 'Bearer', expiresAt: NOW + 3600, refreshToken: 'rt2' });
    const { request, form } = await sentForm();
    expect(request.url).toBe(OAUTH_ENDPOINT);
    expect(Object.fromEntries(form)).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'rt1',
      scope: 'openid',
      client_id: CLIENT_ID,
      client_secret: SECRET,
    });
  });

  it('refreshes a public client with client_id alone and keeps no refresh token when none comes back', async () => {
    answer({ access_token: 'at2', token_type: 'bearer', expires_in: 60 }, undefined, OAUTH_ENDPOINT);
    const tokens = await refreshTokens({ provider, ...as(publicClient), refreshToken: 'rt1' });
    expect(tokens.refreshToken).toBeUndefined();
    expect(tokens.claims).toBeUndefined();
    const { form } = await sentForm();
    expect(Object.fromEntries(form)).toEqual({ grant_type: 'refresh_token', refresh_token: 'rt1', client_id: CLIENT_ID });
  });

  it('validates a returned ID token and returns its claims', async () => {
    serveJwks(server, () => [key.jwk]);
    const idToken = await signIdToken(key, validClaims());
    answer({ access_token: 'at2', token_type: 'bearer', expires_in: 60, id_token: idToken }, undefined, OAUTH_ENDPOINT);
    const tokens = await refreshTokens({ provider, ...as(publicClient), refreshToken: 'rt1', expectedSubject: 'user-42' });
    expect(tokens.idToken).toBe(idToken);
    expect(tokens.claims).toMatchObject({ sub: 'user-42', iss: ISSUER, aud: CLIENT_ID });
  });

  it('rejects a returned ID token about another user with id_token_sub_mismatch', async () => {
    serveJwks(server, () => [key.jwk]);
    const idToken = await signIdToken(key, validClaims({ sub: 'someone-else' }));
    answer({ access_token: 'at2', token_type: 'bearer', id_token: idToken }, undefined, OAUTH_ENDPOINT);
    const error = await failure(refreshTokens({ provider, ...as(publicClient), refreshToken: 'rt1', expectedSubject: 'user-42' }));
    expect(error.code).toBe('id_token_sub_mismatch');
  });

  it('rejects a returned ID token that fails validation', async () => {
    serveJwks(server, () => [key.jwk]);
    const idToken = await signIdToken(key, validClaims({ aud: 'another-client' }));
    answer({ access_token: 'at2', token_type: 'bearer', id_token: idToken }, undefined, OAUTH_ENDPOINT);
    const error = await failure(refreshTokens({ provider, ...as(publicClient), refreshToken: 'rt1' }));
    expect(error.code).toBe('id_token_aud_mismatch');
  });

  it('surfaces invalid_grant (refresh token revoked or reused)', async () => {
    answer({ error: 'invalid_grant' }, { status: 400 }, OAUTH_ENDPOINT);
    const error = await failure(refreshTokens({ provider, ...as(confidential), refreshToken: 'rt-secret-value' }));
    expect(error).toMatchObject({ status: 400, error: 'invalid_grant' });
    expect(error.message).not.toContain('rt-secret-value');
  });
});

describe('clientCredentials', () => {
  it('posts grant_type=client_credentials to /oauth/token with scope and extra parameters', async () => {
    answer({ access_token: 'svc', token_type: 'bearer', expires_in: 300 }, undefined, OAUTH_ENDPOINT);
    const tokens = await clientCredentials({ provider, ...as(confidential), scope: 'api.read', extra: { audience: 'api' } });
    expect(tokens).toEqual({ accessToken: 'svc', tokenType: 'Bearer', expiresAt: NOW + 300 });
    const { request, form } = await sentForm();
    expect(request.url).toBe(OAUTH_ENDPOINT);
    expect(Object.fromEntries(form)).toEqual({
      grant_type: 'client_credentials',
      scope: 'api.read',
      audience: 'api',
      client_id: CLIENT_ID,
      client_secret: SECRET,
    });
  });

  it('sends an array value of extra once per item (several RFC 8707 resources)', async () => {
    answer({ access_token: 'svc', token_type: 'bearer', expires_in: 300 }, undefined, OAUTH_ENDPOINT);
    await clientCredentials({
      provider,
      ...as(confidential),
      extra: { resource: ['https://api.example.com/', 'https://files.example.com/'], audience: 'api' },
    });
    const { form } = await sentForm();
    expect(form.getAll('resource')).toEqual(['https://api.example.com/', 'https://files.example.com/']);
    expect(form.getAll('audience')).toEqual(['api']);
  });

  it('refuses an empty array or a non-string item in extra before any request', async () => {
    const empty = clientCredentials({ provider, ...as(confidential), extra: { resource: [] } });
    expect((await failure(empty)).code).toBe('invalid_options');
    const mixed = clientCredentials({ provider, ...as(confidential), extra: { resource: ['https://api.example.com/', 1 as unknown as string] } });
    expect((await failure(mixed)).code).toBe('invalid_options');
    expect(requests).toHaveLength(0);
  });

  it('refuses extra protocol parameters before any request', async () => {
    const overriding = clientCredentials({ provider, ...as(confidential), extra: { grant_type: 'password' } });
    expect((await failure(overriding)).code).toBe('invalid_options');
    const secret = clientCredentials({ provider, ...as(confidential), extra: { client_secret: 'other' } });
    expect((await failure(secret)).code).toBe('invalid_options');
    expect(requests).toHaveLength(0);
  });

  it('uses the default token_endpoint for providers without per-grant endpoints', async () => {
    const plain = { ...provider, token_endpoint_by_grant: undefined };
    answer({ access_token: 'svc', token_type: 'Bearer' }, undefined, CODE_ENDPOINT);
    await clientCredentials({ provider: plain, ...as(confidential) });
    expect(requests[0]!.url).toBe(CODE_ENDPOINT);
  });
});
