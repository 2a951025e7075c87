// The guard's `cors` option through every adapter over real HTTP (127.0.0.1, port 0): the
// preflight a browser sends before Authorization and DPoP headers cross origins, the headers
// that let a page on a listed origin read refusals (WWW-Authenticate, DPoP-Nonce) and successes,
// and what an unlisted origin gets: no CORS header at all, so its page cannot read the answer.
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AccessTokenError, type ResourceRequest, readAccessToken } from '@oidc-rp/core/api';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AccessTokenVariables,
  type AccessTokenVerifier,
  type VerifiedAccessToken,
  accessTokenOf,
  expressAccessToken,
  fastifyAccessToken,
  honoAccessToken,
  requireAccessToken,
  withAccessToken,
} from '../../src/api/index';
import { serveFetch } from '../support/serve-fetch';

declare module 'fastify' {
  interface FastifyRequest {
    accessToken: VerifiedAccessToken | null;
  }
}

const ORIGIN = 'https://api.example.com';
const APP = 'https://app.example.com';
const EVIL = 'https://evil.example';

const verifier: AccessTokenVerifier = Object.assign(
  async (request: ResourceRequest) => {
    const { token } = readAccessToken(request);
    if (token === 'good') return { claims: { iss: 'https://id.example.com', sub: 'alice', aud: ORIGIN, exp: 2_000_000_000 }, scheme: 'Bearer' as const, scopes: [] };
    if (token === 'nonce') throw new AccessTokenError('dpop_nonce_required', 'use_dpop_nonce', 'Use the server nonce in the DPoP proof.', { dpopNonce: 'nonce-1' });
    throw new AccessTokenError('access_token_invalid', 'invalid_token', 'The access token is invalid.');
  },
  { dpop: { required: false, algorithms: ['ES256'] } },
);

const guard = requireAccessToken({ verifier, origin: ORIGIN, cors: { origins: [APP] } });

