// readInitiateLogin (OIDC Core 4), resolveClaimSources (OIDC Core 5.6.2) and the userinfo
// token in the body: the rules each keeps, case by case. Over real HTTP against the reference
// server: packages/node/test/initiate-login-and-claims.integration.test.ts and the browser's
// Chromium test.
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveClaimSources } from '../src/client/claim-sources';
import { readInitiateLogin } from '../src/client/initiate-login';
import { fetchUserInfo } from '../src/client/userinfo';
import { dpop } from '../src/client/dpop-proof-maker';
import { clearJwksCache } from '../src/jose/jwks';
import { ISSUER, type TestKey, createTestKey, serveJwks, signIdToken, testProvider } from './support/id-tokens';

const APP = 'https://app.example.test';

describe('readInitiateLogin', () => {
  const read = (query: string, targetOrigins: string[] = [APP]) => readInitiateLogin(new URLSearchParams(query), { issuer: ISSUER, targetOrigins });
  const codeOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return (error as { code?: string }).code;
    }
    return 'no error';
  };

  it('passes login_hint and an allowed target_link_uri on; ignores other parameters', () => {
    expect(read(`iss=${encodeURIComponent(ISSUER)}&login_hint=alice&target_link_uri=${encodeURIComponent(`${APP}/a?b=1#c`)}&extra=1`)).toEqual({
      loginHint: 'alice',
      targetLinkUri: `${APP}/a?b=1#c`,
    });
    expect(read(`iss=${encodeURIComponent(ISSUER)}`)).toEqual({});
  });

  it('iss: required (initiate_login_invalid), exactly the configured issuer (initiate_login_iss_mismatch), once', () => {
    expect(codeOf(() => read('login_hint=alice'))).toBe('initiate_login_invalid');
    for (const iss of ['https://evil.example', `${ISSUER}/`, ISSUER.toUpperCase(), `${ISSUER}.evil.example`]) {
      expect(codeOf(() => read(`iss=${encodeURIComponent(iss)}`))).toBe('initiate_login_iss_mismatch');
    }
    expect(codeOf(() => read(`iss=${encodeURIComponent(ISSUER)}&iss=${encodeURIComponent(ISSUER)}`))).toBe('initiate_login_invalid');
    expect(codeOf(() => read(`iss=${encodeURIComponent(ISSUER)}&login_hint=${'a'.repeat(3000)}`))).toBe('initiate_login_invalid');
  });

  it('target_link_uri: an absolute http(s) URL on an allowed origin only (no open redirect)', () => {
    const iss = `iss=${encodeURIComponent(ISSUER)}`;
    for (const target of ['https://evil.example/', '/relative', '//evil.example/x', 'javascript:alert(1)', `https://user:pw@app.example.test/`, 'http://app.example.test/']) {
      expect(codeOf(() => read(`${iss}&target_link_uri=${encodeURIComponent(target)}`))).toBe('initiate_login_target_not_allowed');
    }
    expect(read(`${iss}&target_link_uri=${encodeURIComponent('https://other.example/x')}`, [APP, 'https://other.example'])).toEqual({ targetLinkUri: 'https://other.example/x' });
  });

  it('options: a missing issuer or targetOrigins that are not origins are invalid_options', () => {
    expect(codeOf(() => readInitiateLogin(new URLSearchParams(), { issuer: '', targetOrigins: [] }))).toBe('invalid_options');
    expect(codeOf(() => readInitiateLogin(new URLSearchParams(), { issuer: ISSUER, targetOrigins: ['app.example'] }))).toBe('invalid_options');
  });
});

