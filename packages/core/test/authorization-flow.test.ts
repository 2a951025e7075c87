import { HttpResponse, http } from 'msw';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type AuthorizationRequestParams,
  type AuthorizationTransaction,
  type ClientConfig,
  buildAuthorizationRequest,
  clearJwksCache,
  completeAuthorization,
  serviceProvider,
  none,
} from '../src/index';
import { base64url } from '../src/http/encoding';
import { CLIENT_ID, ISSUER, NOW, type TestKey, createTestKey, serveJwks, signIdToken, validClaims } from './support/id-tokens';
import { useMswServer } from './support/msw-server';

const { server, requests } = useMswServer();

const provider = serviceProvider(ISSUER);
const TOKEN_ENDPOINT = `${ISSUER}/oidc/token`;
const REDIRECT = 'https://app.example.com/callback';
const client: ClientConfig = { clientId: CLIENT_ID };

let key: TestKey;
let jwks: { fetches: () => number };

beforeAll(async () => {
  key = await createTestKey('RS256');
});
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW * 1000);
  clearJwksCache();
  jwks = serveJwks(server, () => [key.jwk]);
});
afterEach(() => {
  vi.useRealTimers();
});

async function start(overrides: Partial<AuthorizationRequestParams> = {}): Promise<AuthorizationTransaction> {
  const { transaction } = await buildAuthorizationRequest({
    provider,
    clientId: CLIENT_ID,
    redirectUri: REDIRECT,
    scope: 'openid profile',
    ...overrides,
  });
  return transaction;
}

/** at_hash / c_hash for RS256, computed here independently of the SDK. */
async function halfHash(value: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(value)));
  return base64url(digest.subarray(0, 16));
}

function callback(transaction: AuthorizationTransaction, params: Record<string, string>, where: 'query' | 'fragment') {
  const all = new URLSearchParams({ state: transaction.state, iss: ISSUER, ...params });
  return where === 'query' ? `${REDIRECT}?${all}` : `${REDIRECT}#${all}`;
}

function tokenEndpoint(body: Record<string, unknown>) {
  server.use(http.post(TOKEN_ENDPOINT, () => HttpResponse.json(body as Record<string, string>)));
}

function tokenRequests() {
  return requests.filter((request) => request.url === TOKEN_ENDPOINT);
}

async function failure(promise: Promise<unknown>) {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error as { code: string; message: string },
  );
}

