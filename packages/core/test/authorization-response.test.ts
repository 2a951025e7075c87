import { describe, expect, it } from 'vitest';
import {
  AuthorizationResponseError,
  type AuthorizationTransaction,
  type ProviderMetadata,
  type ResponseMode,
  type ResponseType,
  parseAuthorizationResponse,
  serviceProvider,
} from '../src/index';

const ISSUER = 'https://login.example.com/acme';
const provider = serviceProvider(ISSUER);
const withoutIss: ProviderMetadata = { ...provider, authorization_response_iss_parameter_supported: false };
const CALLBACK = 'https://app.example.com/callback';

function transaction(responseType: ResponseType = 'code', responseMode?: ResponseMode): AuthorizationTransaction {
  return {
    state: 'state-abc',
    nonce: 'nonce-abc',
    redirectUri: CALLBACK,
    responseType,
    responseMode: responseMode ?? (responseType === 'code' ? 'query' : responseType === 'id_token' ? 'form_post' : 'fragment'),
    scope: 'openid',
    clientId: 'web',
    issuer: ISSUER,
    createdAt: 0,
  };
}

function query(params: Record<string, string>): string {
  return `${CALLBACK}?${new URLSearchParams(params)}`;
}
function fragment(params: Record<string, string>): string {
  return `${CALLBACK}#${new URLSearchParams(params)}`;
}

