// Every adapter of the access-token guard over real HTTP (127.0.0.1, port 0), with a test
// verifier that answers per token: challenges, scopes, hostile Host headers and targets,
// oversized credentials, and a verifier whose provider is down.
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OidcError } from '@oidc-rp/core';
import { AccessTokenError, type ResourceRequest, readAccessToken } from '@oidc-rp/core/api';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
const METADATA = `${ORIGIN}/.well-known/oauth-protected-resource`;
const seen: ResourceRequest[] = [];

/** Answers per token value, as a real verifier would for such tokens. */
const verifier: AccessTokenVerifier = Object.assign(
  async (request: ResourceRequest) => {
    seen.push(request);
    const { token } = readAccessToken(request);
    const claims = { iss: 'https://id.example.com', sub: 'alice', aud: ORIGIN, exp: 2_000_000_000 };
    if (token === 'good') return { claims, scheme: 'Bearer' as const, scopes: ['orders.read'] };
    if (token === 'narrow') return { claims, scheme: 'Bearer' as const, scopes: ['profile'] };
    if (token === 'expired') throw new AccessTokenError('access_token_expired', 'invalid_token', 'The access token has expired; get a new one.');
    if (token === 'nonce') throw new AccessTokenError('dpop_nonce_required', 'use_dpop_nonce', 'Use the server nonce in the DPoP proof.', { dpopNonce: 'nonce-1' });
    if (token === 'down') throw new OidcError('jwks_fetch_failed', 'The JWKS could not be fetched.');
    throw new AccessTokenError('access_token_invalid', 'invalid_token', 'The access token is invalid.');
  },
  { dpop: { required: false, algorithms: ['ES256', 'EdDSA'] } },
);

const guard = requireAccessToken({ verifier, origin: ORIGIN, scope: 'orders.read', realm: 'orders', resourceMetadata: METADATA });
const body = (sub: string, scopes: readonly string[]) => ({ sub, scopes });