describe('completeAuthorization: code flow', () => {
  it('redeems the code with the PKCE verifier and returns validated claims', async () => {
    const transaction = await start();
    const idToken = await signIdToken(key, validClaims({ nonce: transaction.nonce }));
    tokenEndpoint({ access_token: 'at-1', token_type: 'Bearer', id_token: idToken, refresh_token: 'rt-1' });

    const tokens = await completeAuthorization({
      provider,
      client,
      clientAuth: none(),
      input: callback(transaction, { code: 'code-1' }, 'query'),
      transaction,
    });

    expect(tokens).toMatchObject({ accessToken: 'at-1', tokenType: 'Bearer', refreshToken: 'rt-1', idToken });
    expect(tokens.claims).toMatchObject({ sub: 'user-42', nonce: transaction.nonce });
    const [request] = tokenRequests();
    expect(Object.fromEntries(new URLSearchParams(await request!.text()))).toEqual({
      grant_type: 'authorization_code',
      code: 'code-1',
      redirect_uri: REDIRECT,
      client_id: CLIENT_ID,
      code_verifier: transaction.codeVerifier,
    });
  });

  it('requires an ID token when openid was requested', async () => {
    const transaction = await start();
    tokenEndpoint({ access_token: 'at-1', token_type: 'Bearer' });
    const error = await failure(
      completeAuthorization({ provider, client, clientAuth: none(), input: callback(transaction, { code: 'c' }, 'query'), transaction }),
    );
    expect(error.code).toBe('id_token_missing');
  });

  it('returns plain tokens when openid was not requested', async () => {
    const transaction = await start({ scope: 'api.read' });
    tokenEndpoint({ access_token: 'at-1', token_type: 'Bearer' });
    const tokens = await completeAuthorization({
      provider,
      client,
      clientAuth: none(),
      input: callback(transaction, { code: 'c' }, 'query'),
      transaction,
    });
    expect(tokens).toEqual({ accessToken: 'at-1', tokenType: 'Bearer' });
  });

  it('checks the nonce of the back-channel ID token', async () => {
    const transaction = await start();
    tokenEndpoint({ access_token: 'at', token_type: 'Bearer', id_token: await signIdToken(key, validClaims({ nonce: 'other' })) });
    const error = await failure(
      completeAuthorization({ provider, client, clientAuth: none(), input: callback(transaction, { code: 'c' }, 'query'), transaction }),
    );
    expect(error.code).toBe('id_token_nonce_mismatch');
    expect(error.message).not.toContain(transaction.nonce!);
  });

  it('checks auth_time against the max_age of the request', async () => {
    const transaction = await start({ maxAge: 60 });
    const claims = validClaims({ nonce: transaction.nonce, auth_time: NOW - 600 });
    tokenEndpoint({ access_token: 'at', token_type: 'Bearer', id_token: await signIdToken(key, claims) });
    const error = await failure(
      completeAuthorization({ provider, client, clientAuth: none(), input: callback(transaction, { code: 'c' }, 'query'), transaction }),
    );
    expect(error.code).toBe('id_token_auth_time_too_old');
  });

  it('redeems a form_post code response', async () => {
    const transaction = await start({ responseMode: 'form_post' });
    tokenEndpoint({ access_token: 'at', token_type: 'Bearer', id_token: await signIdToken(key, validClaims({ nonce: transaction.nonce })) });
    const body = new URLSearchParams({ code: 'c', state: transaction.state, iss: ISSUER });
    const tokens = await completeAuthorization({ provider, client, clientAuth: none(), input: body, transaction });
    expect(tokens.claims?.sub).toBe('user-42');
  });
});

