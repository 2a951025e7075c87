import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { fetchUserInfo, serviceProvider } from '../src/index';
import { useMswServer } from './support/msw-server';

const { server, requests } = useMswServer();

const ISSUER = 'https://login.example.com/acme';
const provider = serviceProvider(ISSUER);
const USERINFO = `${ISSUER}/oidc/userinfo`;

async function failure(promise: Promise<unknown>) {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as { code: string; message: string },
  );
}

describe('fetchUserInfo', () => {
  it('sends the access token as Bearer and returns the claims', async () => {
    server.use(http.get(USERINFO, () => HttpResponse.json({ sub: 'user-42', email: 'alice@example.com' })));
    const user = await fetchUserInfo({ provider, accessToken: 'at-123', expectedSubject: 'user-42' });
    expect(user).toEqual({ sub: 'user-42', email: 'alice@example.com' });
    expect(requests[0]!.headers.get('authorization')).toBe('Bearer at-123');
  });

  it('rejects claims about another user with userinfo_sub_mismatch', async () => {
    server.use(http.get(USERINFO, () => HttpResponse.json({ sub: 'user-7', email: 'mallory@example.com' })));
    const error = await failure(fetchUserInfo({ provider, accessToken: 'at-123', expectedSubject: 'user-42' }));
    expect(error.code).toBe('userinfo_sub_mismatch');
  });

  it('rejects claims without sub with userinfo_sub_mismatch', async () => {
    server.use(http.get(USERINFO, () => HttpResponse.json({ email: 'alice@example.com' })));
    expect((await failure(fetchUserInfo({ provider, accessToken: 'at', expectedSubject: 'user-42' }))).code).toBe(
      'userinfo_sub_mismatch',
    );
  });

  it('reports 401 as userinfo_error without the access token in the message', async () => {
    server.use(http.get(USERINFO, () => HttpResponse.json({ error: 'invalid_token' }, { status: 401 })));
    const error = await failure(fetchUserInfo({ provider, accessToken: 'at-secret-999', expectedSubject: 'user-42' }));
    expect(error.code).toBe('userinfo_error');
    expect(error.message).toContain('401');
    expect(error.message).not.toContain('at-secret-999');
  });

  it('reports a non-JSON body as userinfo_error', async () => {
    server.use(http.get(USERINFO, () => HttpResponse.text('eyJhbGciOi.signed.userinfo')));
    expect((await failure(fetchUserInfo({ provider, accessToken: 'at', expectedSubject: 'u' }))).code).toBe('userinfo_error');
  });

  it('refuses a provider without userinfo endpoint', async () => {
    const bare = { ...provider, userinfo_endpoint: undefined };
    expect((await failure(fetchUserInfo({ provider: bare, accessToken: 'at', expectedSubject: 'u' }))).code).toBe(
      'invalid_options',
    );
  });
});
