import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { OidcError, type OidcErrorCode } from '../src/errors';
import { clearJwksCache } from '../src/jose/jwks';
import {
  BACKCHANNEL_LOGOUT_EVENT,
  type LogoutTokenValidationOptions,
  logoutTokenReplayWindow,
  validateLogoutToken,
} from '../src/client/logout-token';
import { CLIENT_ID, ISSUER, NOW, type TestKey, base64urlJson, createTestKey, serveJwks, signIdToken, testProvider } from './support/id-tokens';

const server = setupServer();
let rsa: TestKey;
let stranger: TestKey;

beforeAll(async () => {
  server.listen({ onUnhandledRequest: 'error' });
  rsa = await createTestKey('RS256');
  stranger = await createTestKey('RS256');
});
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW * 1000);
  serveJwks(server, () => [rsa.jwk]);
});
afterEach(() => {
  server.resetHandlers();
  clearJwksCache();
  vi.useRealTimers();
});
afterAll(() => server.close());

function logoutClaims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    iss: ISSUER,
    aud: CLIENT_ID,
    iat: NOW - 5,
    exp: NOW + 115,
    jti: 'logout-jti-1',
    sub: 'user-42',
    sid: 'session-7',
    events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    ...overrides,
  };
}

function sign(claims = logoutClaims(), header: Record<string, unknown> = { typ: 'logout+jwt' }, key = rsa): Promise<string> {
  return signIdToken(key, claims, header);
}

function validate(token: string, options: Partial<LogoutTokenValidationOptions> = {}) {
  return validateLogoutToken(token, { provider: testProvider(), clientId: CLIENT_ID, ...options });
}