describe('completeAuthorization: hybrid flow', () => {
  it('validates the front-channel ID token (c_hash), redeems the code and validates the back-channel one', async () => {
    const transaction = await start({ responseType: 'code id_token' });
    const code = 'hybrid-code-1';
    const front = await signIdToken(key, validClaims({ nonce: transaction.nonce, c_hash: await halfHash(code) }));
    const back = await signIdToken(key, validClaims({ nonce: transaction.nonce, email: 'alice@example.com' }));
    tokenEndpoint({ access_token: 'at-2', token_type: 'Bearer', id_token: back });

    const tokens = await completeAuthorization({
      provider,
      client,
      clientAuth: none(),
      input: callback(transaction, { code, id_token: front }, 'fragment'),
      transaction,
    });
    expect(tokens.idToken).toBe(back);
    expect(tokens.claims).toMatchObject({ sub: 'user-42', email: 'alice@example.com' });
    expect(tokenRequests()).toHaveLength(1);
    expect(jwks.fetches()).toBe(1);
  });

  it('completes without iss in the response (RFC 9207 2.4, as oidc-provider does): the ID token names the issuer', async () => {
    const transaction = await start({ responseType: 'code id_token' });
    const code = 'hybrid-code-no-iss';
    const front = await signIdToken(key, validClaims({ nonce: transaction.nonce, c_hash: await halfHash(code) }));
    tokenEndpoint({ access_token: 'at-2', token_type: 'Bearer', id_token: await signIdToken(key, validClaims({ nonce: transaction.nonce })) });
    const input = `${REDIRECT}#${new URLSearchParams({ state: transaction.state, code, id_token: front })}`;
    const tokens = await completeAuthorization({ provider, client, clientAuth: none(), input, transaction });
    expect(tokens.claims).toMatchObject({ iss: ISSUER, sub: 'user-42' });
  });

  it('without iss in the response, an ID token from another issuer is refused before the code is redeemed (mix-up)', async () => {
    const transaction = await start({ responseType: 'code id_token' });
    const code = 'mixed-up-code-7';
    const front = await signIdToken(key, validClaims({ iss: 'https://evil.example.com', nonce: transaction.nonce, c_hash: await halfHash(code) }));
    tokenEndpoint({ access_token: 'at', token_type: 'Bearer' });
    const input = `${REDIRECT}#${new URLSearchParams({ state: transaction.state, code, id_token: front })}`;
    const error = await failure(completeAuthorization({ provider, client, clientAuth: none(), input, transaction }));
    expect(error.code).toBe('id_token_iss_mismatch');
    expect(error.message).not.toContain(code);
    expect(tokenRequests()).toHaveLength(0);
  });

  it('checks at_hash and c_hash for code token id_token', async () => {
    const transaction = await start({ responseType: 'code token id_token' });
    const code = 'hybrid-code-2';
    const front = await signIdToken(
      key,
      validClaims({ nonce: transaction.nonce, c_hash: await halfHash(code), at_hash: await halfHash('front-at') }),
    );
    tokenEndpoint({ access_token: 'at-3', token_type: 'Bearer', id_token: await signIdToken(key, validClaims({ nonce: transaction.nonce })) });
    const input = callback(transaction, { code, id_token: front, access_token: 'front-at', token_type: 'Bearer' }, 'fragment');
    const tokens = await completeAuthorization({ provider, client, clientAuth: none(), input, transaction });
    expect(tokens.accessToken).toBe('at-3');

    const swapped = callback(transaction, { code, id_token: front, access_token: 'other-at', token_type: 'Bearer' }, 'fragment');
    requests.length = 0;
    const error = await failure(completeAuthorization({ provider, client, clientAuth: none(), input: swapped, transaction }));
    expect(error.code).toBe('id_token_at_hash_mismatch');
    expect(tokenRequests()).toHaveLength(0);
  });

  it('does not redeem the code when the front-channel c_hash does not match', async () => {
    const transaction = await start({ responseType: 'code id_token' });
    const front = await signIdToken(key, validClaims({ nonce: transaction.nonce, c_hash: await halfHash('another-code') }));
    tokenEndpoint({ access_token: 'at', token_type: 'Bearer' });
    const error = await failure(
      completeAuthorization({
        provider,
        client,
        clientAuth: none(),
        input: callback(transaction, { code: 'injected-code-9', id_token: front }, 'fragment'),
        transaction,
      }),
    );
    expect(error.code).toBe('id_token_c_hash_mismatch');
    expect(error.message).not.toContain('injected-code-9');
    expect(tokenRequests()).toHaveLength(0);
  });

  it('requires c_hash in the front-channel ID token', async () => {
    const transaction = await start({ responseType: 'code id_token' });
    const front = await signIdToken(key, validClaims({ nonce: transaction.nonce }));
    const error = await failure(
      completeAuthorization({ provider, client, clientAuth: none(), input: callback(transaction, { code: 'c', id_token: front }, 'fragment'), transaction }),
    );
    expect(error.code).toBe('id_token_c_hash_missing');
    expect(tokenRequests()).toHaveLength(0);
  });

  it('rejects back-channel and front-channel ID tokens about different users', async () => {
    const transaction = await start({ responseType: 'code id_token' });
    const code = 'hybrid-code-3';
    const front = await signIdToken(key, validClaims({ nonce: transaction.nonce, c_hash: await halfHash(code) }));
    tokenEndpoint({
      access_token: 'at',
      token_type: 'Bearer',
      id_token: await signIdToken(key, validClaims({ nonce: transaction.nonce, sub: 'user-7' })),
    });
    const error = await failure(
      completeAuthorization({ provider, client, clientAuth: none(), input: callback(transaction, { code, id_token: front }, 'fragment'), transaction }),
    );
    expect(error.code).toBe('id_token_sub_mismatch');
  });
});