const adapters: Record<string, () => Promise<{ origin: string; close(): Promise<void> }>> = {
  async hono() {
    const app = new Hono<{ Variables: AccessTokenVariables }>();
    app.use('*', honoAccessToken(guard));
    app.get('*', (c) => c.json(body(c.get('accessToken').claims.sub, c.get('accessToken').scopes)));
    return serveFetch(app.fetch);
  },
  async 'next route handler'() {
    return serveFetch(withAccessToken(guard, async (_request, token) => Response.json(body(token.claims.sub, token.scopes))));
  },
  async express() {
    const app = express();
    app.use(expressAccessToken(guard));
    app.use((_req, res) => {
      const token = accessTokenOf(res);
      res.json(body(token.claims.sub, token.scopes));
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
  },
  async fastify() {
    const app = Fastify();
    app.decorateRequest('accessToken', null);
    app.addHook('preHandler', fastifyAccessToken(guard));
    app.get('/*', async (request) => {
      const token = request.accessToken as VerifiedAccessToken;
      return body(token.claims.sub, token.scopes);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    return { origin: `http://127.0.0.1:${port}`, close: () => app.close() };
  },
};

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: Record<string, unknown> | undefined;
}

/** A raw HTTP request: any target and any Host, as an attacker can send them. */
function send(origin: string, target: string, headers: Record<string, string> = {}): Promise<Answer> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path: target, method: 'GET', headers: { host: 'evil.example', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let json: Record<string, unknown> | undefined;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe.each(Object.keys(adapters))('the %s adapter', (name) => {
  let server: { origin: string; close(): Promise<void> };
  beforeAll(async () => {
    server = await (adapters[name] as () => Promise<typeof server>)();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    seen.length = 0;
  });

  it('gives the handler the verified token, with the URL from the configured origin, not Host', async () => {
    const answer = await send(server.origin, '/orders?page=2', { authorization: 'Bearer good' });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ sub: 'alice', scopes: ['orders.read'] });
    expect(seen).toEqual([{ method: 'GET', url: `${ORIGIN}/orders?page=2`, authorization: 'Bearer good', dpop: null }]);
  });

  it('keeps a //evil.example target a path of the configured origin', async () => {
    const answer = await send(server.origin, '//evil.example/orders', { authorization: 'Bearer good' });
    expect(answer.status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(new URL(seen[0]!.url).origin).toBe(ORIGIN);
    expect(seen[0]!.url.startsWith(`${ORIGIN}/`)).toBe(true);
  });

  it('answers a request without a token 401 with bare Bearer and DPoP challenges and the resource metadata', async () => {
    const answer = await send(server.origin, '/orders');
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe(
      `Bearer realm="orders", resource_metadata="${METADATA}", DPoP realm="orders", resource_metadata="${METADATA}", algs="ES256 EdDSA"`,
    );
    expect(answer.headers['cache-control']).toBe('no-store');
  });

  it('answers an expired token 401 invalid_token with a description and no token in it', async () => {
    const answer = await send(server.origin, '/orders', { authorization: 'Bearer expired' });
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toMatch(/^Bearer realm="orders", error="invalid_token", error_description="The access token has expired; get a new one\."/);
    expect(answer.json).toEqual({ error: 'invalid_token', error_description: 'The access token has expired; get a new one.' });
    expect(JSON.stringify(answer)).not.toContain('Bearer expired');
  });

  it('answers a token without the required scope 403 insufficient_scope naming the scope', async () => {
    const answer = await send(server.origin, '/orders', { authorization: 'Bearer narrow' });
    expect(answer.status).toBe(403);
    expect(answer.headers['www-authenticate']).toContain('error="insufficient_scope"');
    expect(answer.headers['www-authenticate']).toContain('scope="orders.read"');
  });

  it('answers use_dpop_nonce with a DPoP challenge first and the DPoP-Nonce header', async () => {
    const answer = await send(server.origin, '/orders', { authorization: 'DPoP nonce', dpop: 'a.b.c' });
    expect(answer.status).toBe(401);
    expect(String(answer.headers['www-authenticate'])).toMatch(/^DPoP realm="orders", error="use_dpop_nonce", .*algs="ES256 EdDSA", Bearer realm="orders"/);
    expect(answer.headers['dpop-nonce']).toBe('nonce-1');
  });

  it('refuses oversized Authorization and DPoP headers 401 before the verifier runs', async () => {
    const token = await send(server.origin, '/orders', { authorization: `Bearer ${'a'.repeat(9000)}` });
    expect(token.status).toBe(401);
    expect(token.headers['www-authenticate']).toContain('error="invalid_token"');
    const proof = await send(server.origin, '/orders', { authorization: 'DPoP good', dpop: 'p'.repeat(9000) });
    expect(proof.status).toBe(401);
    expect(String(proof.headers['www-authenticate'])).toMatch(/^DPoP .*error="invalid_dpop_proof"/);
    expect(seen).toEqual([]);
  });

  it('answers a malformed Authorization 400 invalid_request', async () => {
    const answer = await send(server.origin, '/orders', { authorization: 'Bearer two tokens' });
    expect(answer.status).toBe(400);
    expect(answer.headers['www-authenticate']).toContain('error="invalid_request"');
  });

  it('answers 503 with a clear body when the verifier cannot reach its provider', async () => {
    const answer = await send(server.origin, '/orders', { authorization: 'Bearer down' });
    expect(answer.status).toBe(503);
    expect(answer.json).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringContaining('jwks_fetch_failed') });
    expect(answer.headers['cache-control']).toBe('no-store');
  });
});

describe('requireAccessToken', () => {
  it('refuses an origin with a path, and a guard without verifier', () => {
    expect(() => requireAccessToken({ verifier, origin: 'https://api.example.com/v1' })).toThrow(/origin/);
    expect(() => requireAccessToken({ verifier: undefined as unknown as AccessTokenVerifier, origin: ORIGIN })).toThrow(/verifier/);
  });

  it('takes only the path of an absolute-form target, never its host', async () => {
    seen.length = 0;
    const result = await guard.check({ method: 'GET', target: 'http://evil.example/orders?x=1', authorization: 'Bearer good', dpop: undefined });
    expect(result.ok).toBe(true);
    expect(seen[0]!.url).toBe(`${ORIGIN}/orders?x=1`);
    const star = await guard.check({ method: 'OPTIONS', target: '*', authorization: 'Bearer good', dpop: null });
    expect(star).toMatchObject({ ok: false, answer: { status: 400 } });
  });

  it('refuses repeated DPoP headers as an invalid proof', async () => {
    const result = await guard.check({ method: 'GET', target: '/orders', authorization: 'DPoP good', dpop: ['a', 'b'] });
    expect(result).toMatchObject({ ok: false, answer: { status: 401, body: { error: 'invalid_dpop_proof' } } });
  });

  it('throws what is not an OidcError (a bug in a verifier is not a refusal)', async () => {
    const buggy = requireAccessToken({ verifier: async () => Promise.reject(new TypeError('bug')), origin: ORIGIN });
    await expect(buggy(new Request(`${ORIGIN}/x`, { headers: { authorization: 'Bearer t' } }))).rejects.toThrow(TypeError);
  });
});