const adapters: Record<string, () => Promise<{ origin: string; close(): Promise<void> }>> = {
  async hono() {
    const app = new Hono<{ Variables: AccessTokenVariables }>();
    app.use('*', honoAccessToken(guard));
    app.get('*', (c) => c.json({ sub: c.get('accessToken').claims.sub }));
    return serveFetch(app.fetch);
  },
  async 'next route handler'() {
    // A handler's own Response (even an immutable one) gets the headers.
    return serveFetch(withAccessToken(guard, async (_request, token) => Response.json({ sub: token.claims.sub }, { headers: { Vary: 'Accept' } })));
  },
  async express() {
    const app = express();
    app.use(expressAccessToken(guard));
    app.use((_req, res) => {
      res.json({ sub: accessTokenOf(res).claims.sub });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
  },
  async fastify() {
    const app = Fastify();
    app.decorateRequest('accessToken', null);
    app.route({
      method: ['GET', 'OPTIONS'],
      url: '/*',
      preHandler: fastifyAccessToken(guard),
      handler: async (request) => ({ sub: (request.accessToken as VerifiedAccessToken).claims.sub }),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    return { origin: `http://127.0.0.1:${port}`, close: () => app.close() };
  },
};

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function send(origin: string, method: string, headers: Record<string, string>): Promise<Answer> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path: '/orders', method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

const preflight = (origin: string, from: string) =>
  send(origin, 'OPTIONS', { origin: from, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization, dpop' });

describe.each(Object.keys(adapters))('cors with the %s adapter', (name) => {
  let server: { origin: string; close(): Promise<void> };
  beforeAll(async () => {
    server = await (adapters[name] as () => Promise<typeof server>)();
  });
  afterAll(() => server?.close());

  it('answers a listed origin’s preflight without a token: its origin, Authorization and DPoP allowed, a max-age', async () => {
    const answer = await preflight(server.origin, APP);
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    expect(answer.headers['access-control-allow-origin']).toBe(APP);
    expect(String(answer.headers['access-control-allow-headers'])).toMatch(/Authorization.*DPoP.*Content-Type/);
    expect(String(answer.headers['access-control-allow-methods'])).toContain('GET');
    expect(answer.headers['access-control-max-age']).toBe('600');
    expect(String(answer.headers.vary)).toContain('Origin');
    expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('gives an unlisted origin’s preflight and requests no CORS header (the browser then refuses)', async () => {
    const answer = await preflight(server.origin, EVIL);
    expect(answer.status).toBe(204);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    const refused = await send(server.origin, 'GET', { origin: EVIL, authorization: 'Bearer good' });
    expect(refused.status).toBe(200);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    expect(String(refused.headers.vary)).toContain('Origin');
  });

  it('lets the listed origin read a 401 with its WWW-Authenticate and DPoP-Nonce', async () => {
    const answer = await send(server.origin, 'GET', { origin: APP, authorization: 'DPoP nonce' });
    expect(answer.status).toBe(401);
    expect(answer.headers['access-control-allow-origin']).toBe(APP);
    expect(String(answer.headers['access-control-expose-headers'])).toMatch(/WWW-Authenticate.*DPoP-Nonce/);
    expect(answer.headers['dpop-nonce']).toBe('nonce-1');
    expect(String(answer.headers['www-authenticate'])).toContain('use_dpop_nonce');
  });

  it('lets the listed origin read a success, never with a wildcard', async () => {
    const answer = await send(server.origin, 'GET', { origin: APP, authorization: 'Bearer good' });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ sub: 'alice' });
    expect(answer.headers['access-control-allow-origin']).toBe(APP);
    expect(String(answer.headers['access-control-expose-headers'])).toContain('WWW-Authenticate');
    expect(String(answer.headers.vary)).toContain('Origin');
  });

  it('still verifies an OPTIONS request that is not a preflight', async () => {
    const answer = await send(server.origin, 'OPTIONS', { origin: APP });
    expect(answer.status).toBe(401);
  });
});

describe('the cors option', () => {
  it.each([
    [{ origins: ['*'] }, /cannot be "\*"/],
    [{ origins: [] }, /must list the origins/],
    [{ origins: ['https://app.example.com/path'] }, /origins only/],
    [{ origins: ['app.example.com'] }, /origins only/],
    [{ origins: [APP], maxAge: -1 }, /maxAge/],
    [{ origins: [APP], allowHeaders: ['X Bad'] }, /header or method names/],
  ])('refuses %j with invalid_options', (cors, message) => {
    expect(() => requireAccessToken({ verifier, origin: ORIGIN, cors: cors as never })).toThrow(expect.objectContaining({ code: 'invalid_options', message: expect.stringMatching(message) }));
  });

  it('with credentials: true, says so to the listed origin only', async () => {
    const withCredentials = requireAccessToken({ verifier, origin: ORIGIN, cors: { origins: [APP], credentials: true, maxAge: 60 } });
    const answer = await withCredentials(new Request(`${ORIGIN}/orders`, { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'POST' } }));
    expect(answer.ok).toBe(false);
    if (answer.ok) return;
    expect(answer.response.headers.get('access-control-allow-credentials')).toBe('true');
    expect(answer.response.headers.get('access-control-allow-origin')).toBe(APP);
    expect(answer.response.headers.get('access-control-max-age')).toBe('60');
    const ok = await withCredentials(new Request(`${ORIGIN}/orders`, { headers: { origin: APP, authorization: 'Bearer good' } }));
    expect(ok.ok && ok.headers['Access-Control-Allow-Credentials']).toBe('true');
  });

  it('without it, a guard adds no CORS header and answers no preflight', async () => {
    const plain = requireAccessToken({ verifier, origin: ORIGIN });
    const answer = await plain(new Request(`${ORIGIN}/orders`, { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'GET' } }));
    expect(answer.ok ? 200 : answer.response.status).toBe(401);
    const ok = await plain(new Request(`${ORIGIN}/orders`, { headers: { origin: APP, authorization: 'Bearer good' } }));
    expect(ok.ok && ok.headers).toEqual({});
  });
});