describe('completeAuthorization: implicit and id_token flows', () => {
  it('returns the tokens of an id_token token response from the fragment, without token request', async () => {
    const transaction = await start({ responseType: 'id_token token' });
    const idToken = await signIdToken(key, validClaims({ nonce: transaction.nonce, at_hash: await halfHash('implicit-at') }));
    const tokens = await completeAuthorization({
      provider,
      client,
      clientAuth: none(),
      input: callback(transaction, { access_token: 'implicit-at', token_type: 'bearer', expires_in: '900', id_token: idToken }, 'fragment'),
      transaction,
    });
    expect(tokens).toEqual({
      accessToken: 'implicit-at',
      tokenType: 'Bearer',
      expiresAt: NOW + 900,
      idToken,
      claims: expect.objectContaining({ sub: 'user-42' }),
    });
    expect(tokenRequests()).toHaveLength(0);
  });

  it('requires at_hash for an implicit ID token', async () => {
    const transaction = await start({ responseType: 'id_token token' });
    const idToken = await signIdToken(key, validClaims({ nonce: transaction.nonce }));
    const error = await failure(
      completeAuthorization({
        provider,
        client,
        clientAuth: none(),
        input: callback(transaction, { access_token: 'at', token_type: 'Bearer', id_token: idToken }, 'fragment'),
        transaction,
      }),
    );
    expect(error.code).toBe('id_token_at_hash_missing');
  });

  it('returns an access token for response_type=token', async () => {
    const transaction = await start({ responseType: 'token', scope: 'api.read' });
    const tokens = await completeAuthorization({
      provider,
      client,
      clientAuth: none(),
      input: callback(transaction, { access_token: 'plain-at', token_type: 'Bearer', expires_in: '60' }, 'fragment'),
      transaction,
    });
    expect(tokens).toEqual({ accessToken: 'plain-at', tokenType: 'Bearer', expiresAt: NOW + 60 });
  });

  it('signs the user in with an id_token form_post (no access token)', async () => {
    const transaction = await start({ responseType: 'id_token' });
    const idToken = await signIdToken(key, validClaims({ nonce: transaction.nonce }));
    const body = new URLSearchParams({ state: transaction.state, iss: ISSUER, id_token: idToken }).toString();
    const tokens = await completeAuthorization({ provider, client, clientAuth: none(), input: body, transaction });
    expect(tokens.accessToken).toBe('');
    expect(tokens.claims?.sub).toBe('user-42');
  });

  it('rejects a replayed ID token from another login (nonce)', async () => {
    const transaction = await start({ responseType: 'id_token' });
    const idToken = await signIdToken(key, validClaims({ nonce: 'nonce-of-another-login' }));
    const body = new URLSearchParams({ state: transaction.state, iss: ISSUER, id_token: idToken });
    expect((await failure(completeAuthorization({ provider, client, clientAuth: none(), input: body, transaction }))).code).toBe(
      'id_token_nonce_mismatch',
    );
  });
});

