import { HttpResponse, http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import {
  clientSecretBasic,
  clientSecretJwt,
  createDpopProof,
  type DpopHandle,
  dpop,
} from '../src/index';
import {
  AccessTokenError,
  type IntrospectionResponse,
  type ResourceRequest,
  dpopProofs,
  introspectToken,
  introspectionVerifier,
} from '../src/api/index';
import { useMswServer } from './support/msw-server';

const { server, requests } = useMswServer();

const ISSUER = 'https://login.example.com/acme';
const INTROSPECT = `${ISSUER}/oauth/introspect`;
const provider = { issuer: ISSUER, authorization_endpoint: `${ISSUER}/a`, token_endpoint: `${ISSUER}/t`, introspection_endpoint: INTROSPECT };
const API = 'https://api.example.com';
const T0 = 1_800_000_000;

function request(authorization: string | null): ResourceRequest {
  return { method: 'GET', url: `${API}/orders`, authorization, dpop: null };
}

function active(overrides: Partial<IntrospectionResponse> = {}): IntrospectionResponse {
  return { active: true, iss: ISSUER, sub: 'alice', aud: API, exp: T0 + 3600, scope: 'orders.read profile', client_id: 'spa', token_type: 'Bearer', ...overrides };
}

/** An introspection endpoint whose answers the test decides, counting the calls per token. */
function endpoint(answers: Map<string, IntrospectionResponse>) {
  const calls = new Map<string, number>();
  server.use(
    http.post(INTROSPECT, async ({ request: incoming }) => {
      const token = new URLSearchParams(await incoming.text()).get('token') ?? '';
      calls.set(token, (calls.get(token) ?? 0) + 1);
      return HttpResponse.json(answers.get(token) ?? { active: false });
    }),
  );
  return calls;
}

async function refusal(promise: Promise<unknown>): Promise<AccessTokenError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AccessTokenError);
  return error as AccessTokenError;
}

describe('introspectToken', () => {
  it('waits for an asynchronous ClientAuth: a client assertion is in the request it sends', async () => {
    endpoint(new Map([['tok-2', active()]]));
    await introspectToken({ provider, client: { clientId: 'api' }, clientAuth: clientSecretJwt('an-api-secret-of-at-least-32-bytes!'), token: 'tok-2' });
    const form = new URLSearchParams(await requests[0]!.text());
    expect(form.get('client_assertion_type')).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    expect(form.get('client_assertion')?.split('.')).toHaveLength(3);
  });

  it('posts the token with the hint and the resource server authenticated by its ClientAuth value', async () => {
    endpoint(new Map([['tok-1', active()]]));
    const answer = await introspectToken({ provider, client: { clientId: 'api' }, clientAuth: clientSecretBasic('api-secret'), token: 'tok-1' });
    expect(answer).toMatchObject({ active: true, sub: 'alice' });
    const sent = requests[0]!;
    expect(sent.headers.get('authorization')).toBe(`Basic ${btoa('api:api-secret')}`);
    expect(Object.fromEntries(new URLSearchParams(await sent.text()))).toEqual({ token: 'tok-1', token_type_hint: 'access_token' });
  });

  it('is introspection_failed when the provider refuses the credentials or answers no introspection JSON', async () => {
    server.use(http.post(INTROSPECT, () => HttpResponse.json({ error: 'invalid_client' }, { status: 401 })));
    const params = { provider, client: { clientId: 'api' }, clientAuth: clientSecretBasic('wrong'), token: 't' };
    await expect(introspectToken(params)).rejects.toMatchObject({ code: 'introspection_failed', message: expect.stringContaining('401') });
    server.use(http.post(INTROSPECT, () => HttpResponse.json({ sub: 'alice' })));
    await expect(introspectToken(params)).rejects.toMatchObject({ code: 'introspection_failed' });
    await expect(introspectToken({ ...params, provider: { ...provider, introspection_endpoint: undefined } })).rejects.toMatchObject({ code: 'introspection_failed' });
  });
});