async function expectRejection(token: string, code: OidcErrorCode, options: Partial<LogoutTokenValidationOptions> = {}): Promise<void> {
  const error: unknown = await validate(token, options).then(
    () => expect.fail(`expected the logout token to be refused with ${code}`),
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(OidcError);
  expect((error as OidcError).code, (error as OidcError).message).toBe(code);
  for (const part of token.split('.').filter((p) => p.length >= 8)) expect((error as OidcError).message).not.toContain(part);
}

describe('valid logout tokens', () => {
  it('accepts a token with sub and sid and resolves its claims', async () => {
    const claims = await validate(await sign());
    expect(claims).toMatchObject({ iss: ISSUER, aud: CLIENT_ID, sub: 'user-42', sid: 'session-7', jti: 'logout-jti-1' });
  });

  it('accepts sid alone, sub alone, an array aud, no exp, and the typ values the spec allows', async () => {
    await expect(validate(await sign(logoutClaims({ sub: undefined })))).resolves.toMatchObject({ sid: 'session-7' });
    await expect(validate(await sign(logoutClaims({ sid: undefined })))).resolves.toMatchObject({ sub: 'user-42' });
    await expect(validate(await sign(logoutClaims({ aud: ['other', CLIENT_ID], exp: undefined }))))
      .resolves.toMatchObject({ jti: 'logout-jti-1' });
    for (const typ of ['JWT', 'application/logout+jwt', undefined]) {
      await expect(validate(await sign(logoutClaims(), typ === undefined ? {} : { typ }))).resolves.toMatchObject({ sid: 'session-7' });
    }
  });

  it('accepts an iat up to maxAge plus the tolerance in the past', async () => {
    await expect(validate(await sign(logoutClaims({ iat: NOW - 180, exp: undefined })))).resolves.toBeDefined();
    await expect(validate(await sign(logoutClaims({ iat: NOW - 290, exp: undefined })), { maxAge: 230 })).resolves.toBeDefined();
  });

  it('states how long a jti must be remembered', () => {
    expect(logoutTokenReplayWindow({})).toBe(240);
    expect(logoutTokenReplayWindow({ maxAge: 30, clockTolerance: 5 })).toBe(40);
  });
});

describe('refused logout tokens', () => {
  it('refuses what is not a JWS', async () => {
    await expectRejection('not-a-token', 'logout_token_malformed');
    await expectRejection(`${base64urlJson({ alg: 'RS256' })}.${base64urlJson([1])}.sig`, 'logout_token_malformed');
  });

  it('refuses an unsigned token (alg none) before any key lookup', async () => {
    const token = `${base64urlJson({ alg: 'none', typ: 'logout+jwt' })}.${base64urlJson(logoutClaims())}.`;
    await expectRejection(token, 'logout_token_alg_not_allowed');
  });

  it('refuses an HMAC token', async () => {
    const token = `${base64urlJson({ alg: 'HS256', kid: rsa.kid })}.${base64urlJson(logoutClaims())}.c2ln`;
    await expectRejection(token, 'logout_token_alg_not_allowed');
  });

  it('refuses a token signed by a key the provider does not publish', async () => {
    await expectRejection(await sign(logoutClaims(), { typ: 'logout+jwt' }, stranger), 'logout_token_unknown_kid');
    // The provider's kid on a stranger's signature.
    await expectRejection(await sign(logoutClaims(), { typ: 'logout+jwt', kid: rsa.kid }, stranger), 'logout_token_signature_invalid');
  });

  it('refuses a token of another type (an access token, an ID token by typ)', async () => {
    await expectRejection(await sign(logoutClaims(), { typ: 'at+jwt' }), 'logout_token_typ_invalid');
    await expectRejection(await sign(logoutClaims(), { typ: 'dpop+jwt' }), 'logout_token_typ_invalid');
  });

  it('refuses a token with crit', async () => {
    const token = `${base64urlJson({ alg: 'RS256', kid: rsa.kid, crit: ['exp'], exp: 1 })}.${base64urlJson(logoutClaims())}.c2ln`;
    await expectRejection(token, 'logout_token_malformed');
  });

  it('refuses another issuer', async () => {
    await expectRejection(await sign(logoutClaims({ iss: 'https://evil.example' })), 'logout_token_iss_mismatch');
  });

  it('refuses another audience', async () => {
    await expectRejection(await sign(logoutClaims({ aud: 'another-client' })), 'logout_token_aud_mismatch');
    await expectRejection(await sign(logoutClaims({ aud: ['another-client'] })), 'logout_token_aud_mismatch');
  });

  it('refuses a missing, future or too old iat', async () => {
    await expectRejection(await sign(logoutClaims({ iat: undefined })), 'logout_token_iat_invalid');
    await expectRejection(await sign(logoutClaims({ iat: NOW + 61 })), 'logout_token_iat_invalid');
    await expectRejection(await sign(logoutClaims({ iat: NOW - 181, exp: undefined })), 'logout_token_iat_invalid');
    await expectRejection(await sign(logoutClaims({ iat: NOW - 11 })), 'logout_token_iat_invalid', { maxAge: 0, clockTolerance: 10 });
    await expectRejection(await sign(logoutClaims({ iat: 'yesterday' })), 'logout_token_malformed');
  });

  it('refuses an expired token', async () => {
    await expectRejection(await sign(logoutClaims({ exp: NOW - 61 })), 'logout_token_expired');
  });

  it('refuses a token without jti', async () => {
    await expectRejection(await sign(logoutClaims({ jti: undefined })), 'logout_token_jti_missing');
    await expectRejection(await sign(logoutClaims({ jti: '' })), 'logout_token_jti_missing');
  });

  it('refuses a token without the back-channel event, or with it not an object', async () => {
    await expectRejection(await sign(logoutClaims({ events: undefined })), 'logout_token_events_invalid');
    await expectRejection(await sign(logoutClaims({ events: { 'http://example/other': {} } })), 'logout_token_events_invalid');
    await expectRejection(await sign(logoutClaims({ events: { [BACKCHANNEL_LOGOUT_EVENT]: 'yes' } })), 'logout_token_events_invalid');
    await expectRejection(await sign(logoutClaims({ events: { [BACKCHANNEL_LOGOUT_EVENT]: [] } })), 'logout_token_events_invalid');
    await expectRejection(await sign(logoutClaims({ events: [BACKCHANNEL_LOGOUT_EVENT] })), 'logout_token_events_invalid');
  });

  it('refuses a token carrying nonce (an ID token passed off as a logout token)', async () => {
    await expectRejection(await sign(logoutClaims({ nonce: 'n-0S6_WzA2Mj' })), 'logout_token_nonce_present');
  });

  it('refuses a token with neither sub nor sid, or with one that is not a string', async () => {
    await expectRejection(await sign(logoutClaims({ sub: undefined, sid: undefined })), 'logout_token_sub_sid_missing');
    await expectRejection(await sign(logoutClaims({ sid: 7 })), 'logout_token_malformed');
    await expectRejection(await sign(logoutClaims({ sub: '' })), 'logout_token_malformed');
  });

  it('refuses a plain ID token (no events)', async () => {
    await expectRejection(await signIdToken(rsa, { iss: ISSUER, aud: CLIENT_ID, sub: 'user-42', iat: NOW, exp: NOW + 300 }), 'logout_token_events_invalid');
  });
});
