import { HttpResponse, http } from 'msw';
import { SignJWT } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { clearJwksCache } from '../src/index';
import { fetchSignedUserInfo } from '../src/signed';
import { CLIENT_ID, ISSUER, type TestKey, createTestKey, serveJwks, testProvider } from './support/id-tokens';
import { useMswServer } from './support/msw-server';

const { server, requests } = useMswServer();
const USERINFO = `${ISSUER}/oidc/userinfo`;
const provider = testProvider({ userinfo_endpoint: USERINFO });

async function sign(key: TestKey, claims: Record<string, unknown>, alg = key.alg): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg, kid: key.kid }).sign(key.privateKey);
}

function answer(body: string, type = 'application/jwt') {
  server.use(http.get(USERINFO, () => new HttpResponse(body, { headers: { 'content-type': type } })));
}

async function code(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'resolved',
    (error: { code: string }) => error.code,
  );
}

const fetchSigned = () => fetchSignedUserInfo({ provider, accessToken: 'at', expectedSubject: 'user-42', clientId: CLIENT_ID, signingAlgorithm: 'RS256' });

describe('signed userinfo', () => {
  beforeEach(() => clearJwksCache());

  it('verifies the JWT with the pinned algorithm and returns its claims', async () => {
    const key = await createTestKey('RS256');
    serveJwks(server, () => [key.jwk]);
    answer(await sign(key, { sub: 'user-42', iss: ISSUER, aud: CLIENT_ID, email: 'a@example.com' }));
    expect(await fetchSigned()).toMatchObject({ sub: 'user-42', email: 'a@example.com' });
    expect(requests.find((r) => r.url === USERINFO)!.headers.get('accept')).toBe('application/jwt');
  });

  it('refuses a JWT signed with another algorithm, though the provider publishes its key', async () => {
    const es = await createTestKey('ES256');
    serveJwks(server, () => [es.jwk]);
    answer(await sign(es, { sub: 'user-42', iss: ISSUER, aud: CLIENT_ID }));
    expect(await code(fetchSigned())).toBe('userinfo_alg_not_allowed');
  });

  it('refuses a JWT signed by a key the provider does not publish', async () => {
    const published = await createTestKey('RS256');
    const other = await createTestKey('RS256', { kid: published.kid });
    serveJwks(server, () => [published.jwk]);
    answer(await sign({ ...other, kid: published.kid }, { sub: 'user-42', iss: ISSUER, aud: CLIENT_ID }));
    expect(await code(fetchSigned())).toBe('userinfo_signature_invalid');
  });

  it('refuses another issuer, another audience and another subject', async () => {
    const key = await createTestKey('RS256');
    serveJwks(server, () => [key.jwk]);
    answer(await sign(key, { sub: 'user-42', iss: 'https://evil.example', aud: CLIENT_ID }));
    expect(await code(fetchSigned())).toBe('userinfo_iss_mismatch');
    answer(await sign(key, { sub: 'user-42', iss: ISSUER, aud: ['other-client'] }));
    expect(await code(fetchSigned())).toBe('userinfo_aud_mismatch');
    answer(await sign(key, { sub: 'user-7', iss: ISSUER, aud: CLIENT_ID }));
    expect(await code(fetchSigned())).toBe('userinfo_sub_mismatch');
  });

  it('refuses alg none, plain JSON and an encrypted answer, each with its own code', async () => {
    answer(`${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"user-42"}').toString('base64url')}.`);
    expect(await code(fetchSigned())).toBe('userinfo_alg_not_allowed');
    server.use(http.get(USERINFO, () => HttpResponse.json({ sub: 'user-42' })));
    expect(await code(fetchSigned())).toBe('userinfo_jwt_invalid');
    answer('eyJhbGciOiJSU0EtT0FFUCJ9.a.b.c.d');
    const error = await fetchSigned().catch((e: Error & { code: string }) => e);
    expect(error).toMatchObject({ code: 'userinfo_encrypted_unsupported' });
    expect((error as Error).message).toContain('encrypted');
  });

  it('refuses a signingAlgorithm that is not an asymmetric JWS algorithm, before any request', () => {
    expect(() => fetchSignedUserInfo({ provider, accessToken: 'at', expectedSubject: 'u', clientId: CLIENT_ID, signingAlgorithm: 'HS256' })).toThrow(
      expect.objectContaining({ code: 'invalid_options' }),
    );
    expect(requests).toHaveLength(0);
  });

  it('passes an error answer through as userinfo_error', async () => {
    server.use(http.get(USERINFO, () => HttpResponse.json({ error: 'invalid_token' }, { status: 401 })));
    expect(await code(fetchSigned())).toBe('userinfo_error');
  });
});
