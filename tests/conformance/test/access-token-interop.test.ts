// Access-token verification (@oidc-rp/node/api, RFC 9068 + DPoP) against the JWT access tokens
// of real issuers over real HTTP on 127.0.0.1: the reference server (a tenant issuing JWT
// access tokens for an RFC 8707 resource) and oidc-provider (its resourceIndicators feature
// with JWT access tokens), Bearer and DPoP-bound, the tokens obtained by @oidc-rp/core and
// sent to a small protected resource by core's protectedResourceRequest (which retries once
// on the resource's use_dpop_nonce).
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ProviderMetadata,
  clearJwksCache,
  clientCredentials,
  clientSecretBasic,
  clientSecretPost,
  discover,
  dpop,
  protectedResourceRequest,
} from '@oidc-rp/core';
import {
  type AccessTokenVerifier,
  dpopNonces,
  dpopProofs,
} from '@oidc-rp/core/api';
import { jwtAccessTokenVerifier } from '@oidc-rp/node/api';
import { demoConfig } from '@oidc-rp/reference-server';
import { createTestServer } from '@oidc-rp/reference-server/testing';
import Provider from 'oidc-provider';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';

const RESOURCE = 'https://api.example';

/** A protected resource on 127.0.0.1 whose URL for `htu` is its own configured origin. */
async function startResource(verifier: AccessTokenVerifier) {
  const server = createServer((request, response) => {
    request.resume();
    const one = (name: string) => request.headersDistinct[name]?.join(', ') ?? null;
    verifier({ method: request.method ?? 'GET', url: new URL(request.url ?? '/', origin).href, authorization: one('authorization'), dpop: one('dpop') }).then(
      (verified) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ claims: verified.claims, scheme: verified.scheme, scopes: verified.scopes }));
      },
      (error: { code?: string; challenge?: string; dpopNonce?: string }) => {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (error.challenge) headers['www-authenticate'] = `DPoP error="${error.challenge}"`;
        if (error.dpopNonce) headers['dpop-nonce'] = error.dpopNonce;
        response.writeHead(error.challenge ? 401 : 503, headers);
        response.end(JSON.stringify({ code: error.code }));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const bearer = (url: string, token: string) => fetch(url, { headers: { authorization: `Bearer ${token}` } });

beforeEach(() => clearJwksCache());

describe('the reference server’s JWT access tokens', () => {
  const config = demoConfig();
  const tenant = config.tenants[0];
  if (!tenant) throw new Error('the demo config has a tenant');
  tenant.access_token_format = 'jwt';
  for (const client of tenant.clients ?? []) client.resources = [RESOURCE]; // RFC 8707: the API these clients may ask tokens for
  let op: Awaited<ReturnType<typeof createTestServer>>;
  let provider: ProviderMetadata;
  afterAll(() => op?.close());

  const verifierFor = (nonces = false) =>
    jwtAccessTokenVerifier({ issuer: provider.issuer, jwksUri: provider.jwks_uri as string, audience: RESOURCE, dpop: dpopProofs(nonces ? { nonces: dpopNonces() } : {}) });
  const token = async (handle?: Awaited<ReturnType<typeof dpop>>) => {
    op ??= await createTestServer({ config, listen: true });
    provider ??= await discover(op.issuer);
    return clientCredentials({ provider, client: { clientId: 'service' }, clientAuth: clientSecretPost('service-secret'), scope: 'api.read', extra: { resource: RESOURCE }, ...(handle ? { dpop: handle } : {}) });
  };

  it('verifies a Bearer JWT access token issued for the resource', async () => {
    const { accessToken } = await token();
    const api = await startResource(verifierFor());
    try {
      const response = await bearer(`${api.origin}/orders`, accessToken);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { claims: Record<string, unknown>; scopes: string[] };
      expect(body.claims).toMatchObject({ iss: provider.issuer, aud: RESOURCE, sub: 'service', client_id: 'service' });
      expect(body.scopes).toEqual(['api.read']);
    } finally {
      await api.close();
    }
  });

  it('refuses its token at an API with another resource identifier (aud)', async () => {
    const { accessToken } = await token();
    const other = jwtAccessTokenVerifier({ issuer: provider.issuer, jwksUri: provider.jwks_uri as string, audience: 'https://other-api.example' });
    const api = await startResource(other);
    try {
      const response = await bearer(`${api.origin}/orders`, accessToken);
      expect([response.status, ((await response.json()) as { code: string }).code]).toEqual([401, 'access_token_aud_mismatch']);
    } finally {
      await api.close();
    }
  });

  it('verifies a DPoP-bound token with a proof by its key, through a resource nonce retry', async () => {
    const handle = await dpop();
    const tokens = await token(handle);
    expect(tokens.tokenType).toBe('DPoP');
    const api = await startResource(verifierFor(true));
    try {
      const response = await protectedResourceRequest(handle, tokens.accessToken, `${api.origin}/orders?page=2`);
      expect(response.status).toBe(200);
      expect(((await response.json()) as { scheme: string }).scheme).toBe('DPoP');
      // Stolen: the same token as Bearer, or with a proof by another key.
      expect((await bearer(`${api.origin}/orders`, tokens.accessToken)).status).toBe(401);
      const thief = await protectedResourceRequest(await dpop(), tokens.accessToken, `${api.origin}/orders`);
      expect([thief.status, ((await thief.json()) as { code: string }).code]).toEqual([401, 'dpop_proof_invalid']);
    } finally {
      await api.close();
    }
  });
});

describe('oidc-provider’s JWT access tokens (resourceIndicators)', () => {
  let server: ReturnType<typeof createServer> | undefined;
  let provider: ProviderMetadata;
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function start() {
    if (server) return;
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    server = createServer();
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const op = new Provider(issuer, {
      clients: [{ client_id: 'api-client', client_secret: 'api-client-secret-0123456789', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], token_endpoint_auth_method: 'client_secret_basic', scope: 'api.read' }],
      jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), alg: 'RS256', use: 'sig', kid: 'interop-rs256' }] },
      scopes: ['api.read'],
      ttl: { AccessToken: 600, ClientCredentials: 600 },
      features: {
        clientCredentials: { enabled: true },
        dPoP: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => RESOURCE,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, resource: string) => ({ scope: 'api.read', audience: resource, accessTokenFormat: 'jwt' as const }),
        },
      },
    });
    server.on('request', op.callback());
    provider = await discover(issuer);
  }
  const token = async (handle?: Awaited<ReturnType<typeof dpop>>) => {
    await start();
    return clientCredentials({ provider, client: { clientId: 'api-client' }, clientAuth: clientSecretBasic('api-client-secret-0123456789'), scope: 'api.read', extra: { resource: RESOURCE }, ...(handle ? { dpop: handle } : {}) });
  };
  const verifier = () => jwtAccessTokenVerifier({ issuer: provider.issuer, jwksUri: provider.jwks_uri as string, audience: RESOURCE, dpop: dpopProofs() });

  it('verifies its Bearer JWT access token', async () => {
    const { accessToken } = await token();
    const api = await startResource(verifier());
    try {
      const response = await bearer(`${api.origin}/orders`, accessToken);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { claims: Record<string, unknown>; scopes: string[]; scheme: string };
      expect(body).toMatchObject({ scheme: 'Bearer', scopes: ['api.read'], claims: { iss: provider.issuer, aud: RESOURCE, client_id: 'api-client' } });
    } finally {
      await api.close();
    }
  });

  it('verifies its DPoP-bound JWT access token with a proof, and refuses it as Bearer', async () => {
    const handle = await dpop();
    const tokens = await token(handle);
    expect(tokens.tokenType).toBe('DPoP');
    const api = await startResource(verifier());
    try {
      const response = await protectedResourceRequest(handle, tokens.accessToken, `${api.origin}/orders`, { method: 'POST', body: '{}' });
      expect([response.status, ((await response.json()) as { scheme: string }).scheme]).toEqual([200, 'DPoP']);
      const stolen = await bearer(`${api.origin}/orders`, tokens.accessToken);
      expect([stolen.status, ((await stolen.json()) as { code: string }).code]).toEqual([401, 'dpop_binding_mismatch']);
    } finally {
      await api.close();
    }
  });
});
