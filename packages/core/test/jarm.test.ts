// JARM in core: withJarm marks the request and transaction; validateJarmResponse refuses each
// broken rule with its own code before the content is read; completeAuthorization verifies the
// JWT first and never redeems a code from a refused (or plain, downgraded) response.
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { OidcError } from '../src/errors';
import { clearJwksCache } from '../src/jose/jwks';
import { buildAuthorizationRequest } from '../src/client/authorization-request';
import { completeAuthorization } from '../src/client/authorization-flow';
import { parseAuthorizationResponse } from '../src/client/authorization-response';
import { isJarmResponseMode, jarmDelivery, validateJarmResponse, withJarm, type JarmValidationOptions } from '../src/client/jarm';
import { clientSecretBasic } from '../src/provider/client-auth';
import { base64urlJson, CLIENT_ID, ISSUER, NOW, type TestKey, createTestKey, serveJwks, signIdToken, testProvider } from './support/id-tokens';

const server = setupServer();
let rsa: TestKey;
let es: TestKey;
let stranger: TestKey;
let tokenCalls = 0;

beforeAll(async () => {
  server.listen({ onUnhandledRequest: 'error' });
  rsa = await createTestKey('RS256');
  es = await createTestKey('ES256');
  stranger = await createTestKey('RS256');
});
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW * 1000);
  serveJwks(server, () => [rsa.jwk, es.jwk]);
  tokenCalls = 0;
  server.use(
    http.post(`${ISSUER}/oidc/token`, () => {
      tokenCalls++;
      return HttpResponse.json({ access_token: 'at', token_type: 'Bearer' });
    }),
  );
});
afterEach(() => {
  server.resetHandlers();
  clearJwksCache();
  vi.useRealTimers();
});
afterAll(() => server.close());

const provider = testProvider({ authorization_signing_alg_values_supported: ['RS256', 'ES256'] });
const options = (extra: Partial<JarmValidationOptions> = {}): JarmValidationOptions => ({ provider, clientId: CLIENT_ID, ...extra });

function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { iss: ISSUER, aud: CLIENT_ID, exp: NOW + 60, code: 'the-code', state: 'st-1', ...overrides };
}

function sign(payload = claims(), header: Record<string, unknown> = {}, key = rsa): Promise<string> {
  return signIdToken(key, payload, header);
}

async function code(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OidcError);
  const { code: value, message } = error as OidcError;
  // Never the code, the state or the token in a message.
  expect(message).not.toMatch(/the-code|st-1|eyJ/);
  return value;
}

describe('validateJarmResponse', () => {
  it('returns the parameters of a valid response, iss among them, aud and exp not', async () => {
    const params = await validateJarmResponse(await sign(), options());
    expect(Object.fromEntries(params)).toEqual({ iss: ISSUER, code: 'the-code', state: 'st-1' });
    expect(Object.fromEntries(await validateJarmResponse(await sign(claims({ aud: ['other', CLIENT_ID] }), {}, es), options()))).toMatchObject({ code: 'the-code' });
  });

  it.each<[string, () => Promise<string>, string]>([
    ['no iss', () => sign(claims({ iss: undefined })), 'jarm_iss_mismatch'],
    ['another iss', () => sign(claims({ iss: 'https://evil.example' })), 'jarm_iss_mismatch'],
    ['no aud', () => sign(claims({ aud: undefined })), 'jarm_aud_mismatch'],
    ['another aud', () => sign(claims({ aud: 'another-client' })), 'jarm_aud_mismatch'],
    ['no exp', () => sign(claims({ exp: undefined })), 'jarm_exp_missing'],
    ['an expired exp', () => sign(claims({ exp: NOW - 61 })), 'jarm_expired'],
    ['exp not a number', () => sign(claims({ exp: 'soon' })), 'jarm_response_malformed'],
    ['a broken signature', async () => `${(await sign()).slice(0, -6)}AAAAAA`, 'jarm_signature_invalid'],
    ['a key of another issuer', () => sign(claims(), { kid: rsa.kid }, stranger), 'jarm_signature_invalid'],
    ['alg none', async () => `${base64urlJson({ alg: 'none' })}.${base64urlJson(claims())}.`, 'jarm_alg_not_allowed'],
    ['HS256', async () => `${base64urlJson({ alg: 'HS256', kid: rsa.kid })}.${base64urlJson(claims())}.c2ln`, 'jarm_alg_not_allowed'],
    ['an unknown kid', () => sign(claims(), { kid: 'nope' }), 'jarm_unknown_kid'],
    ['a crit header', () => sign(claims(), { crit: ['b64'], b64: true }), 'jarm_response_malformed'],
    ['a non-string parameter', () => sign(claims({ code: 42 })), 'jarm_response_malformed'],
    ['an encrypted response', async () => 'a.b.c.d.e', 'jarm_response_malformed'],
    ['garbage', async () => 'not a jwt', 'jarm_response_malformed'],
  ])('refuses %s', async (_, make, expected) => {
    expect(await code(validateJarmResponse(await make(), options()))).toBe(expected);
  });

  it('accepts an exp within the clock tolerance, and judges by the given clock', async () => {
    await expect(validateJarmResponse(await sign(claims({ exp: NOW - 30 })), options())).resolves.toBeInstanceOf(URLSearchParams);
    expect(await code(validateJarmResponse(await sign(claims({ exp: NOW - 30 })), options({ clockTolerance: 0 })))).toBe('jarm_expired');
    expect(await code(validateJarmResponse(await sign(), options({ now: () => NOW + 3600 })))).toBe('jarm_expired');
  });

  it('the pinned signingAlgorithm refuses a response signed with another published key', async () => {
    expect(await code(validateJarmResponse(await sign(claims(), {}, es), options({ signingAlgorithm: 'RS256' })))).toBe('jarm_alg_not_allowed');
    await expect(validateJarmResponse(await sign(claims(), {}, es), options({ signingAlgorithm: 'ES256' }))).resolves.toBeDefined();
  });

  it("defaults to the provider's authorization_signing_alg_values_supported, RS256 when it lists none", async () => {
    const rsOnly = testProvider({ authorization_signing_alg_values_supported: ['RS256', 'none', 'HS256'] });
    expect(await code(validateJarmResponse(await sign(claims(), {}, es), { provider: rsOnly, clientId: CLIENT_ID }))).toBe('jarm_alg_not_allowed');
    expect(await code(validateJarmResponse(await sign(claims(), {}, es), { provider: testProvider(), clientId: CLIENT_ID }))).toBe('jarm_alg_not_allowed');
    await expect(validateJarmResponse(await sign(), { provider: testProvider(), clientId: CLIENT_ID })).resolves.toBeDefined();
  });
});