describe('completeAuthorization: failures return nothing and send nothing', () => {
  it('stops at a state mismatch before any request', async () => {
    const transaction = await start();
    tokenEndpoint({ access_token: 'at', token_type: 'Bearer' });
    const input = `${REDIRECT}?${new URLSearchParams({ code: 'c', state: 'forged', iss: ISSUER })}`;
    expect((await failure(completeAuthorization({ provider, client, clientAuth: none(), input, transaction }))).code).toBe('state_mismatch');
    expect(requests).toHaveLength(0);
  });

  it('stops at an error response before any request', async () => {
    const transaction = await start();
    const input = callback(transaction, { error: 'access_denied', error_description: 'The user said no' }, 'query');
    const error = await failure(completeAuthorization({ provider, client, clientAuth: none(), input, transaction }));
    expect(error).toMatchObject({ code: 'authorization_error', error: 'access_denied' });
    expect(requests).toHaveLength(0);
  });

  it('passes a token endpoint refusal through', async () => {
    const transaction = await start();
    server.use(http.post(TOKEN_ENDPOINT, () => HttpResponse.json({ error: 'invalid_grant' }, { status: 400 })));
    const error = await failure(
      completeAuthorization({ provider, client, clientAuth: none(), input: callback(transaction, { code: 'used-code-5' }, 'query'), transaction }),
    );
    expect(error).toMatchObject({ code: 'token_endpoint_error', error: 'invalid_grant' });
    expect(error.message).not.toContain('used-code-5');
  });

  it('refuses a transaction of another client', async () => {
    const transaction = await start();
    const error = await failure(
      completeAuthorization({
        provider,
        client: { clientId: 'other-client' },
        clientAuth: none(),
        input: callback(transaction, { code: 'c' }, 'query'),
        transaction,
      }),
    );
    expect(error.code).toBe('transaction_invalid');
    expect(requests).toHaveLength(0);
  });

  it('refuses an openid transaction without nonce', async () => {
    const { nonce: _, ...tampered } = await start();
    const error = await failure(
      completeAuthorization({ provider, client, clientAuth: none(), input: callback(tampered, { code: 'c' }, 'query'), transaction: tampered }),
    );
    expect(error.code).toBe('transaction_invalid');
    expect(requests).toHaveLength(0);
  });
});

describe('completeAuthorization: code token (hybrid without a front-channel ID token)', () => {
  it('takes the code and access token from the fragment, redeems the code and validates the back-channel ID token', async () => {
    const transaction = await start({ responseType: 'code token' });
    expect(transaction.codeVerifier).toBeDefined();
    tokenEndpoint({ access_token: 'at-ct', token_type: 'Bearer', id_token: await signIdToken(key, validClaims({ nonce: transaction.nonce })) });
    const input = callback(transaction, { code: 'ct-code', access_token: 'front-at', token_type: 'Bearer' }, 'fragment');
    const tokens = await completeAuthorization({ provider, client, clientAuth: none(), input, transaction });
    expect(tokens.accessToken).toBe('at-ct');
    expect(tokens.claims?.sub).toBe('user-42');
    const [request] = tokenRequests();
    expect(new URLSearchParams(await request!.text()).get('code')).toBe('ct-code');
  });

  it.each<[string, Record<string, string>]>([
    ['no access_token', { code: 'c' }],
    ['no token_type', { code: 'c', access_token: 'at' }],
    ['no code', { access_token: 'at', token_type: 'Bearer' }],
  ])('refuses a response with %s before any request', async (_name, params) => {
    const transaction = await start({ responseType: 'code token' });
    const error = await failure(
      completeAuthorization({ provider, client, clientAuth: none(), input: callback(transaction, params, 'fragment'), transaction }),
    );
    expect(error.code).toBe('authorization_response_invalid');
    expect(tokenRequests()).toHaveLength(0);
  });

  it('refuses the code and token in the query', async () => {
    const transaction = await start({ responseType: 'code token' });
    const input = callback(transaction, { code: 'c', access_token: 'at', token_type: 'Bearer' }, 'query');
    expect((await failure(completeAuthorization({ provider, client, clientAuth: none(), input, transaction }))).code).toBe(
      'authorization_response_invalid',
    );
    expect(tokenRequests()).toHaveLength(0);
  });
});

