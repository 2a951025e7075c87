/**
 * DPoP's client-side defences against a hostile or broken server, over real HTTP (a server on
 * 127.0.0.1, port 0): a downgrade to Bearer, a server that demands a new nonce forever, a
 * redirect that would carry the proof and token elsewhere.
 */
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProviderMetadata, clientCredentials, clientSecretBasic, dpop, fetchUserInfo, protectedResourceRequest } from '../src/index';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;
let handler: Handler = (_request, response) => response.end();
const seen: { path: string; authorization?: string; dpop?: string }[] = [];
const server = createServer((request, response) => {
  seen.push({ path: request.url ?? '', authorization: request.headers.authorization, dpop: request.headers.dpop as string | undefined });
  request.resume().on('end', () => handler(request, response));
});
let base = '';
let provider: ProviderMetadata;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provider = { issuer: base, authorization_endpoint: `${base}/authorize`, token_endpoint: `${base}/token`, userinfo_endpoint: `${base}/userinfo` };
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
};
const call = async (params: Record<string, unknown> = {}) =>
  clientCredentials({ provider, client: { clientId: 'svc' }, clientAuth: clientSecretBasic('secret'), dpop: await dpop(), ...params }).then(
    () => undefined,
    (error: unknown) => error as { code: string; error?: string; message: string },
  );

describe('DPoP against a hostile server', () => {
  it('refuses a Bearer token answered to a DPoP request (downgrade attack)', async () => {
    handler = (_request, response) => json(response, 200, { access_token: 'stolen-bearer-at', token_type: 'Bearer', expires_in: 60 });
    const error = await call();
    expect(error?.code).toBe('dpop_token_type_mismatch');
    expect(error?.message).not.toContain('stolen-bearer-at');
  });

  it('stops after one retry when the server demands a new nonce every time (no loop)', async () => {
    seen.length = 0;
    let n = 0;
    handler = (_request, response) => json(response, 400, { error: 'use_dpop_nonce' }, { 'DPoP-Nonce': `nonce-${++n}` });
    const error = await call();
    expect(error).toMatchObject({ code: 'token_endpoint_error', error: 'use_dpop_nonce' });
    expect(seen).toHaveLength(2);
    expect(seen[0]!.dpop).not.toBe(seen[1]!.dpop);
  });

  it('userinfo: a 401 nonce challenge forever is one retry, then userinfo_error', async () => {
    seen.length = 0;
    handler = (_request, response) => {
      response.writeHead(401, { 'WWW-Authenticate': 'DPoP error="use_dpop_nonce"', 'DPoP-Nonce': `u-${seen.length}` });
      response.end();
    };
    await expect(fetchUserInfo({ provider, accessToken: 'bound-at', expectedSubject: 'a', dpop: await dpop() })).rejects.toMatchObject({
      code: 'userinfo_error',
    });
    expect(seen.map((s) => s.authorization)).toEqual(['DPoP bound-at', 'DPoP bound-at']);
  });

  it('does not follow a resource redirect with the token and proof', async () => {
    seen.length = 0;
    handler = (request, response) => {
      if (request.url === '/elsewhere') return json(response, 200, { leaked: true });
      response.writeHead(302, { Location: `${base}/elsewhere` });
      response.end();
    };
    const response = await protectedResourceRequest(await dpop(), 'bound-at', `${base}/api`);
    expect(response.status).not.toBe(200);
    expect(seen.map((s) => s.path)).toEqual(['/api']);
  });
});