describe('introspectionVerifier', () => {
  const base = { provider, client: { clientId: 'api' }, clientAuth: clientSecretBasic('api-secret'), audience: API };

  it('accepts an active token for this audience and returns its claims and scopes', async () => {
    endpoint(new Map([['tok-1', active()]]));
    const verify = introspectionVerifier({ ...base, now: () => T0 });
    const verified = await verify(request('Bearer tok-1'));
    expect(verified.scheme).toBe('Bearer');
    expect(verified.scopes).toEqual(['orders.read', 'profile']);
    expect(verified.claims).toMatchObject({ iss: ISSUER, sub: 'alice', aud: API, exp: T0 + 3600, client_id: 'spa' });
    expect(verified.claims).not.toHaveProperty('active');
  });

  it.each([
    ['not active', undefined, 'access_token_invalid'],
    ['for another audience', active({ aud: 'https://other.example.com' }), 'access_token_invalid'],
    ['from another issuer', active({ iss: 'https://evil.example.com' }), 'access_token_invalid'],
    ['expired (a stale positive answer)', active({ exp: T0 }), 'access_token_expired'],
    ['not valid yet', active({ nbf: T0 + 600 }), 'access_token_invalid'],
    ['a refresh token', active({ token_type: 'refresh_token' }), 'access_token_invalid'],
    ['without exp', active({ exp: undefined }), 'access_token_invalid'],
  ])('refuses a token %s with invalid_token', async (_, answer, code) => {
    endpoint(new Map(answer ? [['tok-x', answer]] : []));
    const error = await refusal(introspectionVerifier({ ...base, now: () => T0 })(request('Bearer tok-x')));
    expect(error).toMatchObject({ code, challenge: 'invalid_token' });
    expect(error.message).not.toContain('tok-x');
  });

  it('refuses a missing, malformed or oversized Authorization before asking the provider', async () => {
    const calls = endpoint(new Map());
    const verify = introspectionVerifier({ ...base, now: () => T0 });
    expect(await refusal(verify(request(null)))).toMatchObject({ code: 'access_token_missing' });
    // Another scheme is no token at all (RFC 6750 3.1: answered without an error code); two tokens are malformed.
    expect(await refusal(verify(request('Basic dXNlcjpwYXNz')))).toMatchObject({ code: 'access_token_missing', challenge: 'invalid_token' });
    expect(await refusal(verify(request('Bearer two tokens')))).toMatchObject({ challenge: 'invalid_request' });
    expect(await refusal(verify(request(`Bearer ${'a'.repeat(9000)}`)))).toMatchObject({ code: 'access_token_malformed' });
    expect(calls.size).toBe(0);
  });

  describe('DPoP-bound tokens: the dpopProofs() checker and binding rule of jwtAccessTokenVerifier', () => {
    const url = `${API}/orders`;
    const dpopRequest = async (handle: DpopHandle, token: string, proofUrl = url) => ({
      ...request(`DPoP ${token}`),
      dpop: await createDpopProof(handle, { htm: 'GET', htu: proofUrl, accessToken: token }),
    });

    it('accepts a bound token with a proof by the key of the introspected cnf.jkt, and names the DPoP settings', async () => {
      const handle = await dpop({ now: () => T0 });
      endpoint(new Map([['bound', active({ token_type: 'DPoP', cnf: { jkt: handle.jkt } })]]));
      const verify = introspectionVerifier({ ...base, now: () => T0, dpop: dpopProofs({ algorithms: ['ES256'], now: () => T0 }) });
      expect(verify.dpop).toEqual({ required: false, algorithms: ['ES256'] });
      const verified = await verify(await dpopRequest(handle, 'bound'));
      expect(verified.scheme).toBe('DPoP');
      expect(verified.claims.cnf).toEqual({ jkt: handle.jkt });
    });

    it('refuses a proof by another key, for another URL, or replayed, with invalid_dpop_proof', async () => {
      const [handle, other] = await Promise.all([dpop({ now: () => T0 }), dpop({ now: () => T0 })]);
      endpoint(new Map([['bound', active({ token_type: 'DPoP', cnf: { jkt: handle.jkt } })]]));
      const verify = introspectionVerifier({ ...base, now: () => T0, dpop: dpopProofs({ now: () => T0 }) });
      expect(await refusal(verify(await dpopRequest(other, 'bound')))).toMatchObject({ code: 'dpop_proof_invalid', challenge: 'invalid_dpop_proof' });
      expect(await refusal(verify(await dpopRequest(handle, 'bound', `${API}/admin`)))).toMatchObject({ code: 'dpop_proof_invalid', challenge: 'invalid_dpop_proof' });
      const once = await dpopRequest(handle, 'bound');
      await verify(once);
      expect(await refusal(verify(once))).toMatchObject({ code: 'dpop_proof_replayed', challenge: 'invalid_dpop_proof' });
    });

    it('refuses a bound token sent as Bearer, an unbound one sent as DPoP, and without a checker any bound token', async () => {
      const handle = await dpop({ now: () => T0 });
      endpoint(new Map([['bound', active({ token_type: 'DPoP', cnf: { jkt: handle.jkt } })], ['plain', active()]]));
      const verify = introspectionVerifier({ ...base, now: () => T0, dpop: dpopProofs({ now: () => T0 }) });
      expect(await refusal(verify(request('Bearer bound')))).toMatchObject({ code: 'dpop_binding_mismatch', challenge: 'invalid_token' });
      expect(await refusal(verify(await dpopRequest(handle, 'plain')))).toMatchObject({ code: 'dpop_binding_mismatch', challenge: 'invalid_token' });
      const withoutDpop = introspectionVerifier({ ...base, now: () => T0 });
      expect(withoutDpop.dpop).toBeUndefined();
      expect(await refusal(withoutDpop(await dpopRequest(handle, 'bound')))).toMatchObject({ code: 'dpop_binding_mismatch', challenge: 'invalid_token' });
    });

    it('refuses an unbound token when the checker requires binding, and says so to the HTTP layer', async () => {
      endpoint(new Map([['plain', active()]]));
      const verify = introspectionVerifier({ ...base, now: () => T0, dpop: dpopProofs({ required: true, now: () => T0 }) });
      expect(verify.dpop).toMatchObject({ required: true });
      expect(await refusal(verify(request('Bearer plain')))).toMatchObject({ code: 'dpop_binding_mismatch', challenge: 'invalid_token' });
    });

    it('refuses an answer whose cnf is not an object with a string jkt', async () => {
      const handle = await dpop({ now: () => T0 });
      endpoint(new Map([['odd', active({ token_type: 'DPoP', cnf: { jkt: 42 } as unknown as { jkt: string } })]]));
      const verify = introspectionVerifier({ ...base, now: () => T0, dpop: dpopProofs({ now: () => T0 }) });
      expect(await refusal(verify(await dpopRequest(handle, 'odd')))).toMatchObject({ code: 'access_token_invalid', challenge: 'invalid_token' });
    });
  });

  it('makes one introspection request for 50 concurrent checks of one token, held until all 50 wait on it', async () => {
    let calls = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const fetch: typeof globalThis.fetch = async () => {
      calls++;
      await gate; // the provider answers only once every caller is waiting
      return Response.json(active());
    };
    const verify = introspectionVerifier({ ...base, now: () => T0, http: { fetch } });
    const all = Promise.all(Array.from({ length: 50 }, () => verify(request('Bearer hot'))));
    await vi.waitFor(() => expect(calls).toBe(1));
    release();
    const results = await all;
    expect(results.every((r) => r.claims.sub === 'alice')).toBe(true);
    expect(calls).toBe(1);
    await verify(request('Bearer hot')); // and then from the cache
    expect(calls).toBe(1);
  });

  it('shares one request between concurrent checks of one token even without a cache, and asks again afterwards', async () => {
    const calls = endpoint(new Map([['hot', active()]]));
    const verify = introspectionVerifier({ ...base, now: () => T0, cache: false });
    await Promise.all(Array.from({ length: 10 }, () => verify(request('Bearer hot'))));
    expect(calls.get('hot')).toBe(1);
    await verify(request('Bearer hot'));
    expect(calls.get('hot')).toBe(2);
  });

  it('refuses a revoked token once the cache bound (maxAge) has passed, and never serves an answer past exp', async () => {
    const answers = new Map([['tok', active({ exp: T0 + 100 })]]);
    const calls = endpoint(answers);
    let now = T0;
    const verify = introspectionVerifier({ ...base, now: () => now, cache: { maxAge: 30 } });
    await verify(request('Bearer tok'));
    answers.delete('tok'); // revoked at the provider
    now = T0 + 29;
    await verify(request('Bearer tok')); // within the stated bound: the cached answer
    expect(calls.get('tok')).toBe(1);
    now = T0 + 30;
    expect(await refusal(verify(request('Bearer tok')))).toMatchObject({ code: 'access_token_invalid' });
    expect(calls.get('tok')).toBe(2);

    answers.set('short', active({ exp: T0 + 40 }));
    const verifyLong = introspectionVerifier({ ...base, now: () => now, cache: { maxAge: 3600 } });
    await verifyLong(request('Bearer short'));
    now = T0 + 40;
    expect(await refusal(verifyLong(request('Bearer short')))).toMatchObject({ code: 'access_token_expired' });
  });

  it('keeps at most maxEntries answers, and asks again for an evicted token', async () => {
    const calls = endpoint(new Map([['a', active()], ['b', active()], ['c', active()]]));
    const verify = introspectionVerifier({ ...base, now: () => T0, cache: { maxEntries: 2 } });
    for (const token of ['a', 'b', 'c', 'a']) await verify(request(`Bearer ${token}`));
    expect(calls.get('a')).toBe(2);
    expect(calls.get('c')).toBe(1);
  });

  it('passes a provider outage through as an OidcError, not a refusal, and caches nothing', async () => {
    server.use(http.post(INTROSPECT, () => HttpResponse.json({ error: 'server_error' }, { status: 500 })));
    const verify = introspectionVerifier({ ...base, now: () => T0 });
    const error = await verify(request('Bearer t')).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(AccessTokenError);
    expect(error).toMatchObject({ code: 'introspection_failed' });
    endpoint(new Map([['t', active()]]));
    await expect(verify(request('Bearer t'))).resolves.toMatchObject({ scheme: 'Bearer' });
  });
});
