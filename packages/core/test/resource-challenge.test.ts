import { describe, expect, it } from 'vitest';
import { AccessTokenError, accessTokenChallenge } from '../src/api/index';

const dpop = { required: false, algorithms: ['ES256', 'RS256'] };

describe('accessTokenChallenge', () => {
  it('answers a request without a token 401 with a bare challenge (RFC 6750 §3.1)', () => {
    const refusal = accessTokenChallenge(new AccessTokenError('access_token_missing', 'invalid_token', 'no token'), { realm: 'api' });
    expect(refusal.status).toBe(401);
    expect(refusal.headers['WWW-Authenticate']).toBe('Bearer realm="api"');
    expect(refusal.headers['Cache-Control']).toBe('no-store');
    expect(refusal.body).toEqual({});
  });

  it.each([
    ['invalid_request', 400],
    ['invalid_token', 401],
    ['insufficient_scope', 403],
  ] as const)('answers %s with %i and the error in a Bearer challenge', (challenge, status) => {
    const refusal = accessTokenChallenge(new AccessTokenError('access_token_invalid', challenge, 'why'), { requestScheme: 'Bearer' });
    expect(refusal.status).toBe(status);
    expect(refusal.headers['WWW-Authenticate']).toBe(`Bearer error="${challenge}", error_description="why"`);
    expect(refusal.body).toEqual({ error: challenge, error_description: 'why' });
  });

  it('names the required scope on insufficient_scope and the resource metadata on every challenge', () => {
    const refusal = accessTokenChallenge(new AccessTokenError('insufficient_scope', 'insufficient_scope', 'needs more'), {
      scope: ['orders.read', 'orders.write'],
      resourceMetadata: 'https://api.example.com/.well-known/oauth-protected-resource',
    });
    expect(refusal.headers['WWW-Authenticate']).toBe(
      'Bearer error="insufficient_scope", error_description="needs more", scope="orders.read orders.write", resource_metadata="https://api.example.com/.well-known/oauth-protected-resource"',
    );
  });

  it('answers a DPoP request with a DPoP challenge and algs, the Bearer one after it, and the nonce header', () => {
    const error = new AccessTokenError('dpop_nonce_required', 'use_dpop_nonce', 'use the nonce', { dpopNonce: 'n-1' });
    const refusal = accessTokenChallenge(error, { requestScheme: 'DPoP', dpop, realm: 'api' });
    expect(refusal.status).toBe(401);
    expect(refusal.headers['WWW-Authenticate']).toBe('DPoP realm="api", error="use_dpop_nonce", error_description="use the nonce", algs="ES256 RS256", Bearer realm="api"');
    expect(refusal.headers['DPoP-Nonce']).toBe('n-1');
  });

  it('answers only DPoP when the verifier requires it, even to a Bearer request', () => {
    const refusal = accessTokenChallenge(new AccessTokenError('access_token_invalid', 'invalid_token', 'x'), { requestScheme: 'Bearer', dpop: { ...dpop, required: true } });
    expect(refusal.headers['WWW-Authenticate']).toBe('DPoP error="invalid_token", error_description="x", algs="ES256 RS256"');
  });

  it('answers a Bearer request with the Bearer error first and offers DPoP beside it', () => {
    const refusal = accessTokenChallenge(new AccessTokenError('access_token_invalid', 'invalid_token', 'x'), { requestScheme: 'Bearer', dpop });
    expect(refusal.headers['WWW-Authenticate']).toBe('Bearer error="invalid_token", error_description="x", DPoP algs="ES256 RS256"');
  });

  it('keeps quotes, backslashes and line breaks of a message out of the header, quotes readable as single quotes', () => {
    const refusal = accessTokenChallenge(new AccessTokenError('access_token_invalid', 'invalid_token', 'a "b" \\c\r\nSet-Cookie: x'));
    expect(refusal.headers['WWW-Authenticate']).toBe("Bearer error=\"invalid_token\", error_description=\"a 'b' /c??Set-Cookie: x\"");
  });
});
