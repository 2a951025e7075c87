import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  TokenEndpointError,
  buildAuthorizationRequest,
  clientSecretBasic,
  dpop,
  none,
  pushAuthorizationRequest,
  serviceProvider,
  usesPushedAuthorization,
} from '../src/index';
import { useMswServer } from './support/msw-server';

const { server, requests } = useMswServer();

const ISSUER = 'https://login.example.com/acme';
const PAR = `${ISSUER}/oauth/par`;
const provider = { ...serviceProvider(ISSUER), pushed_authorization_request_endpoint: PAR };
const REQUEST_URI = 'urn:ietf:params:oauth:request_uri:abc';

function built() {
  return buildAuthorizationRequest({ provider, clientId: 'web', redirectUri: 'https://app.example/cb', scope: 'openid profile' });
}

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as { code: string; message: string },
  );
}

describe('pushAuthorizationRequest', () => {
  it('pushes every parameter with the client authentication; the URL keeps only client_id and request_uri', async () => {
    server.use(http.post(PAR, () => HttpResponse.json({ request_uri: REQUEST_URI, expires_in: 60 }, { status: 201 })));
    const request = await built();
    const pushed = await pushAuthorizationRequest({ provider, client: { clientId: 'web' }, clientAuth: clientSecretBasic('web-secret-of-the-demo-Zq7Xk2Lm9Vb4'), request });
    const sent = requests[0]!;
    expect(sent.headers.get('authorization')).toMatch(/^Basic /);
    const form = new URLSearchParams(await sent.text());
    expect(Object.fromEntries(form)).toEqual(Object.fromEntries(request.url.searchParams));
    expect(form.get('state')).toBe(request.transaction.state);
    expect([...pushed.url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    expect(pushed.url.searchParams.get('request_uri')).toBe(REQUEST_URI);
    expect(pushed.url.origin + pushed.url.pathname).toBe(provider.authorization_endpoint);
    expect(pushed.transaction).toEqual(request.transaction);
  });

  it('keeps a query the authorization endpoint has, and sends a DPoP proof when given a handle', async () => {
    server.use(http.post(PAR, () => HttpResponse.json({ request_uri: REQUEST_URI, expires_in: 60 }, { status: 201 })));
    const withPolicy = { ...provider, authorization_endpoint: `${ISSUER}/authorize?p=signin` };
    const request = await buildAuthorizationRequest({ provider: withPolicy, clientId: 'spa', redirectUri: 'https://app.example/cb', scope: 'openid' });
    const handle = await dpop();
    const pushed = await pushAuthorizationRequest({ provider: withPolicy, client: { clientId: 'spa' }, clientAuth: none(), request, dpop: handle });
    expect(pushed.url.searchParams.get('p')).toBe('signin');
    expect(requests[0]!.headers.get('dpop')).toMatch(/^ey/);
    expect(new URLSearchParams(await requests[0]!.text()).get('client_id')).toBe('spa');
  });

  it('reports an error answer as TokenEndpointError, and an answer without request_uri as par_response_invalid', async () => {
    server.use(http.post(PAR, () => HttpResponse.json({ error: 'invalid_request', error_description: 'bad redirect_uri' }, { status: 400 }), { once: true }));
    const error = await rejection(pushAuthorizationRequest({ provider, client: { clientId: 'web' }, clientAuth: clientSecretBasic('s'), request: await built() }));
    expect(error).toBeInstanceOf(TokenEndpointError);
    expect(error).toMatchObject({ status: 400, error: 'invalid_request' });
    server.use(http.post(PAR, () => HttpResponse.json({ expires_in: 60 }, { status: 201 })));
    expect((await rejection(pushAuthorizationRequest({ provider, client: { clientId: 'web' }, clientAuth: clientSecretBasic('s'), request: await built() }))).code).toBe(
      'par_response_invalid',
    );
  });

  it('refuses an answer whose expires_in is missing, a string, zero or negative (RFC 9126 2.2) as par_response_invalid', async () => {
    for (const expires_in of [undefined, '60', 0, -1]) {
      server.use(http.post(PAR, () => HttpResponse.json({ request_uri: REQUEST_URI, expires_in }, { status: 201 }), { once: true }));
      const error = await rejection(pushAuthorizationRequest({ provider, client: { clientId: 'web' }, clientAuth: clientSecretBasic('s'), request: await built() }));
      expect(error.code, String(expires_in)).toBe('par_response_invalid');
      expect(error.message).not.toContain(REQUEST_URI);
    }
  });

  it('refuses, before any request, a provider without the endpoint and a request of another client', async () => {
    const request = await built();
    const bare = serviceProvider(ISSUER);
    expect((await rejection(pushAuthorizationRequest({ provider: bare, client: { clientId: 'web' }, clientAuth: none(), request }))).code).toBe('invalid_options');
    expect((await rejection(pushAuthorizationRequest({ provider, client: { clientId: 'other' }, clientAuth: none(), request }))).code).toBe('invalid_options');
    expect(requests).toHaveLength(0);
  });
});

describe('usesPushedAuthorization', () => {
  it('pushes when the provider requires it or the app asks; refuses what cannot be', () => {
    expect(usesPushedAuthorization(provider)).toBe(false);
    expect(usesPushedAuthorization(provider, true)).toBe(true);
    expect(usesPushedAuthorization({ ...provider, require_pushed_authorization_requests: true })).toBe(true);
    expect(() => usesPushedAuthorization({ ...provider, require_pushed_authorization_requests: true }, false)).toThrow(
      expect.objectContaining({ code: 'invalid_options' }),
    );
    expect(() => usesPushedAuthorization(serviceProvider(ISSUER), true)).toThrow(expect.objectContaining({ code: 'invalid_options' }));
    expect(usesPushedAuthorization(serviceProvider(ISSUER))).toBe(false);
  });
});