// OIDC Core 3.2.2.10 and 3.3.2.11: a front-channel ID token must carry at_hash when an access
// token comes beside it and c_hash when a code does; the back channel's at_hash is optional.
describe('completeAuthorization: at_hash and c_hash, response type by response type', () => {
  type Case = [string, 'code' | 'code id_token' | 'code token' | 'code token id_token' | 'id_token token' | 'id_token', 'drop_at_hash' | 'drop_c_hash' | 'bad_at_hash' | 'bad_c_hash' | 'back_no_at_hash' | 'back_bad_at_hash', string | undefined];
  it.each<Case>([
    ['code: the back channel may leave at_hash out', 'code', 'back_no_at_hash', undefined],
    ['code: a back-channel at_hash must match', 'code', 'back_bad_at_hash', 'id_token_at_hash_mismatch'],
    ['code id_token: c_hash is required', 'code id_token', 'drop_c_hash', 'id_token_c_hash_missing'],
    ['code id_token: c_hash must match', 'code id_token', 'bad_c_hash', 'id_token_c_hash_mismatch'],
    ['code id_token: at_hash is not required (no access token in front)', 'code id_token', 'drop_at_hash', undefined],
    ['code token: the back channel may leave at_hash out', 'code token', 'back_no_at_hash', undefined],
    ['code token: a back-channel at_hash must match', 'code token', 'back_bad_at_hash', 'id_token_at_hash_mismatch'],
    ['code token id_token: at_hash is required', 'code token id_token', 'drop_at_hash', 'id_token_at_hash_missing'],
    ['code token id_token: c_hash is required', 'code token id_token', 'drop_c_hash', 'id_token_c_hash_missing'],
    ['code token id_token: at_hash must match', 'code token id_token', 'bad_at_hash', 'id_token_at_hash_mismatch'],
    ['id_token token: at_hash is required', 'id_token token', 'drop_at_hash', 'id_token_at_hash_missing'],
    ['id_token token: at_hash must match', 'id_token token', 'bad_at_hash', 'id_token_at_hash_mismatch'],
    ['id_token: no at_hash (no access token)', 'id_token', 'drop_at_hash', undefined],
  ])('%s', async (_name, responseType, change, expected) => {
    const transaction = await start({ responseType, responseMode: responseType === 'code' ? 'query' : 'fragment' });
    const words = responseType.split(' ');
    const code = words.includes('code') ? 'code-h' : undefined;
    const front = words.includes('token') ? 'front-at' : undefined;
    const hashes: Record<string, string> = {};
    if (front !== undefined && change !== 'drop_at_hash') hashes.at_hash = await halfHash(change === 'bad_at_hash' ? 'other-at' : front);
    if (code !== undefined && change !== 'drop_c_hash') hashes.c_hash = await halfHash(change === 'bad_c_hash' ? 'other-code' : code);
    const params: Record<string, string> = {};
    if (code !== undefined) params.code = code;
    if (front !== undefined) Object.assign(params, { access_token: front, token_type: 'Bearer' });
    if (words.includes('id_token')) params.id_token = await signIdToken(key, validClaims({ nonce: transaction.nonce, ...hashes }));
    const backAtHash = change === 'back_bad_at_hash' ? await halfHash('another-at') : change === 'back_no_at_hash' ? undefined : await halfHash('back-at');
    tokenEndpoint({
      access_token: 'back-at',
      token_type: 'Bearer',
      id_token: await signIdToken(key, validClaims({ nonce: transaction.nonce, ...(backAtHash ? { at_hash: backAtHash } : {}) })),
    });
    const input = callback(transaction, params, responseType === 'code' ? 'query' : 'fragment');
    const run = completeAuthorization({ provider, client, clientAuth: none(), input, transaction });
    if (expected === undefined) {
      expect((await run).claims?.sub).toBe('user-42');
      return;
    }
    const error = await failure(run);
    expect(error.code).toBe(expected);
    expect(error.message).not.toContain('front-at');
    // A refused front-channel ID token is refused before the code is redeemed.
    if (!change.startsWith('back_')) expect(tokenRequests()).toHaveLength(0);
  });
});