function failure(run: () => unknown): { code: string; message: string } & Record<string, unknown> {
  try {
    run();
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error('expected a failure');
}

const ok = { state: 'state-abc', iss: ISSUER };

describe('parseAuthorizationResponse: code flow (query)', () => {
  it('returns code, state and iss from the query, as URL or string', () => {
    const expected = { code: 'the-code', state: 'state-abc', iss: ISSUER };
    expect(parseAuthorizationResponse(query({ ...ok, code: 'the-code' }), transaction(), provider)).toEqual(expected);
    expect(parseAuthorizationResponse(new URL(query({ ...ok, code: 'the-code' })), transaction(), provider)).toEqual(
      expected,
    );
  });

  it('ignores tokens the code flow did not ask for', () => {
    const result = parseAuthorizationResponse(
      query({ ...ok, code: 'c', id_token: 'injected', access_token: 'injected' }),
      transaction(),
      provider,
    );
    expect(result).toEqual({ code: 'c', state: 'state-abc', iss: ISSUER });
  });

  it('rejects a missing state with state_missing', () => {
    expect(failure(() => parseAuthorizationResponse(query({ code: 'c', iss: ISSUER }), transaction(), provider)).code).toBe(
      'state_missing',
    );
  });

  it('rejects an empty state with state_missing', () => {
    const url = query({ code: 'c', iss: ISSUER, state: '' });
    expect(failure(() => parseAuthorizationResponse(url, transaction(), provider)).code).toBe('state_missing');
  });

  it('rejects another login attempt\'s state with state_mismatch, without echoing either state or the code', () => {
    const error = failure(() =>
      parseAuthorizationResponse(query({ code: 'secret-code-1', iss: ISSUER, state: 'other-state' }), transaction(), provider),
    );
    expect(error.code).toBe('state_mismatch');
    expect(error.message).not.toContain('other-state');
    expect(error.message).not.toContain('state-abc');
    expect(error.message).not.toContain('secret-code-1');
  });

  it('rejects a foreign iss with iss_mismatch (mix-up defence)', () => {
    const url = query({ code: 'c', state: 'state-abc', iss: 'https://evil.example.com' });
    expect(failure(() => parseAuthorizationResponse(url, transaction(), provider)).code).toBe('iss_mismatch');
  });

  it('rejects an iss differing only by a trailing slash', () => {
    const url = query({ code: 'c', state: 'state-abc', iss: `${ISSUER}/` });
    expect(failure(() => parseAuthorizationResponse(url, transaction(), provider)).code).toBe('iss_mismatch');
  });

  it('rejects a missing iss when the provider advertises RFC 9207', () => {
    const url = query({ code: 'c', state: 'state-abc' });
    expect(failure(() => parseAuthorizationResponse(url, transaction(), provider)).code).toBe('iss_missing');
  });

  it('RFC 9207 2.4: without iss, a response carrying an ID token passes (its iss is checked at validation)', () => {
    const hybrid = fragment({ state: 'state-abc', code: 'c', id_token: 'it' });
    expect(parseAuthorizationResponse(hybrid, transaction('code id_token'), provider)).toEqual({ code: 'c', state: 'state-abc', idToken: 'it' });
    const formPost = new URLSearchParams({ state: 'state-abc', id_token: 'it' });
    expect(parseAuthorizationResponse(formPost, transaction('id_token'), provider).iss).toBeUndefined();
  });

  it('RFC 9207 2.4 is no loophole: iss_missing without an ID token, an ID token the response type did not ask for, or with an error', () => {
    // A code response with an injected id_token is still a code response.
    const injected = query({ state: 'state-abc', code: 'c', id_token: 'it' });
    expect(failure(() => parseAuthorizationResponse(injected, transaction(), provider)).code).toBe('iss_missing');
    // A hybrid response without its ID token.
    const bare = fragment({ state: 'state-abc', code: 'c' });
    expect(failure(() => parseAuthorizationResponse(bare, transaction('code id_token'), provider)).code).toBe('iss_missing');
    // An error dressed up with an id_token parameter.
    const error = fragment({ state: 'state-abc', error: 'access_denied', id_token: 'it' });
    expect(failure(() => parseAuthorizationResponse(error, transaction('code id_token'), provider)).code).toBe('iss_missing');
    // A wrong iss is refused whatever else the response carries.
    const wrong = fragment({ state: 'state-abc', code: 'c', id_token: 'it', iss: 'https://evil.example.com' });
    expect(failure(() => parseAuthorizationResponse(wrong, transaction('code id_token'), provider)).code).toBe('iss_mismatch');
  });

  it('accepts a missing iss when the provider does not advertise RFC 9207, and still checks one that is sent', () => {
    expect(parseAuthorizationResponse(query({ code: 'c', state: 'state-abc' }), transaction(), withoutIss)).toEqual({
      code: 'c',
      state: 'state-abc',
    });
    const wrong = query({ code: 'c', state: 'state-abc', iss: 'https://evil.example.com' });
    expect(failure(() => parseAuthorizationResponse(wrong, transaction(), withoutIss)).code).toBe('iss_mismatch');
  });

  it('surfaces an error response as AuthorizationResponseError with error, error_description and state', () => {
    const url = query({ ...ok, error: 'invalid_grant', error_description: 'Too many failed logins' });
    const error = failure(() => parseAuthorizationResponse(url, transaction(), provider));
    expect(error).toBeInstanceOf(AuthorizationResponseError);
    expect(error).toMatchObject({
      code: 'authorization_error',
      error: 'invalid_grant',
      error_description: 'Too many failed logins',
      state: 'state-abc',
    });
    expect(error.message).toContain('invalid_grant');
  });

  it('checks state before trusting an error response', () => {
    const url = query({ iss: ISSUER, state: 'forged', error: 'access_denied' });
    expect(failure(() => parseAuthorizationResponse(url, transaction(), provider)).code).toBe('state_mismatch');
  });

  it('rejects duplicate parameters', () => {
    const url = `${CALLBACK}?code=a&code=b&state=state-abc&iss=${encodeURIComponent(ISSUER)}`;
    expect(failure(() => parseAuthorizationResponse(url, transaction(), provider)).code).toBe(
      'authorization_response_invalid',
    );
    const states = `${CALLBACK}?code=a&state=state-abc&state=state-abc&iss=${encodeURIComponent(ISSUER)}`;
    expect(failure(() => parseAuthorizationResponse(states, transaction(), provider)).code).toBe(
      'authorization_response_invalid',
    );
  });

  it('rejects a success without code', () => {
    expect(failure(() => parseAuthorizationResponse(query(ok), transaction(), provider)).code).toBe(
      'authorization_response_invalid',
    );
  });

  it('reads the query, not the fragment, for query mode', () => {
    const url = `${query({ ...ok, code: 'from-query' })}#code=from-fragment`;
    expect(parseAuthorizationResponse(url, transaction(), provider).code).toBe('from-query');
  });

  it('refuses a bare parameter string for query mode (the full callback URL is needed)', () => {
    const body = new URLSearchParams({ ...ok, code: 'c' });
    expect(failure(() => parseAuthorizationResponse(body.toString(), transaction(), provider)).code).toBe('invalid_options');
    expect(failure(() => parseAuthorizationResponse(body, transaction(), provider)).code).toBe('invalid_options');
  });

  it('refuses a transaction started with another provider', () => {
    const other = serviceProvider('https://login.example.com/other');
    expect(failure(() => parseAuthorizationResponse(query({ ...ok, code: 'c' }), transaction(), other)).code).toBe(
      'transaction_invalid',
    );
  });
});

describe('parseAuthorizationResponse: implicit and hybrid (fragment)', () => {
  it('reads the tokens of an implicit response from the fragment', () => {
    const url = fragment({ ...ok, access_token: 'at', token_type: 'Bearer', expires_in: '3600', id_token: 'it', scope: 'openid' });
    expect(parseAuthorizationResponse(url, transaction('id_token token'), provider)).toEqual({
      state: 'state-abc',
      iss: ISSUER,
      accessToken: 'at',
      tokenType: 'Bearer',
      expiresIn: 3600,
      idToken: 'it',
      scope: 'openid',
    });
  });

  it('reads code and ID token of a hybrid response from the fragment', () => {
    const url = fragment({ ...ok, code: 'c', id_token: 'it' });
    expect(parseAuthorizationResponse(url, transaction('code id_token'), provider)).toEqual({
      state: 'state-abc',
      iss: ISSUER,
      code: 'c',
      idToken: 'it',
    });
  });

  it.each<ResponseType>(['token', 'id_token token', 'code id_token', 'code token id_token'])(
    'rejects a %s response whose tokens arrived in the query',
    (responseType) => {
      const url = query({ ...ok, code: 'code-xyz', access_token: 'token-xyz', token_type: 'Bearer', id_token: 'idt-xyz' });
      const error = failure(() => parseAuthorizationResponse(url, transaction(responseType), provider));
      expect(error.code).toBe('authorization_response_invalid');
      expect(error.message).not.toMatch(/code-xyz|token-xyz|idt-xyz/);
    },
  );

  it('rejects an implicit response whose query carries a token next to a valid fragment', () => {
    const url = `${CALLBACK}?access_token=injected#${new URLSearchParams({ ...ok, access_token: 'at', token_type: 'bearer' })}`;
    expect(failure(() => parseAuthorizationResponse(url, transaction('token'), provider)).code).toBe(
      'authorization_response_invalid',
    );
  });

  it('accepts an error that the provider could only put in the query', () => {
    const url = query({ ...ok, error: 'access_denied' });
    expect(failure(() => parseAuthorizationResponse(url, transaction('code id_token'), provider))).toMatchObject({
      code: 'authorization_error',
      error: 'access_denied',
    });
  });

  it.each<[ResponseType, Record<string, string>, string]>([
    ['code id_token', { code: 'c' }, 'id_token'],
    ['code id_token', { id_token: 'it' }, 'code'],
    ['code token id_token', { code: 'c', id_token: 'it', token_type: 'Bearer' }, 'access_token'],
    ['token', { access_token: 'at' }, 'token_type'],
    ['id_token token', { access_token: 'at', token_type: 'Bearer' }, 'id_token'],
  ])('rejects %s without the parameter it requires (%j lacks %s)', (responseType, params, missing) => {
    const error = failure(() => parseAuthorizationResponse(fragment({ ...ok, ...params }), transaction(responseType), provider));
    expect(error.code).toBe('authorization_response_invalid');
    expect(error.message).toContain(missing);
  });

  it('accepts token_type in any case and rejects other token types', () => {
    for (const tokenType of ['bearer', 'BEARER', 'Bearer']) {
      const url = fragment({ ...ok, access_token: 'at', token_type: tokenType });
      expect(parseAuthorizationResponse(url, transaction('token'), provider).tokenType).toBe(tokenType);
    }
    const mac = fragment({ ...ok, access_token: 'at', token_type: 'mac' });
    expect(failure(() => parseAuthorizationResponse(mac, transaction('token'), provider)).code).toBe(
      'authorization_response_invalid',
    );
  });

  it('rejects a malformed expires_in', () => {
    const url = fragment({ ...ok, access_token: 'at', token_type: 'Bearer', expires_in: '-5' });
    expect(failure(() => parseAuthorizationResponse(url, transaction('token'), provider)).code).toBe(
      'authorization_response_invalid',
    );
  });

  it('applies the state check to the fragment', () => {
    const url = fragment({ iss: ISSUER, state: 'forged', access_token: 'at', token_type: 'Bearer' });
    expect(failure(() => parseAuthorizationResponse(url, transaction('token'), provider)).code).toBe('state_mismatch');
  });
});

describe('parseAuthorizationResponse: form_post', () => {
  const body = new URLSearchParams({ ...ok, id_token: 'it' });

  it('reads a form body given as URLSearchParams or as the raw string', () => {
    const expected = { state: 'state-abc', iss: ISSUER, idToken: 'it' };
    expect(parseAuthorizationResponse(body, transaction('id_token'), provider)).toEqual(expected);
    expect(parseAuthorizationResponse(body.toString(), transaction('id_token'), provider)).toEqual(expected);
  });

  it('reads a form_post code response', () => {
    const form = new URLSearchParams({ ...ok, code: 'c' });
    expect(parseAuthorizationResponse(form, transaction('code', 'form_post'), provider).code).toBe('c');
  });

  it('refuses a URL (e.g. a GET to the callback carrying the tokens in its query)', () => {
    const url = query({ ...ok, id_token: 'it' });
    expect(failure(() => parseAuthorizationResponse(url, transaction('id_token'), provider)).code).toBe('invalid_options');
    expect(failure(() => parseAuthorizationResponse(new URL(url), transaction('id_token'), provider)).code).toBe(
      'invalid_options',
    );
  });

  it('runs the same checks on the body', () => {
    const forged = new URLSearchParams({ state: 'forged', iss: ISSUER, id_token: 'it' });
    expect(failure(() => parseAuthorizationResponse(forged, transaction('id_token'), provider)).code).toBe('state_mismatch');
    const noIss = new URLSearchParams({ state: 'state-abc', iss: `${ISSUER}/x`, id_token: 'it' });
    expect(failure(() => parseAuthorizationResponse(noIss, transaction('id_token'), provider)).code).toBe('iss_mismatch');
    const dup = `${body}&id_token=other`;
    expect(failure(() => parseAuthorizationResponse(dup, transaction('id_token'), provider)).code).toBe(
      'authorization_response_invalid',
    );
    const error = new URLSearchParams({ ...ok, error: 'login_required', error_description: 'no session' });
    expect(failure(() => parseAuthorizationResponse(error, transaction('id_token'), provider))).toMatchObject({
      error: 'login_required',
      error_description: 'no session',
    });
  });
});