describe('withJarm and the modes', () => {
  it('maps the JARM modes to where they travel', () => {
    expect(jarmDelivery('jwt', 'code')).toBe('query');
    expect(jarmDelivery('jwt', 'code id_token')).toBe('fragment');
    expect(jarmDelivery('form_post.jwt', 'code')).toBe('form_post');
    expect(isJarmResponseMode('query.jwt')).toBe(true);
    expect(isJarmResponseMode('query')).toBe(false);
  });

  it('sets response_mode to the .jwt form and marks the transaction', async () => {
    const built = await buildAuthorizationRequest({ provider, clientId: CLIENT_ID, redirectUri: 'https://app.example/cb', scope: 'openid', responseMode: 'form_post' });
    const request = withJarm(built);
    expect(request.url.searchParams.get('response_mode')).toBe('form_post.jwt');
    expect(request.transaction.jarm).toBe(true);
    const query = withJarm(await buildAuthorizationRequest({ provider, clientId: CLIENT_ID, redirectUri: 'https://app.example/cb', scope: 'openid' }));
    expect(query.url.searchParams.get('response_mode')).toBe('query.jwt');
  });

  it('refuses query.jwt for a response type with tokens', async () => {
    const hybrid = await buildAuthorizationRequest({ provider, clientId: CLIENT_ID, redirectUri: 'https://app.example/cb', scope: 'openid', responseType: 'code id_token' });
    hybrid.transaction.responseMode = 'query';
    expect(() => withJarm(hybrid)).toThrow(expect.objectContaining({ code: 'invalid_options' }));
  });
});

describe('completeAuthorization with a JARM transaction', () => {
  async function jarmLogin() {
    const { transaction } = withJarm(await buildAuthorizationRequest({ provider, clientId: CLIENT_ID, redirectUri: 'https://app.example/cb', scope: 'profile' }));
    return transaction;
  }
  const complete = (transaction: Awaited<ReturnType<typeof jarmLogin>>, input: string) =>
    completeAuthorization({ provider, client: { clientId: CLIENT_ID }, clientAuth: clientSecretBasic('s'), input, transaction, now: () => NOW });

  it('verifies the response and redeems the code it carries', async () => {
    const transaction = await jarmLogin();
    const jwt = await sign(claims({ state: transaction.state }));
    const tokens = await complete(transaction, `https://app.example/cb?response=${jwt}`);
    expect(tokens.accessToken).toBe('at');
    expect(tokenCalls).toBe(1);
  });

  it('checks state inside the verified response', async () => {
    const transaction = await jarmLogin();
    expect(await code(complete(transaction, `https://app.example/cb?response=${await sign()}`))).toBe('state_mismatch');
    expect(tokenCalls).toBe(0);
  });

  it('an error response inside the JWT is an AuthorizationResponseError', async () => {
    const transaction = await jarmLogin();
    const jwt = await sign(claims({ code: undefined, state: transaction.state, error: 'access_denied' }));
    expect(await code(complete(transaction, `https://app.example/cb?response=${jwt}`))).toBe('authorization_error');
  });

  it('refuses a plain response (downgrade) and a refused JWT before any token request', async () => {
    const transaction = await jarmLogin();
    const plain = `https://app.example/cb?code=the-code&state=${transaction.state}&iss=${encodeURIComponent(ISSUER)}`;
    expect(await code(complete(transaction, plain))).toBe('jarm_response_missing');
    const wrongAud = await sign(claims({ state: transaction.state, aud: 'another-client' }));
    expect(await code(complete(transaction, `https://app.example/cb?response=${wrongAud}&code=x`))).toBe('jarm_aud_mismatch');
    expect(await code(complete(transaction, `https://app.example/cb?response=${wrongAud}&response=${wrongAud}`))).toBe('jarm_response_malformed');
    expect(tokenCalls).toBe(0);
  });

  it('the public plain parser refuses a JARM transaction', async () => {
    const transaction = await jarmLogin();
    const plain = `https://app.example/cb?code=the-code&state=${transaction.state}&iss=${encodeURIComponent(ISSUER)}`;
    expect(() => parseAuthorizationResponse(plain, transaction, provider)).toThrow(expect.objectContaining({ code: 'invalid_options' }));
    expect(tokenCalls).toBe(0);
  });
});
