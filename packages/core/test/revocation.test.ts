import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { TokenEndpointError, clientSecret, none, revokeToken, serviceProvider } from '../src/index';
import { useMswServer } from './support/msw-server';

const { server, requests } = useMswServer();

const ISSUER = 'https://login.example.com/acme';
const provider = serviceProvider(ISSUER);
const REVOKE = `${ISSUER}/oauth/revoke`;

async function failure(promise: Promise<unknown>) {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as { code: string; message: string },
  );
}

describe('revokeToken', () => {
  it('posts token, hint and client credentials, and resolves true on 200', async () => {
    server.use(http.post(REVOKE, () => new HttpResponse(null, { status: 200 })));
    const revoked = await revokeToken({
      provider,
      client: { clientId: 'web' },
      clientAuth: clientSecret('web-secret-of-the-demo-Zq7Xk2Lm9Vb4'),
      token: 'rt-1',
      tokenTypeHint: 'refresh_token',
    });
    expect(revoked).toBe(true);
    const request = requests[0]!;
    expect(request.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(await request.text()))).toEqual({
      token: 'rt-1',
      token_type_hint: 'refresh_token',
      client_id: 'web',
      client_secret: 'web-secret-of-the-demo-Zq7Xk2Lm9Vb4',
    });
  });

  it('sends only client_id for a public client', async () => {
    server.use(http.post(REVOKE, () => new HttpResponse(null, { status: 200 })));
    await revokeToken({ provider, client: { clientId: 'spa' }, clientAuth: none(), token: 'rt-1' });
    expect(Object.fromEntries(new URLSearchParams(await requests[0]!.text()))).toEqual({ token: 'rt-1', client_id: 'spa' });
  });

  it('resolves false without any request when the provider has no revocation endpoint', async () => {
    const bare = { ...provider, revocation_endpoint: undefined };
    await expect(revokeToken({ provider: bare, client: { clientId: 'spa' }, clientAuth: none(), token: 'rt-1' })).resolves.toBe(false);
    expect(requests).toHaveLength(0);
  });

  it('surfaces an error answer as TokenEndpointError without the token in the message', async () => {
    server.use(http.post(REVOKE, () => HttpResponse.json({ error: 'unsupported_token_type' }, { status: 400 })));
    const error = await failure(revokeToken({ provider, client: { clientId: 'spa' }, clientAuth: none(), token: 'rt-secret-1' }));
    expect(error).toBeInstanceOf(TokenEndpointError);
    expect(error).toMatchObject({ status: 400, error: 'unsupported_token_type' });
    expect(error.message).not.toContain('rt-secret-1');
  });
});
