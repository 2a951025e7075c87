import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createReferenceServer, demoConfig, type Listening } from '../src/index';
import { completeLogin, CookieJar } from '../src/testing';
import { authorizeUrl, pkce, spaParams, SPA_REDIRECT } from './helpers';
import { describeHttpBodies } from './support/http-bodies';

// Captured before any server is created, to show listen() leaves them alone.
const NativeRequest = globalThis.Request;
const NativeResponse = globalThis.Response;

const open: Listening[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

function rawGet(port: number, path: string, host: string): Promise<number> {
  return new Promise((resolveStatus, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      res.resume();
      resolveStatus(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('listen()', () => {
  it('serves a full PKCE login, token exchange and userinfo over real HTTP on 127.0.0.1', async () => {
    const calls: string[] = [];
    const server = await createReferenceServer(demoConfig(), { developmentKeys: true, logger: false, onRequest: (info) => calls.push(`${info.method} ${info.path} ${info.tenant ?? '-'}`) });
    const listening = await server.listen({ port: 0 });
    open.push(listening);
    expect(listening.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const issuer = `${listening.origin}/demo`;
    const { verifier, challenge } = pkce();
    const cookies = new CookieJar();
    const result = await completeLogin(authorizeUrl(spaParams(challenge), issuer), { cookies });
    expect(result.type).toBe('redirect');
    const location = new URL(result.type === 'redirect' ? result.location : '');
    expect(location.searchParams.get('iss')).toBe(issuer);
    const tokenRes = await fetch(`${issuer}/oidc/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: location.searchParams.get('code') ?? '', redirect_uri: SPA_REDIRECT, client_id: 'spa', code_verifier: verifier }),
    });
    expect(tokenRes.status).toBe(200);
    const tokens = (await tokenRes.json()) as { access_token: string };
    const me = await fetch(`${issuer}/oidc/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(await me.json()).toMatchObject({ sub: 'alice', name: 'Alice Liddell' });
    expect(cookies.names()).toEqual(expect.arrayContaining(['rs_browser', 'rs_session']));
    expect(calls[0]).toBe('GET /demo/oidc/authorize demo');
    expect(calls).toContain('POST /demo/oidc/token demo');
  });

  it('answers a broken Host header with 400, not 5xx', async () => {
    const server = await createReferenceServer(demoConfig(), { developmentKeys: true, logger: false });
    const listening = await server.listen({ port: 0 });
    open.push(listening);
    expect(await rawGet(listening.port, '/demo/oidc/jwks', 'exa mple<>')).toBe(400);
  });

  it('close() stops the listener; server.close() closes every listener', async () => {
    const server = await createReferenceServer(demoConfig(), { developmentKeys: true, logger: false });
    const a = await server.listen({ port: 0 });
    const b = await server.listen({ port: 0 });
    expect((await fetch(`${a.origin}/demo/oidc/jwks`)).status).toBe(200);
    await a.close();
    await expect(fetch(`${a.origin}/demo/oidc/jwks`)).rejects.toThrow();
    expect((await fetch(`${b.origin}/demo/oidc/jwks`)).status).toBe(200);
    await server.close();
    await expect(fetch(`${b.origin}/demo/oidc/jwks`)).rejects.toThrow();
  });

  it('refuses a port that is taken', async () => {
    const server = await createReferenceServer(demoConfig(), { developmentKeys: true, logger: false });
    const a = await server.listen({ port: 0 });
    open.push(a);
    await expect(server.listen({ port: a.port })).rejects.toThrow(/EADDRINUSE/);
  });
});

describe('listen() with the globals left alone', () => {
  let listening: Listening;
  beforeAll(async () => {
    const server = await createReferenceServer(demoConfig(), { developmentKeys: true, logger: false });
    listening = await server.listen({ port: 0 });
  });
  afterAll(() => listening.close());

  it('does not replace the global Request and Response of the process it runs in', () => {
    expect(Object.getOwnPropertyDescriptor(globalThis, 'Response')?.value).toBe(NativeResponse);
    expect(Object.getOwnPropertyDescriptor(globalThis, 'Request')?.value).toBe(NativeRequest);
  });

  describeHttpBodies('programmatic listener', () => listening.origin);
});