describe('resolveClaimSources', () => {
  const server = setupServer();
  let key: TestKey;
  let foreign: TestKey;
  const CLAIMS_URL = `${ISSUER}/claims`;
  const requests: Request[] = [];

  beforeAll(async () => {
    server.listen({ onUnhandledRequest: 'error' });
    key = await createTestKey('RS256');
    foreign = await createTestKey('RS256');
  });
  afterEach(() => {
    server.resetHandlers();
    clearJwksCache();
    requests.length = 0;
  });
  afterAll(() => server.close());

  function serveClaims(body: () => Promise<string>) {
    serveJwks(server, () => [key.jwk]);
    server.use(
      http.get(CLAIMS_URL, async ({ request }) => {
        requests.push(request);
        return new HttpResponse(await body(), { headers: { 'content-type': 'application/jwt' } });
      }),
    );
  }
  const resolve = (claims: Record<string, unknown>) => resolveClaimSources(claims, { provider: testProvider() });
  const codes = (unresolved: Array<{ claim: string; error: { code: string } }>) => unresolved.map((u) => `${u.claim}:${u.error.code}`);

  it('an aggregated JWT verified with the provider keys adds only the claims named for it; sub and iss never come from a source', async () => {
    serveJwks(server, () => [key.jwk]);
    const jwt = await signIdToken(key, { iss: ISSUER, sub: 'someone-else', phone_number: '+1', nickname: 'not named' });
    const { claims, unresolved } = await resolve({ sub: 'u1', _claim_names: { phone_number: 'a', sub: 'a' }, _claim_sources: { a: { JWT: jwt } } });
    expect(claims).toEqual({ sub: 'u1', phone_number: '+1' });
    expect(unresolved).toEqual([]);
  });

  it('a JWT signed by a key the provider does not publish, or by an issuer not trusted: not used', async () => {
    serveJwks(server, () => [key.jwk]);
    const byForeignKey = await signIdToken(foreign, { iss: ISSUER, phone_number: '+1' });
    const byOtherIssuer = await signIdToken(key, { iss: 'https://claims.example', phone_number: '+1' });
    const { claims, unresolved } = await resolve({
      sub: 'u1',
      _claim_names: { phone_number: 'a', email: 'b' },
      _claim_sources: { a: { JWT: byForeignKey }, b: { JWT: byOtherIssuer } },
    });
    expect(claims).toEqual({ sub: 'u1' });
    expect(codes(unresolved)).toEqual(['phone_number:claims_signature_invalid', 'email:claims_source_not_trusted']);
  });

  it('a missing or malformed source is claims_source_invalid', async () => {
    const { unresolved } = await resolve({ sub: 'u1', _claim_names: { a: 's0', b: 's1', c: 's2' }, _claim_sources: { s0: { JWT: 'not.a.jwt' }, s2: { other: 1 } } });
    expect(codes(unresolved)).toEqual(['a:claims_source_invalid', 'b:claims_source_invalid', 'c:claims_source_invalid']);
  });

  it('one answer makes at most 8 sources be looked at: the 9th and later are claims_source_invalid, unverified', async () => {
    serveJwks(server, () => [key.jwk]);
    const names: Record<string, string> = {};
    const sources: Record<string, unknown> = {};
    for (let i = 0; i < 10; i++) {
      names[`c${i}`] = `s${i}`;
      sources[`s${i}`] = { JWT: await signIdToken(key, { iss: ISSUER, [`c${i}`]: i }) };
    }
    const { claims, unresolved } = await resolve({ sub: 'u1', _claim_names: names, _claim_sources: sources });
    expect(Object.keys(claims)).toEqual(['sub', 'c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7']);
    expect(codes(unresolved)).toEqual(['c8:claims_source_invalid', 'c9:claims_source_invalid']);
  });

  it('a distributed source on the provider origin is fetched with its access token as Bearer, and verified', async () => {
    serveClaims(() => signIdToken(key, { credit_score: 650 }));
    const { claims, unresolved } = await resolve({ sub: 'u1', _claim_names: { credit_score: 's' }, _claim_sources: { s: { endpoint: CLAIMS_URL, access_token: 'source-token' } } });
    expect(unresolved).toEqual([]);
    expect(claims).toEqual({ sub: 'u1', credit_score: 650 });
    expect(requests.map((r) => r.headers.get('authorization'))).toEqual(['Bearer source-token']);
  });

  it('a distributed answer that is not a verifiable JWT, or an HTTP error: claims_source_error / claims_signature_invalid', async () => {
    serveClaims(async () => '');
    expect(codes((await resolve({ _claim_names: { x: 's' }, _claim_sources: { s: { endpoint: CLAIMS_URL } } })).unresolved)).toEqual(['x:claims_source_error']);
    server.resetHandlers();
    serveClaims(() => signIdToken(foreign, { x: 1 }));
    expect(codes((await resolve({ _claim_names: { x: 's' }, _claim_sources: { s: { endpoint: CLAIMS_URL } } })).unresolved)).toEqual(['x:claims_signature_invalid']);
  });

  it('an endpoint off the trusted origins or over plain http is not called (msw fails on any unhandled request)', async () => {
    const { unresolved } = await resolve({
      _claim_names: { a: 's1', b: 's2' },
      _claim_sources: { s1: { endpoint: 'https://elsewhere.example/claims' }, s2: { endpoint: 'http://op.example.test/claims' } },
    });
    expect(codes(unresolved)).toEqual(['a:claims_source_not_trusted', 'b:claims_source_insecure']);
  });

  it('claims without sources come back as they were', async () => {
    expect(await resolve({ sub: 'u1', email: 'e' })).toEqual({ claims: { sub: 'u1', email: 'e' }, unresolved: [] });
  });
});

describe('fetchUserInfo tokenIn', () => {
  it('"body" with a DPoP handle, or an unknown value, is invalid_options before any request', async () => {
    const provider = testProvider({ userinfo_endpoint: `${ISSUER}/userinfo` });
    const handle = await dpop();
    await expect(fetchUserInfo({ provider, accessToken: 't', expectedSubject: 's', tokenIn: 'body', dpop: handle })).rejects.toMatchObject({ code: 'invalid_options' });
    await expect(fetchUserInfo({ provider, accessToken: 't', expectedSubject: 's', tokenIn: 'query' as 'body' })).rejects.toMatchObject({ code: 'invalid_options' });
  });
});
